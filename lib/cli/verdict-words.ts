// The words of a verdict that are not the run's final status line: the line printed when a guarded run
// first sees the move, the line saying what an install did when no input changed, and `verify`'s line (the
// scope a run's caches were judged on is also written in its report: guard/record-words.ts judgedText).
//
// Owns: those strings (pure: moves, policy and names in, lines out).
// Invariants: a line says "which every key folds" only of the inputs a guarded run judges (never of an
// install marker); a change is "during the run" only when the run's own checks saw it while its command
// ran, otherwise "since the snapshot" / "since run <id>"; no line names a file that did not change.

import type { Scope } from '../core/entries.js';
import { foldsClause, listPaths, movedVerb } from '../core/watch.js';
import type { Policy } from '../ledger/ledger.js';
import type { MovedFile } from '../ledger/verdict.js';
import type { Evidence, MoveRecord } from '../ledger/session.js';

const pad = (value: number): string => String(value).padStart(2, '0');

/** `12:03:04`, local time: when a line is read next to the command's own output. */
function clockTime(ms: number): string {
  const date = new Date(ms);
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

// A `hook` signal is any line in the run's events (its own too), so it names no installer: both say a task wrote it.
const HOW: Record<Evidence, string> = {
  hook: 'a task wrote it',
  'fs-event': 'a task wrote it',
  gate: 'seen by the remote gate',
  exit: 'seen after the command',
};

/** What saves after the move will meet, per policy and whether any runner cache is guarded. */
function fromNow(policy: Policy, guarded: number): string {
  if (policy === 'flag')
    return 'saves from now on are keyed on what it replaced (policy flag: nothing will be withheld)';
  const withheld =
    guarded === 0
      ? 'no runner cache is guarded here, so lockguard verify will refuse saves keyed on this run'
      : 'saves from now on will be withheld';
  return policy === 'refuse' ? `${withheld}, and the run fails` : withheld;
}

/** Printed once, when a check during the command first records the move; the final line still follows. */
export function detectionLine(
  move: Pick<MoveRecord, 'at' | 'evidence' | 'files'>,
  policy: Policy,
  guarded: number,
): string {
  const paths = listPaths(move.files.map((file) => file.path));
  return `[lockguard] ${paths} changed at ${clockTime(move.at)} (${HOW[move.evidence]}): ${fromNow(policy, guarded)}`;
}

/** `installed: node_modules/.pnpm/lock.yaml created; no input changed` (the install-only changes a run saw). */
export function installedText(installed: readonly Pick<MovedFile, 'path' | 'kind'>[], inputsMoved: boolean): string {
  return `installed: ${listPaths(installed.map((file) => file.path))} ${movedVerb(installed, 'passive')}; ${inputsMoved ? 'and an input changed (above)' : 'no input changed'}`;
}

/** The one line a guarded run prints when an install changed the tree and no input: nothing to withhold. */
export function installedLine(installed: readonly Pick<MovedFile, 'path' | 'kind'>[]): string {
  return `[lockguard] ${installedText(installed, false)}, so nothing was withheld or refused`;
}

/**
 * `verify`'s line when the save is refused. A snapshot's changes are "since the snapshot"; a guarded run's
 * are "during the run" when its own checks recorded them while its command ran, "since run <id>" otherwise.
 */
export function verifyLine(
  moved: readonly MovedFile[],
  during: ReadonlySet<string>,
  kind: 'snapshot' | 'run',
  run: string,
  scope: Scope,
): string {
  const outcome = 'the cache save is refused (lockguard status for details)';
  const since = (files: readonly MovedFile[], what: string): string =>
    `${listPaths(files.map((file) => file.path))} ${files.length === 1 ? 'was' : 'were'} ${movedVerb(files, 'passive')} since ${what}`;
  if (kind === 'snapshot')
    return `[lockguard] ${since(moved, 'the snapshot')}, which its key folds (${scope} scope): ${outcome}`;
  const inRun = moved.filter((file) => during.has(file.path));
  const after = moved.filter((file) => !during.has(file.path));
  if (inRun.length === 0)
    return `[lockguard] ${since(after, `run ${run}`)}, which its keys fold (${scope} scope): ${outcome}`;
  const task = `a task ${movedVerb(inRun, 'active')} ${listPaths(inRun.map((file) => file.path))} during run ${run}`;
  return `[lockguard] ${task}${after.length === 0 ? '' : `, and ${since(after, 'it ended')}`}, ${foldsClause(moved.map((file) => file.path))}: ${outcome}`;
}

/**
 * The run's final line when only the install tree moved: the markers are named, never as what a key folds;
 * the lockfile every key folds is, with why the tree no longer holds it.
 */
export function treeLine(
  move: Pick<MoveRecord, 'files'> & { readonly tree: NonNullable<MoveRecord['tree']> },
  outcome: string,
): string {
  const paths = listPaths(move.files.map((file) => file.path));
  return `[lockguard] a task ${movedVerb(move.files, 'active')} ${paths} during the run, so the installed tree no longer holds what every key folds (${move.tree.lockfile}: ${move.tree.detail}): ${outcome}`;
}
