// The words a guarded run writes into its records (the report, a recovery record, a quarantine entry's
// reason), which the CLI prints too where a line says the same.
//
// Owns: why an entry was withheld, the scope the caches were judged on, the remote switch and fallback
// lines, what a dead run's guard left (its death, its evidence), and the runners' display names.
// Invariants: pure (values in, strings out); a reason names what moved (never "the old lockfile" when the
// lockfile did not change); no decision anywhere reads these strings back.

import type { Scope } from '../core/entries.js';
import { listPaths } from '../core/watch.js';
import type { Evidence as DeadRunEvidence } from '../ledger/recovery.js';
import type { MoveRecord } from '../ledger/session.js';
import type { RemoteFallback, RemoteSwitch } from './events.js';

/** Why each entry was withheld, naming what moved (never "the old lockfile" when the lockfile did not change). */
export function withholdReasons(move: Pick<MoveRecord, 'files' | 'tree'>): { after: string; across: string } {
  if (move.tree !== undefined) {
    return {
      after: `saved at or after the install, built from a tree that no longer holds what ${move.tree.lockfile} says`,
      across: 'its task was running when the install tree changed',
    };
  }
  const what = listPaths(move.files.map((file) => file.path));
  return {
    after: `saved at or after the move, under a key that folded the old ${what}`,
    across: `its task was running when ${what} moved`,
  };
}

const SCOPE_WHY: Record<Scope, string> = {
  inputs: 'runner keys fold the lockfile and what an install reads, not the install tree',
  full: 'the install tree counts too',
};

/** Which scope the guarded caches were judged on, in one line: `judged on inputs: the turbo cache (…)`. */
export function judgedText(scope: Scope, caches: readonly string[]): string {
  const names =
    caches.length === 0
      ? 'no runner cache is guarded here'
      : caches.length === 1
        ? `the ${caches[0]} cache`
        : `the ${listPaths(caches)} caches`;
  return `judged on ${scope}: ${names} (${SCOPE_WHY[scope]})`;
}

/**
 * The switch lines with, for a runner the gate could not stand in front of, the reason added to its line
 * (one line per runner), or, when its switch did nothing (no writer in the plan), one line saying that
 * remote writes stay on and why.
 */
export function fallbackLines(switches: readonly RemoteSwitch[], fallbacks: readonly RemoteFallback[]): string[] {
  const lines = switches.map((entry) => entry.line);
  for (const fallback of fallbacks) {
    const at = switches.findIndex((entry) => entry.runner === fallback.runner);
    if (at === -1)
      lines.push(
        `[lockguard] ${fallback.runner} remote cache cannot be gated (${fallback.why}), and the plan shows no task that may install: remote writes stay on`,
      );
    else lines[at] = `${lines[at]} (the remote gate cannot be used: ${fallback.why})`;
  }
  return lines;
}

/** `its guard (pid 123) died before its final check`. */
export function diedText(pid: number | undefined): string {
  return `its guard${pid === undefined ? '' : ` (pid ${pid})`} died before its final check`;
}

/** What shows whether a dead run's saves were sound. */
export function evidenceText(evidence: DeadRunEvidence): string {
  switch (evidence.kind) {
    case 'recorded-move':
      return 'it had recorded a move of the table';
    case 'table-moved':
      return `the table no longer holds what it read (${evidence.files.map((file) => file.path).join(', ')})`;
    case 'none':
      return `nothing shows whether its saves were sound${evidence.problem === undefined ? '' : ` (the table cannot be re-read: ${evidence.problem})`}`;
  }
}
