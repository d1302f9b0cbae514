// The CLI side of the per-project slice files: when `lockguard run` writes them, and the words it and
// `lockguard key --write-slices` print.
//
// Owns: `writeSliceFilesBeforeRun` (the one call `lockguard run` makes after its pre-run check: writes the
// files where a runner folds them or lockguard wrote them before, prints the status line when slices
// changed, and returns the line for the run's report) and the lines themselves.
// Invariants: on a run where the record is current it costs one stat, one small read and one lstat per
// project (run/slice-pass.ts), and no runner configuration is read; a problem writing a file never stops
// the run: it is one warning line naming the path and the fix (the CLI command exits 2 on the same problem).

import type { WorkspaceFingerprints } from '../core/fingerprints.js';
import { isLockguardError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import { CONFIGS, runnersFoldingSlices, type SliceRunner } from '../integrations/slice-files/folded-by.js';
import {
  GIT_ADD_SLICES,
  hasSliceRecord,
  rootSliceFileExists,
  SLICE_FILE,
  sliceFilesCurrent,
  type SlicePass,
} from '../run/slice-files.js';
import { paint, type Io } from './io.js';

function list(words: readonly string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

function projects(count: number): string {
  return count === 1 ? "1 project's" : `${count} projects'`;
}

/** "turbo and nx will rebuild their tasks", or what to do where no runner folds the files. */
function consequence(count: number, runners: readonly SliceRunner[], once: boolean): string {
  if (runners.length === 0) return `no runner folds them yet (lockguard init --sound-keys sets turbo and nx up)`;
  return `${list(runners)} will rebuild ${count === 1 ? 'its' : 'their'} tasks${once ? ' once' : ''}`;
}

/** What a run has to say: projects whose file changed since the last run, and what its own pass created or removed. */
export interface SliceChanges {
  readonly changed: readonly string[];
  readonly created: readonly string[];
  readonly removed: readonly string[];
}

/** The status lines of a run's slice files (none when nothing changed). */
export function sliceChangeLines(pass: SliceChanges, runners: readonly SliceRunner[]): string[] {
  const lines: string[] = [];
  if (pass.changed.length > 0)
    lines.push(
      `${projects(pass.changed.length)} lockfile ${pass.changed.length === 1 ? 'slice' : 'slices'} changed since the last run: ${consequence(pass.changed.length, runners, false)}`,
    );
  if (pass.created.length > 0)
    lines.push(
      `${projects(pass.created.length)} lockfile slice ${pass.created.length === 1 ? 'file' : 'files'} (${SLICE_FILE}) written for the first time: ${consequence(pass.created.length, runners, true)}`,
    );
  if (pass.removed.length > 0)
    lines.push(
      `${pass.removed.length === 1 ? '1 slice file' : `${pass.removed.length} slice files`} of projects that left the workspace removed`,
    );
  return lines;
}

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

/**
 * The runners that fold the files: those whose configuration names them, else (committed files, which
 * turbo's and nx's default inputs hash) the configured ones.
 */
function foldingRunners(root: string, configured: readonly string[]): SliceRunner[] {
  const named = runnersFoldingSlices(root);
  if (named.length > 0 || !rootSliceFileExists(root)) return named;
  return [...new Set(CONFIGS.map(([runner]) => runner))].filter((runner) => configured.includes(runner));
}

/**
 * `lockguard run`, after its pre-run check and before the command: the slice files, where this workspace
 * uses them; `configured`: the runners the run found configured. Returns the lines for the run's report
 * (printed on stderr too).
 */
export async function writeSliceFilesBeforeRun(
  table: WorkspaceFingerprints,
  configured: readonly string[],
  io: Io,
): Promise<string[]> {
  const root = table.root;
  // Adopted when lockguard wrote them here before, the root project's file is there (committed files, in a
  // fresh clone), or a configured runner's configuration names the file (no turbo or nx configured: nothing
  // read but two lstats).
  const record = hasSliceRecord(root);
  const committed = !record && rootSliceFileExists(root);
  const runners = record || committed ? undefined : runnersFoldingSlices(root, configured);
  if (runners !== undefined && runners.length === 0) return [];
  let lines: string[];
  try {
    // The fast path with the table's own digests (no hash, no parse); the slice pass is loaded only when needed.
    if (
      record &&
      table.entries.some(
        (entry) =>
          entry.kind === 'lockfile' &&
          entry.digest !== null &&
          sliceFilesCurrent(root, entry.path, entry.digest, { seenByRun: true }),
      )
    )
      return [];
    const { sliceLockfileOf, writeSliceFiles } = await import('../run/slice-pass.js');
    const { noteRunSeen } = await import('../run/slice-seen.js');
    const pass = await writeSliceFiles(root, sliceLockfileOf(root, table));
    // Changed since the last run, whoever rewrote them (an install hook may have, after that run).
    const changes = {
      changed: noteRunSeen(root),
      created: pass?.kind === 'written' ? pass.created : [],
      removed: pass?.kind === 'written' ? pass.removed : [],
    };
    const said = changes.changed.length + changes.created.length + changes.removed.length > 0;
    lines = said ? sliceChangeLines(changes, runners ?? foldingRunners(root, configured)) : [];
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    const line = `lockguard: warning: the slice files were not all written (${error.message}); runners folding them may replay outputs built against another lockfile.${error.hint === undefined ? '' : ` ${error.hint}`}`;
    io.stderr.write(`${paint(io, io.stderr, 'yellow', line)}\n`);
    return [line];
  }
  for (const line of lines) io.stderr.write(`${paint(io, io.stderr, 'yellow', `lockguard: ${line}`)}\n`);
  return lines;
}
