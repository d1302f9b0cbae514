// The withholding pass for moon: the shared pass, with each withheld entry's "previous run" state removed first.
//
// Owns: `withholdMoon`. moon reuses the outputs in place, reading no archive, when a task's
// `states/<project>/<task>/lastRun.json` names the hash it computes (cache.ts), so moving a stale archive alone
// would leave the stale outputs in place, "cached". The states naming the entries about to move are removed
// before they move (as wireit's stamps are): a guard killed in between leaves the entries for the next
// command's recovery, which plans them again.
// Invariants: only a state naming a withheld entry's hash is removed (moon rewrites it after every run of the
// task); nothing else outside the shared pass is touched; a state that cannot be removed leaves every entry in
// place, each reported as not withheld with why.

import type { Env, RunnerWithholdResult, SharedPass } from '../adapter.js';
import type { CacheState, RunnerCache, WithholdOptions } from '../types.js';
import { dropLastRuns } from './cache.js';

export async function withholdMoon(
  cache: RunnerCache,
  before: CacheState,
  options: WithholdOptions,
  _env: Env,
  pass: SharedPass,
): Promise<RunnerWithholdResult> {
  const plan = pass.plan(cache, before, options);
  // Nothing to withhold (most runs): the plan is the result; the cache is listed once.
  if (plan.units.length === 0) return pass.keep(plan);
  const keys = plan.units.map((unit) => unit.key);
  try {
    dropLastRuns(cache.dir, new Set(keys));
  } catch (error) {
    return pass.keep(
      plan,
      `its task's lastRun.json could not be removed (${error instanceof Error ? error.message : String(error)}): left in the cache (moved alone, moon would still reuse the stale outputs in place)`,
    );
  }
  const result = await pass.move(cache, before, { ...options, ownKeys: keys });
  return { ...result, keptBeforeMove: plan.keptBeforeMove };
}
