// The words of the per-project slice files that `lockguard key` prints (`--write-slices`, `--check-slices`).
// The step `lockguard run` takes before its command (write the files, say what changed) is the guard's:
// guard/slice-step.ts, so `guardedRun` as a library does it too.
//
// Owns: `sliceReportLines` and `staleSliceLines`. Invariants: pure (a pass or a list in, lines out), every
// path printed through `printable`.

import { printable } from '../core/printable.js';
import { GIT_ADD_SLICES, SLICE_FILE, type SlicePass } from '../ledger/slice-files.js';

/** What `lockguard key --write-slices` prints: every file written or removed, or that nothing changed. */
export function sliceReportLines(pass: SlicePass | undefined): string[] {
  if (pass === undefined) return ['no lockfile with per-project slices: no slice file written'];
  if (pass.kind === 'current') return [`slice files: nothing changed (they were written for this lockfile)`];
  const where = (importer: string) => printable(importer === '.' ? SLICE_FILE : `${importer}/${SLICE_FILE}`);
  const lines = [
    ...pass.created.map((importer) => `wrote ${where(importer)} (new)`),
    ...pass.changed.map((importer) => `wrote ${where(importer)} (changed)`),
    ...pass.removed.map((importer) => `removed ${where(importer)} (the project left the workspace)`),
  ];
  if (lines.length === 0)
    lines.push(`slice files: nothing changed (${pass.unchanged} ${pass.unchanged === 1 ? 'project' : 'projects'})`);
  return lines;
}

/** What `lockguard key --check-slices` prints: each file that is not what the writer would write, with the fix. */
export function staleSliceLines(stale: {
  readonly missing: readonly string[];
  readonly differ: readonly string[];
}): string[] {
  const count = stale.missing.length + stale.differ.length;
  if (count === 0) return ['slice files: current (each holds what lockguard key --write-slices would write)'];
  return [
    ...stale.missing.map((file) => `missing: ${printable(file)}`),
    ...stale.differ.map((file) => `stale: ${printable(file)} (written for another lockfile)`),
    `${count === 1 ? '1 slice file is' : `${count} slice files are`} not current; fix: lockguard key --write-slices && ${GIT_ADD_SLICES}`,
  ];
}
