// The runner-cache adapters' surface for `lockguard run`: re-exports plus three dispatchers over the registry.
//
// Use, around the child:
//   const guard = resolveGuard(argv, root, cwd, flagRunner);          // every configured runner + the command's
//   const cache = resolveCache(runner, root, argv, env);              // per guarded runner
//   const plan = remoteCachePlan(runner, remoteMode, mayContainWriter, { argv, env });
//   const before = cache && cacheState(cache);                        // just before spawning
//   ...run the child with plan.env / plan.argv, learn movedAt...
//   const summary = tasksAfterMove(cache, { movedAt, runStartedAt });
//   const scope = withholdScope({ root, manager, moved, slices });    // per project where slices are exact
//   const result = withholdAfterRun(cache, before, summary, { movedAt, runStartedAt, runEndedAt, runId, scope });
// Invariant: dispatch only; each runner's knowledge lives in its folder (turbo/, nx/, pnpm-pipeline/), behind
// one RunnerAdapter (adapter.ts), listed in registry.ts.

import type { Env } from '../../core/env.js';
import type { RunnerWithholdResult } from './adapter.js';
import { entryScope, type ScopeJudged, type WithholdScope } from './affected.js';
import { configuredRunners } from './detect.js';
import { adapterFor } from './registry.js';
import type { CacheState, RunnerCache, RunnerName, SummaryReading } from './types.js';
import { keepInPlace, planWithhold, withhold, type WithholdOptions } from './withhold.js';

export {
  configuredRunners,
  detectRunner,
  resolveGuard,
  runnerOfStep,
  runnersInCommand,
  stepsOf,
  type GuardedRunner,
  type GuardPlan,
} from './detect.js';
export { cacheState, listUnits } from './listing.js';
export {
  recordedRunScope,
  scopeClause,
  withholdScope,
  type ScopedPass,
  type WithholdScope,
} from './affected.js';
export { remoteCachePlan } from './remote.js';
export { detectRemote, type RemoteDetection } from './remote-config.js';
export { pointRunnerAt } from './remote-point.js';
export { withhold, type WithholdOptions, type WithholdResult } from './withhold.js';
export { resolveTurboCache } from './turbo/cache.js';
export { directTurboStart } from './turbo/binary.js';
export { resolveNxCache } from './nx/cache.js';
export { nxSupport, nxVersionAt } from './nx/task-db.js';
export { resolvePipelineCache, pipelineFolderName } from './pnpm-pipeline/cache.js';
export { adapterFor, RUNNERS } from './registry.js';
export type { DoctorCheck, RunnerAdapter } from './adapter.js';
export { RUNNER_NAMES, REMOTE_MODES } from './types.js';
export type {
  CacheState,
  RemoteMode,
  RunnerCache,
  RunnerName,
  SummaryReading,
  TaskAfterMove,
} from './types.js';

/** The runner's local cache as it resolves it, or undefined for 'none'. */
export function resolveCache(
  runner: RunnerName,
  root: string,
  argv: readonly string[],
  env: Env,
): RunnerCache | undefined {
  return runner === 'none' ? undefined : adapterFor(runner).resolveCache(root, argv, env);
}

/** The runner in words for the user's lines (`pnpm pipeline`). */
/** Whether `runner` installs before it keys its tasks (its adapter's `installsBeforeKeying`). */
export function installsBeforeKeying(runner: Exclude<RunnerName, 'none'>): boolean {
  return adapterFor(runner).installsBeforeKeying === true;
}

export function runnerLabel(runner: Exclude<RunnerName, 'none'>): string {
  return adapterFor(runner).label;
}

/**
 * The caches of `runners` (default: every runner the workspace is configured for) as they resolve now, with
 * no command line: what a record read back may name (ledger/trust.ts). A runner whose cache cannot be resolved
 * is left out (nothing of it can be vouched for).
 */
export function cachesNow(
  root: string,
  env: Env,
  runners: readonly RunnerName[] = configuredRunners(root),
): RunnerCache[] {
  const out: RunnerCache[] = [];
  for (const runner of new Set(runners)) {
    try {
      const cache = resolveCache(runner, root, [], env);
      if (cache !== undefined) out.push(cache);
    } catch {
      // Unresolvable now: no record may steer into it.
    }
  }
  return out;
}

/** What the runner's own summary of this run says: tasks that restored or saved after the move, and more. */
export function tasksAfterMove(cache: RunnerCache, options: { movedAt: number; runStartedAt: number }): SummaryReading {
  return adapterFor(cache.runner).summary(cache, options);
}

/** A withholding pass's result with the scope it was judged on (every save after the move, and why, or per project). */
export interface ScopedWithholdResult extends RunnerWithholdResult {
  readonly scope: ScopeJudged;
}

/**
 * `withhold` fed with the summary: tasks running across the move, own keys only for a shared cache, and
 * the entries the scope spares (affected.ts; without a scope, every save after the move). A runner with its
 * own pass goes through it (nx's per-version one: nx/withhold.ts); `env` is what the runner ran with (default: this process's), for
 * the workspace's nx when its task DB must be updated.
 */
export async function withholdAfterRun(
  cache: RunnerCache,
  before: CacheState,
  summary: SummaryReading,
  options: Omit<WithholdOptions, 'runningAcrossMove' | 'ownKeys' | 'taskOf' | 'nameOf' | 'spare'> & {
    readonly scope?: WithholdScope;
  },
  env: Env = process.env,
): Promise<ScopedWithholdResult> {
  const { scope, ...rest } = options;
  const taskOf = new Map(summary.tasks.map((task) => [task.key, task.task]));
  const entries = scope === undefined ? undefined : entryScope(cache, scope, summary);
  const entryTask = adapterFor(cache.runner).entryTask;
  const fed: WithholdOptions = {
    ...rest,
    runningAcrossMove: summary.runningAcrossMove,
    taskOf,
    ...(entryTask === undefined ? {} : { nameOf: (key: string) => entryTask(cache, key) }),
    ...(cache.shared === true && summary.ownKeys !== undefined ? { ownKeys: summary.ownKeys } : {}),
    ...(entries?.kind === 'projects' ? { spare: (key: string) => entries.spare(key) } : {}),
  };
  const own = adapterFor(cache.runner).withhold;
  const result =
    own === undefined
      ? await withhold(cache, before, fed)
      : await own(cache, before, fed, env, { plan: planWithhold, move: withhold, keep: keepInPlace });
  return {
    ...result,
    scope:
      entries === undefined
        ? { kind: 'all', reason: 'no scope was given' }
        : entries.kind === 'all'
          ? { kind: 'all', reason: entries.reason }
          : entries.judged(),
  };
}
