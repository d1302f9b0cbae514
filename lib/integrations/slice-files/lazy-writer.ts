// The slice-file writer as the install hooks that pnpm and yarn load reach it: loaded only after an install.
//
// Owns: `writeSliceFilesLazily`. The pnpmfile plugin and the yarn plugin are loaded by every pnpm / yarn
// command, so they must not carry the lockfile readers: in their bundles (dist/pnpmfile.cjs,
// dist/yarn-plugin.cjs) the build defines `__LOCKGUARD_SLICE_WRITER__` as the name of the writer's own bundle
// (dist/slice-writer.cjs, after-install.ts), required from beside them only when an install has ended; from
// the ES modules (dist/lib), after-install.js is required beside this file.
// Invariants: never throws (a writer that cannot be loaded is the warning line returned); loads nothing
// until called, and nothing where the workspace does not use slice files.

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { sliceFilesAdopted } from '../../run/slice-files.js';
import { runnersFoldingSlices } from './folded-by.js';

declare const __LOCKGUARD_SLICE_WRITER__: string | undefined;

type AfterInstall = { writeSliceFilesAfterInstall(root: string): string | undefined };

/** after-install.ts's `writeSliceFilesAfterInstall`, loaded now; a warning line when it cannot be. */
export function writeSliceFilesLazily(root: string): string | undefined {
  // Where the workspace does not use the files, nothing is loaded (one stat, at most four small reads).
  if (!sliceFilesAdopted(root) && runnersFoldingSlices(root).length === 0) return undefined;
  let writer: AfterInstall;
  try {
    const bundled = typeof __LOCKGUARD_SLICE_WRITER__ === 'string' ? __LOCKGUARD_SLICE_WRITER__ : undefined;
    writer = (
      bundled === undefined
        ? createRequire(import.meta.url)('./after-install.js')
        : createRequire(__filename)(join(dirname(__filename), bundled))
    ) as AfterInstall;
  } catch {
    return "[lockguard] warning: the lockfile slice files (.lockguard-slice) were not written after this install: lockguard's writer could not be loaded (reinstall lockguard). Runners folding them may replay outputs built against another lockfile until lockguard run or lockguard key --write-slices writes them.";
  }
  return writer.writeSliceFilesAfterInstall(root);
}
