// The slice-file writer as the pnpmfile plugin reaches it: loaded only after an install.
//
// Owns: `writeSliceFilesLazily` and `writeSliceFilesWith` (the same with the caller's loader: the yarn plugin
// carries the writer in its own file, run only when called). The pnpmfile and yarn plugins are loaded by
// every pnpm / yarn command, so neither may run the lockfile readers' module code before an install ended:
// in dist/pnpmfile.cjs the build defines `__LOCKGUARD_SLICE_WRITER__` as the name of the writer's own bundle
// (dist/slice-writer.cjs, after-install.ts), required from beside them only when an install has ended; from
// the ES modules (dist/lib), after-install.js is required beside this file.
// Invariants: never throws (a writer that cannot be loaded is the warning line returned); loads nothing
// until called, and nothing where the workspace does not use slice files.

import { isLockguardError } from '../../core/errors.js';
import { nodeModule } from '../../core/lazy-builtins.js';
import { dirname, join } from 'node:path';
import { sliceFilesAdopted } from '../../ledger/slice-files.js';
import { runnersFoldingSlices } from './folded-by.js';

declare const __LOCKGUARD_SLICE_WRITER__: string | undefined;

/** What the writer's bundle exports (after-install.ts). */
export type AfterInstall = { writeSliceFilesAfterInstall(root: string): string | undefined };

const UNLOADABLE =
  "[lockguard] warning: the lockfile slice files (.lockguard-slice) were not written after this install: lockguard's writer could not be loaded (reinstall lockguard). Runners folding them may replay outputs built against another lockfile until lockguard run or lockguard key --write-slices writes them.";

function unreadable(error: unknown): string {
  const why = isLockguardError(error)
    ? `${error.message}${error.hint === undefined ? '' : ` ${error.hint}`}`
    : 'an unexpected error (a bug in lockguard; please report it)';
  return `[lockguard] warning: the lockfile slice files (.lockguard-slice) were not checked after this install: ${why}`;
}

/**
 * after-install.ts's `writeSliceFilesAfterInstall`, loaded by `load` only where the workspace uses slice
 * files (one stat, at most four small reads otherwise); a warning line when it cannot be loaded.
 */
export function writeSliceFilesWith(root: string, load: () => AfterInstall): string | undefined {
  let writer: AfterInstall;
  try {
    if (!sliceFilesAdopted(root) && runnersFoldingSlices(root).length === 0) return undefined;
  } catch (error) {
    // A runner config the bounded reader refuses (a FIFO, a device, too large): the hook's warning, never a throw.
    return unreadable(error);
  }
  try {
    writer = load();
  } catch {
    return UNLOADABLE;
  }
  return writer.writeSliceFilesAfterInstall(root);
}

/** after-install.ts's `writeSliceFilesAfterInstall`, loaded now from beside this file; a warning line when it cannot be. */
export function writeSliceFilesLazily(root: string): string | undefined {
  return writeSliceFilesWith(root, () => {
    const bundled = typeof __LOCKGUARD_SLICE_WRITER__ === 'string' ? __LOCKGUARD_SLICE_WRITER__ : undefined;
    return (
      bundled === undefined
        ? nodeModule().createRequire(import.meta.url)('./after-install.js')
        : nodeModule().createRequire(__filename)(join(dirname(__filename), bundled))
    ) as AfterInstall;
  });
}
