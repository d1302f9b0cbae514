// The per-project slice files after an install, for the install hooks (the pnpmfile plugin at pnpm's exit,
// the npm root-script hook, the yarn plugin's afterAllInstalled), so a runner started without lockguard
// still hashes what is installed.
//
// Owns: `writeSliceFilesAfterInstall`: where the workspace uses slice files (lockguard wrote them before, or
// a runner's configuration names them: folded-by.ts), one synchronous pass (ledger/slice-pass.ts).
// Invariants: never throws: any problem, lockguard's or not, is the one warning line it returns (a hook must
// never fail the user's install because of a slice file); where the workspace does not use the files it
// costs one stat and at most four failed or small reads; where nothing changed, the stat-level check only.

import { isLockguardError } from '../../core/errors.js';
import { sliceFilesAdopted } from '../../ledger/slice-files.js';
import { writeSliceFilesSync } from '../../ledger/slice-pass.js';
import { runnersFoldingSlices } from './folded-by.js';

/** Write the slice files of the workspace at `root` if it uses them; a warning line when that failed. */
export function writeSliceFilesAfterInstall(root: string): string | undefined {
  try {
    if (!sliceFilesAdopted(root) && runnersFoldingSlices(root).length === 0) return undefined;
    writeSliceFilesSync(root);
    return undefined;
  } catch (error) {
    const why = isLockguardError(error)
      ? `${error.message}${error.hint === undefined ? '' : ` ${error.hint}`}`
      : 'an unexpected error (a bug in lockguard; please report it)';
    return `[lockguard] warning: the lockfile slice files (.lockguard-slice) were not written after this install: ${why} Runners folding them may replay outputs built against another lockfile until lockguard run or lockguard key --write-slices writes them.`;
  }
}
