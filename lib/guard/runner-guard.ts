// The runner-cache side of a guarded run: before the child (which caches to guard, the remote switches,
// each cache's listing) and after it (the one withholding pass, withhold-pass.ts, with the run's move and
// scope), composed from lib/integrations/runners.
//
// Invariants: every runner cache the workspace is configured for is guarded, plus any the command starts
// (integrations/runners/detect.ts), unless `--runner` says otherwise; nothing outside a runner's cache dir
// moves; nothing is withheld under `flag` or when the table did not move; a runner problem (an unreadable
// cache dir, a corrupt summary) becomes a note in the report, never a lost run result; a stop request (a
// second signal) or a disk fault ends the passes at a safe point between entries, and the outcome says so
// (`stop`, typed: withhold-pass.ts PassStop). A guarded runner whose cache cannot be resolved (no nx to ask
// where it caches) is `unresolved`, with why: never a guessed folder, never counted as guarded.

import type { Env } from '../core/env.js';
import {
  cacheState,
  remoteCachePlan,
  resolveCache,
  scopeClause,
  type GuardPlan,
  type GuardedRunner,
  type RemoteMode,
  type TaskAfterMove,
  type WithholdScope,
} from '../integrations/runners/index.js';
import type { Policy } from '../ledger/ledger.js';
import type { WithholdScopeReport } from '../ledger/report.js';
import type { PassControl } from '../ledger/quarantine/index.js';
import type { MoveRecord } from '../ledger/session.js';
import type { RemoteSwitch } from './events.js';
import { withholdReasons } from './record-words.js';
import { noteOf, withholdPass, type PassCache, type PassOutcome } from './withhold-pass.js';

/** One guarded runner cache: where it is and what it held just before the command started. */
export type GuardedCache = PassCache;

export interface RunnerPrepared {
  readonly plan: GuardPlan;
  readonly caches: readonly GuardedCache[];
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly notes: string[];
  /** Runners the run should guard whose cache could not be resolved, and why (the line says so first). */
  readonly unresolved: readonly UnresolvedCache[];
  /** The up-front remote switches, one per runner that has one (said before the child starts). */
  readonly switches: readonly RemoteSwitch[];
  /** The environment the command runs with (the caller's plus `env`), for a runner asked after it. */
  readonly runEnv: Env;
  /** Asks again, after the command, where an unresolved runner caches (its install may have come with the run). */
  readonly resolvesNow: (runner: GuardedRunner) => boolean;
}

/** A runner whose cache lockguard could not resolve: nothing of it is guarded. */
interface UnresolvedCache {
  readonly runner: GuardedRunner;
  readonly why: string;
}

export interface RunnerOutcome extends PassOutcome {
  /** Runners whose cache could not be resolved (not guarded), and why. */
  readonly unresolved?: readonly UnresolvedCache[];
  /** The status line's words on what was judged per project and what was not (affected.ts scopeClause). */
  readonly scopeClause?: string;
  readonly tasksAfterMove: readonly TaskAfterMove[];
}

/** Resolve and list every guarded cache, and the remote switches, just before the child starts. */
export function prepareRunners(
  plan: GuardPlan,
  root: string,
  command: readonly string[],
  env: Env,
  remote: RemoteMode,
  remoteSwitch: (runner: GuardedRunner) => boolean,
): RunnerPrepared {
  const notes: string[] = [];
  const caches: GuardedCache[] = [];
  const extraEnv: Record<string, string> = {};
  const extraArgv: string[] = [];
  const switches: RemoteSwitch[] = [];
  const unresolved: UnresolvedCache[] = [];
  for (const runner of plan.runners) {
    try {
      const cache = resolveCache(runner, root, command, env);
      if (cache !== undefined)
        caches.push({ runner, cache, before: cacheState(cache), started: plan.started.includes(runner) });
    } catch (error) {
      notes.push(`${runner} cache: ${noteOf(error)}`);
      unresolved.push({ runner, why: (error as Error).message });
    }
    const switched = remoteCachePlan(runner, remote, remoteSwitch(runner), { argv: command, env });
    Object.assign(extraEnv, switched.env);
    extraArgv.push(...switched.argv);
    if (switched.note !== undefined) switches.push({ runner, line: switched.note });
  }
  return {
    plan,
    caches,
    argv: [...command, ...extraArgv],
    env: extraEnv,
    notes,
    unresolved,
    switches,
    runEnv: { ...env, ...extraEnv },
    resolvesNow: (runner) => {
      try {
        return resolveCache(runner, root, command, env) !== undefined;
      } catch {
        return false;
      }
    },
  };
}

const NOTHING: Omit<RunnerOutcome, 'notes'> = {
  caches: [],
  withheldCount: 0,
  keptBeforeMove: 0,
  spared: 0,
  scopeClause: '',
  tasksAfterMove: [],
  stop: undefined,
  unguarded: [],
  staleLeft: 0,
  cachesNotReached: 0,
};

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
  // With no move there is nothing to withhold: a runner the run's own install brought (a fresh clone whose
  // script installs first) is no doubt to report. After a move it stays unresolved: its cache was never listed.
  if (move === undefined)
    return {
      ...NOTHING,
      notes: [...prepared.notes],
      unresolved: prepared.unresolved.filter((item) => !prepared.resolvesNow(item.runner)),
    };
  const pass = await withholdPass(prepared.caches, {
    withhold: policy !== 'flag',
    movedAt: move.at,
    runId,
    reasons: withholdReasons(move),
    ...window,
    ...(control === undefined ? {} : { control }),
    ...(scope === undefined ? {} : { scope }),
    env: prepared.runEnv,
  });
  return {
    ...pass,
    unresolved: prepared.unresolved,
    notes: [...prepared.notes, ...pass.notes],
    scopeClause: scopeClause(
      pass.caches.flatMap((outcome) =>
        outcome.withheld === undefined
          ? []
          : [{ runner: outcome.runner, ...outcome.withheld, withheld: outcome.withheld.withheld }],
      ),
    ),
    tasksAfterMove: pass.caches.flatMap((outcome) => outcome.summary?.tasks ?? []),
  };
}

/** The report's record of the pass's scope: kept entries per cache, or why every save after the move went. */
export function scopeReport(scope: WithholdScope, outcome: RunnerOutcome): WithholdScopeReport {
  const reasons = outcome.caches.flatMap((cache) =>
    cache.withheld?.scope.kind === 'all' ? [`${cache.runner}: ${cache.withheld.scope.reason}`] : [],
  );
  const kept = outcome.caches.flatMap((cache) =>
    (cache.withheld?.spared ?? []).map((entry) => ({ runner: cache.runner, key: entry.key, task: entry.task })),
  );
  return {
    kind: scope.kind === 'projects' && reasons.length === 0 ? 'projects' : 'all',
    reasons: scope.kind === 'all' && reasons.length === 0 ? [scope.reason] : reasons,
    kept,
  };
}
