// The slice-file step of a guarded run: after the pre-run check and before the command, each project's
// `.lockguard-slice` where this workspace uses them, and the lines saying what changed.
//
// Owns: `sliceFilesBeforeRun` (what `guardedRun` does unless `sliceFiles: false`: the same for `lockguard run`
// and for a library caller) and the status lines of a run's slice files (`sliceChangeLines`).
// Invariants: on a run where the record is current it costs one stat, one small read and one lstat per
// project (ledger/slice-pass.ts), and no runner configuration is read; the files are written only where a runner
// folds them, lockguard wrote them before, or they are committed; a problem writing a file never stops the
// run: it is one warning line naming the path and the fix (`lockguard key --write-slices` exits 2 on it).

import { aboveDigest, type WorkspaceFingerprints } from '../core/fingerprints.js';
import { isLockguardError } from '../core/errors.js';
import { CONFIGS, runnersFoldingSlices, type SliceRunner } from '../integrations/slice-files/folded-by.js';
import {
  hasSliceRecord,
  recordDigest,
  rootSliceFileExists,
  SLICE_FILE,
  sliceFilesCurrent,
  sliceFilesIgnored,
} from '../ledger/slice-files.js';

/** What the step has to say: its lines for the run's report, and whether they are a warning (a file not written). */
export interface SliceStep {
  readonly lines: readonly string[];
  readonly warning: boolean;
}

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
interface SliceChanges {
  readonly changed: readonly string[];
  readonly created: readonly string[];
  readonly removed: readonly string[];
}

/** The status lines of a run's slice files (none when nothing changed). */
function sliceChangeLines(pass: SliceChanges, runners: readonly SliceRunner[]): string[] {
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
 * A guarded run, after its pre-run check and before the command: the slice files, where this workspace
 * uses them; `configured`: the runners the run found configured. Returns the lines for the run's report
 * (`lockguard run` prints them too).
 */
export async function sliceFilesBeforeRun(
  table: WorkspaceFingerprints,
  configured: readonly string[],
): Promise<SliceStep> {
  const root = table.root;
  // Adopted when lockguard wrote them here before, the root project's file is there (committed files, in a
  // fresh clone), or a configured runner's configuration names the file (no turbo or nx configured: nothing
  // read but two lstats).
  const record = hasSliceRecord(root);
  const committed = !record && rootSliceFileExists(root);
  const runners = record || committed ? undefined : runnersFoldingSlices(root, configured);
  if (runners !== undefined && runners.length === 0) return NOTHING;
  let lines: string[];
  try {
    // A node_modules above the root: its markers are in the table; folded where the files are gitignored.
    const aboveHere = aboveDigest(table.entries);
    const above = aboveHere !== undefined && sliceFilesIgnored(root) ? aboveHere : undefined;
    // The fast path with the table's own digests (no hash, no parse); the slice pass is loaded only when needed.
    if (
      record &&
      table.entries.some(
        (entry) =>
          entry.kind === 'lockfile' &&
          entry.digest !== null &&
          sliceFilesCurrent(root, entry.path, recordDigest(entry.digest, above), { seenByRun: true }),
      )
    )
      return NOTHING;
    const { sliceLockfileOf, writeSliceFiles } = await import('../ledger/slice-pass.js');
    const { noteRunSeen } = await import('../ledger/slice-seen.js');
    const pass = await writeSliceFiles(root, sliceLockfileOf(root, table), above);
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
    return { lines: [line], warning: true };
  }
  return { lines, warning: false };
}

const NOTHING: SliceStep = { lines: [], warning: false };
