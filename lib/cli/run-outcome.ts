// What `lockguard run` says and which code it exits with, once the command ended.
//
// Owns: the outcome half of the one status line (what was done about a move, per policy, in words that
// never claim a protection that did not happen, and name the run), the remote gates' clause of it, and
// the exit-code rule (from guard/finish.ts's typed RunVerdict).
// Invariants: pure (strings and numbers out); the child's own failure code always wins; every branch reads
// a typed field (a pass's `stop` and its cause), never words.

import type { Env } from '../core/env.js';
import { plural } from '../core/words.js';
import { isCi } from '../integrations/ci/detect.js';
import type { FaultCause, PassStop } from '../guard/withhold-pass.js';
import type { RunVerdict } from '../guard/finish.js';
import { RUNNERS, runnerLabel } from '../integrations/runners/index.js';
import type { RemoteGateOutcome } from '../guard/remote-gate-wiring.js';
import type { GuardedCache, RunnerOutcome } from '../guard/runner-guard.js';
import type { Policy } from '../ledger/ledger.js';
import { EXIT, signalCode } from './exit-codes.js';

/** How many restored tasks the status line names before it says "...". */
const TASKS_NAMED = 3;

function list(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/**
 * A runner whose cache could not be resolved is said first: not guarded, why, and that it may replay; with
 * one, "no runner cache is guarded here (no turbo, nx, pnpm pipeline, wireit or moon configured)" would be false.
 */
/** Every guarded runner in words: `turbo, nx, pnpm pipeline, wireit or moon` (the registry's order). */
const GUARDED_WORDS = `${RUNNERS.slice(0, -1)
  .map((adapter) => adapter.label)
  .join(', ')} or ${RUNNERS.at(-1)?.label ?? ''}`;

function unresolvedWords(outcome: RunnerOutcome): { notGuarded: string; noCache: string } {
  const unresolved = outcome.unresolved ?? [];
  const notGuarded = unresolved
    .map(
      (item) =>
        `the ${runnerLabel(item.runner)} cache is not guarded (${item.why}), so it may replay saves keyed before it; `,
    )
    .join('');
  const noCache =
    unresolved.length > 0
      ? 'nothing was withheld; lockguard verify refuses saves keyed on this run'
      : `no runner cache is guarded here (no ${GUARDED_WORDS} configured), so nothing was withheld; lockguard verify refuses saves keyed on this run`;
  return { notGuarded, noCache };
}

/** What was done about the move, for the status line. */
/** `refused`: the remote gates' clause (refusedClause), '' when they refused nothing. */
export function outcomeText(
  policy: Policy,
  outcome: RunnerOutcome,
  guarded: readonly GuardedCache[],
  runId: string,
  refused = '',
): string {
  const withheld = outcome.withheldCount;
  const replayed = outcome.tasksAfterMove.filter((task) => task.action === 'restored').map((task) => task.task);
  const after =
    replayed.length === 0
      ? ''
      : `; ${plural(replayed.length, 'task')} restored from cache after it (${replayed.slice(0, TASKS_NAMED).join(', ')}${replayed.length > TASKS_NAMED ? ', ...' : ''}): re-run them`;
  const details = `${refused} (lockguard status --run ${runId} for details)`;
  const names = list(guarded.map((cache) => runnerLabel(cache.runner)));
  const { notGuarded, noCache } = unresolvedWords(outcome);
  // A runner version lockguard cannot guard is said first, with what it left, and never counted as withheld.
  const cannot = outcome.unguarded
    .map(
      (item) =>
        `${item.why}: ${plural(item.left, 'cache save')} keyed before it ${item.left === 1 ? 'was' : 'were'} left in the cache, and it may replay ${item.left === 1 ? 'it' : 'them'}; `,
    )
    .join('');
  const saves = `${notGuarded}${guardedSaves()}`;
  function guardedSaves(): string {
    return guarded.length === 0
      ? noCache
      : outcome.stop !== undefined
        ? cutShort(outcome, outcome.stop)
        : withheld === 0 && (outcome.spared ?? 0) === 0
          ? `${cannot}${cannot === '' ? `the ${names} ${guarded.length === 1 ? 'cache holds' : 'caches hold'} no save from after it, so ` : ''}nothing was withheld`
          : `${cannot}${withheld === 0 ? 'no cache save made after it was withheld' : `${plural(withheld, 'cache save')} made after it ${withheld === 1 ? 'was' : 'were'} withheld`}${outcome.scopeClause ?? ''}`;
  }
  switch (policy) {
    case 'flag':
      return `reported only (policy flag), nothing was withheld: outputs built after it are keyed on the old lockfile${after}${details}`;
    case 'withhold':
      return `${saves}${after}${details}`;
    case 'refuse':
      return `the rewrite was not refused at the source, so the run fails; ${saves}${after}${details}`;
  }
}

const FAILED: Record<FaultCause, string> = {
  'read-only': 'failed: the file system under .lockguard is read-only',
  full: 'failed: the file system under .lockguard is full',
  access: 'failed: permission denied under .lockguard',
  ledger: 'failed: the ledger could not take the entries',
};

/** A pass a fault or a second signal cut short: what it withheld, what stays in the cache, and what happens next. */
function cutShort(outcome: RunnerOutcome, stop: PassStop): string {
  const why = stop.kind === 'signal' ? 'was stopped by a signal' : FAILED[stop.cause];
  const left = outcome.staleLeft;
  const stay = `${plural(left, 'stale cache save')} ${left === 1 ? 'stays' : 'stay'} in the cache`;
  const unreached =
    outcome.cachesNotReached === 0 ? '' : ` (and ${plural(outcome.cachesNotReached, 'cache')} not checked yet)`;
  const next =
    stop.kind === 'signal'
      ? 'the next lockguard command in this workspace withholds them'
      : 'fix that (see below) and the next lockguard command in this workspace withholds them';
  return `the withholding pass ${why}: ${plural(outcome.withheldCount, 'cache save')} withheld, ${stay}${unreached}; ${next}`;
}

export type FailMode = 'auto' | 'always' | 'never';

/** The run's exit code: the child's own when it failed; 1 for a move under withhold (in CI, or always) or refuse. */
function exitCodeOf(childCode: number, moved: boolean, policy: Policy, failMode: FailMode, env: Env): number {
  if (childCode !== 0 || !moved) return childCode;
  if (failMode === 'never' && policy !== 'refuse') return childCode;
  const fail =
    policy === 'refuse' || (policy === 'withhold' && (failMode === 'always' || (failMode === 'auto' && isCi(env))));
  return fail ? EXIT.moved : childCode;
}

/** A guarded run's exit code: the rule above, then a pass a fault stopped is a setup error (2), and a signal after the child 128+n; a failing move exits `movedCode`. */
export function runExitCode(verdict: RunVerdict, failMode: FailMode, env: Env, movedCode: number = EXIT.moved): number {
  let code = exitCodeOf(verdict.childCode, verdict.moved, verdict.policy, failMode, env);
  if (verdict.stop?.kind === 'fault' && (code === 0 || code === EXIT.moved)) code = EXIT.usage;
  if (verdict.signal !== undefined && (code === 0 || code === EXIT.moved)) code = signalCode(verdict.signal);
  // `--moved-exit-code`: a move that fails the run says so with its own code (the child's own 1 stays 1).
  return verdict.childCode === 0 && code === EXIT.moved ? movedCode : code;
}

/**
 * The status line's clause for what the gates refused, or '' when they refused nothing. `keptLocally`: saves
 * after the move the local pass kept (their projects' slices did not move). The gate decides at the request,
 * by hash, and cannot tell then whose entry it is (turbo writes the entry's manifest after its upload starts,
 * its summary at the end, and the body is zstd), so it refuses every upload after the move: the clause says
 * so when the local pass kept some (turbo 2.11 also stops uploading for the run at its first refusal).
 */
export function refusedClause(outcome: RemoteGateOutcome, keptLocally = 0): string {
  const parts: string[] = [];
  const uploads = outcome.refusedUploads;
  const restores = outcome.refusedRestores;
  const every =
    keptLocally > 0
      ? ' (the gate refuses every upload after the move, of kept saves too: at the request it cannot tell whose entry it is)'
      : '';
  if (uploads > 0)
    parts.push(
      `${uploads} remote upload${uploads === 1 ? '' : 's'} made after it ${uploads === 1 ? 'was' : 'were'} refused${every}`,
    );
  if (outcome.refusedParts > 0)
    parts.push(
      `${outcome.refusedParts} remote blob upload${outcome.refusedParts === 1 ? '' : 's'} refused (no manifest followed them)`,
    );
  if (restores > 0) parts.push(`${restores} remote restore${restores === 1 ? '' : 's'} refused`);
  return parts.length === 0 ? '' : `; ${parts.join(', ')}`;
}
