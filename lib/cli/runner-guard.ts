// The runner-cache side of `lockguard run`: before the child (which caches to guard, the remote plan, each
// cache's listing) and after it (each runner's summary, the withholding pass), composed from
// lib/integrations/runners.
//
// Invariants: every runner cache the workspace is configured for is guarded, plus any the command starts
// (integrations/runners/detect.ts), unless `--runner` says otherwise; nothing outside a runner's cache dir
// moves; nothing is withheld under `flag` or when the table did not move; a runner problem (an unreadable
// cache dir, a corrupt summary) becomes a note in the report, never a lost run result; a stop request (a
// second signal) or a disk fault ends the passes at a safe point between entries, and the outcome says so.

import { isLockguardError } from '../core/errors.js';
import {
  cacheState,
  remoteCachePlan,
  resolveCache,
  scopeClause,
  tasksAfterMove,
  withholdAfterRun,
  type CacheState,
  type GuardPlan,
  type GuardedRunner,
  type RemoteMode,
  type RunnerCache,
  type SummaryReading,
  type ScopedWithholdResult,
  type TaskAfterMove,
  type WithholdScope,
} from '../integrations/runners/index.js';
import type { LockguardError } from '../core/errors.js';
import type { Policy } from '../run/ledger.js';
import type { WithholdScopeReport } from '../run/report.js';
import { ledgerPath } from '../run/ledger-layout.js';
import type { PassControl } from '../run/quarantine.js';
import type { MoveRecord } from '../run/session.js';
import { withholdReasons } from './verdict-words.js';

type Env = Readonly<Record<string, string | undefined>>;

/** One guarded runner cache: where it is and what it held just before the command started. */
export interface GuardedCache {
  readonly runner: GuardedRunner;
  readonly cache: RunnerCache;
  readonly before: CacheState;
  /** The command itself starts this runner (its summary names the tasks); else the workspace configures it. */
  readonly started: boolean;
}

export interface RunnerPrepared {
  readonly plan: GuardPlan;
  readonly caches: readonly GuardedCache[];
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly notes: string[];
  /** Lines to print before the child starts (the remote-cache switch). */
  readonly announce: readonly string[];
  /** The environment the command runs with (the caller's plus `env`), for a runner asked after it. */
  readonly runEnv: Env;
}

export interface CacheOutcome {
  readonly runner: GuardedRunner;
  readonly cacheDir: string;
  readonly withheld: ScopedWithholdResult | undefined;
  readonly summary: SummaryReading | undefined;
}

export interface RunnerOutcome {
  readonly caches: readonly CacheOutcome[];
  /** Every entry withheld, across caches. */
  readonly withheldCount: number;
  readonly keptBeforeMove: number;
  /** Saves after the move kept because their projects' slices did not move, across caches. */
  readonly spared?: number;
  /** The status line's words on what was judged per project and what was not (affected.ts scopeClause). */
  readonly scopeClause?: string;
  readonly tasksAfterMove: readonly TaskAfterMove[];
  readonly notes: readonly string[];
  /** True when a stop request ended the withholding before every stale entry moved. */
  readonly interrupted: boolean;
  /** The disk or ledger fault that ended the withholding early (what it did not reach stays in the cache). */
  readonly fault: LockguardError | undefined;
  /** Runner versions lockguard cannot withhold from (nx older than 20): why, and the stale entries left. */
  readonly unguarded: readonly { readonly runner: GuardedRunner; readonly why: string; readonly left: number }[];
  /** Stale entries a stopped or failed pass did not withhold (they stay in the cache until the next command). */
  readonly staleLeft: number;
  /** Guarded caches whose pass never started (stopped or failed before them): their stale entries are uncounted. */
  readonly cachesNotReached: number;
}

function inLedger(path: string, root: string): boolean {
  const ledger = ledgerPath(root);
  return path === ledger || path.startsWith(`${ledger}/`);
}

function noteOf(error: unknown): string {
  if (isLockguardError(error)) return `${error.message}${error.hint === undefined ? '' : ` ${error.hint}`}`;
  throw error;
}

/** Resolve and list every guarded cache, and the remote switches, just before the child starts. */
export function prepareRunners(plan: GuardPlan, root: string, command: readonly string[], env: Env, remote: RemoteMode, remoteSwitch: (runner: GuardedRunner) => boolean): RunnerPrepared {
  const notes: string[] = [];
  const caches: GuardedCache[] = [];
  const extraEnv: Record<string, string> = {};
  const extraArgv: string[] = [];
  const announce: string[] = [];
  for (const runner of plan.runners) {
    try {
      const cache = resolveCache(runner, root, command, env);
      if (cache !== undefined) caches.push({ runner, cache, before: cacheState(cache), started: plan.started.includes(runner) });
    } catch (error) {
      notes.push(`${runner} cache: ${noteOf(error)}`);
    }
    const switched = remoteCachePlan(runner, remote, remoteSwitch(runner), { argv: command, env });
    Object.assign(extraEnv, switched.env);
    extraArgv.push(...switched.argv);
    if (switched.note !== undefined) announce.push(switched.note);
  }
  return { plan, caches, argv: [...command, ...extraArgv], env: extraEnv, notes, announce, runEnv: { ...env, ...extraEnv } };
}

/** After the command: per guarded cache, the runner's summary and (unless `flag`) the withholding pass. */
/** `scope`: which saves after the move to withhold (integrations/runners/affected.ts); without it, all of them. */
export async function afterRunners(
  prepared: RunnerPrepared,
  policy: Policy,
  move: MoveRecord | undefined,
  runId: string,
  window: { runStartedAt: number; runEndedAt: number },
  control?: PassControl,
  scope?: WithholdScope,
): Promise<RunnerOutcome> {
  const notes = [...prepared.notes];
  const outcomes: CacheOutcome[] = [];
  if (move === undefined) return { caches: outcomes, withheldCount: 0, keptBeforeMove: 0, spared: 0, scopeClause: '', tasksAfterMove: [], notes, interrupted: false, fault: undefined, unguarded: [], staleLeft: 0, cachesNotReached: 0 };
  let interrupted = false;
  let fault: LockguardError | undefined;
  let staleLeft = 0;
  let cachesNotReached = 0;
  for (const guarded of prepared.caches) {
    if (policy !== 'flag' && (interrupted || fault !== undefined || control?.stopRequested?.() === true)) {
      // Stopped at a safe point: this cache's pass never started (the next lockguard command runs it).
      interrupted = interrupted || fault === undefined;
      cachesNotReached++;
      outcomes.push({ runner: guarded.runner, cacheDir: guarded.cache.dir, withheld: undefined, summary: undefined });
      continue;
    }
    let summary: SummaryReading | undefined;
    let withheld: ScopedWithholdResult | undefined;
    const summaryNotes: string[] = [];
    try {
      summary = tasksAfterMove(guarded.cache, { movedAt: move.at, runStartedAt: window.runStartedAt });
      if (summary.note !== undefined) summaryNotes.push(`${guarded.runner} summary: ${summary.note}`);
    } catch (error) {
      notes.push(`${guarded.runner} summary: ${noteOf(error)}`);
    }
    try {
      const reading = summary ?? { source: undefined, tasks: [], runningAcrossMove: [], ownKeys: undefined, note: undefined };
      if (policy !== 'flag')
        withheld = await withholdAfterRun(
          guarded.cache,
          guarded.before,
          reading,
          {
            movedAt: move.at,
            runId,
            reasons: withholdReasons(move),
            ...window,
            ...(control === undefined ? {} : { control }),
            ...(scope === undefined ? {} : { scope }),
          },
          prepared.runEnv,
        );
      if (withheld?.interrupted === true) interrupted = true;
      if (withheld?.fault !== undefined) fault = withheld.fault;
    } catch (error) {
      // The ledger could not take the entries (a link, a full or read-only disk, a lock): a setup error, and
      // the run stays unfinished. A problem of the runner's own cache dir stays a note, as before.
      if (isLockguardError(error) && error.path !== undefined && inLedger(error.path, guarded.cache.root)) fault = error;
      else notes.push(`${guarded.runner} withholding: ${noteOf(error)}`);
    }
    // A runner the command did not start and that saved nothing in this run has nothing to say.
    const active = guarded.started || (withheld !== undefined && (withheld.withheld.length > 0 || withheld.keptBeforeMove > 0 || withheld.notMoved.length > 0)) || summary?.source !== undefined;
    if (active) notes.push(...summaryNotes);
    // Under a fault, every entry the pass could not move (the one it failed on included) stays in the cache.
    const left = (withheld?.notMoved ?? []).filter((item) => item.reason === 'interrupted' || (withheld?.fault !== undefined && item.reason === 'error'));
    for (const item of withheld?.notMoved ?? []) if (!left.includes(item)) notes.push(`not withheld ${item.key}: ${item.detail}`);
    if (withheld?.unguarded !== undefined) notes.push(`${guarded.runner}: ${withheld.unguarded.why}; ${withheld.unguarded.left} stale entries left in "${guarded.cache.dir}" (nothing was moved)`);
    staleLeft += left.length;
    if (left.length > 0) notes.push(`${guarded.runner}: ${left.length} stale entries not withheld yet (the pass was stopped); the next lockguard command in this workspace withholds them`);
    outcomes.push({ runner: guarded.runner, cacheDir: guarded.cache.dir, withheld, summary });
  }
  return {
    caches: outcomes,
    withheldCount: outcomes.reduce((sum, outcome) => sum + (outcome.withheld?.withheld.length ?? 0), 0),
    keptBeforeMove: outcomes.reduce((sum, outcome) => sum + (outcome.withheld?.keptBeforeMove ?? 0), 0),
    spared: outcomes.reduce((sum, outcome) => sum + (outcome.withheld?.spared.length ?? 0), 0),
    scopeClause: scopeClause(outcomes.flatMap((outcome) => (outcome.withheld === undefined ? [] : [{ runner: outcome.runner, ...outcome.withheld, withheld: outcome.withheld.withheld }]))),
    tasksAfterMove: outcomes.flatMap((outcome) => outcome.summary?.tasks ?? []),
    notes,
    interrupted,
    fault,
    unguarded: outcomes.flatMap((outcome) => (outcome.withheld?.unguarded === undefined ? [] : [{ runner: outcome.runner, ...outcome.withheld.unguarded }])),
    staleLeft,
    cachesNotReached,
  };
}

/** The report's record of the pass's scope: kept entries per cache, or why every save after the move went. */
export function scopeReport(scope: WithholdScope, outcome: RunnerOutcome): WithholdScopeReport {
  const reasons = outcome.caches.flatMap((cache) => (cache.withheld?.scope.kind === 'all' ? [`${cache.runner}: ${cache.withheld.scope.reason}`] : []));
  const kept = outcome.caches.flatMap((cache) => (cache.withheld?.spared ?? []).map((entry) => ({ runner: cache.runner, key: entry.key, task: entry.task })));
  return { kind: scope.kind === 'projects' && reasons.length === 0 ? 'projects' : 'all', reasons: scope.kind === 'all' && reasons.length === 0 ? [scope.reason] : reasons, kept };
}
