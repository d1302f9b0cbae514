// The withholding pass for wireit: the shared pass, with each withheld entry's freshness stamp removed first.
//
// Owns: `withholdWireit`. wireit answers "fresh" (runs nothing, reads no cache) when a script's `fingerprint`
// file equals the fingerprint it computes and the outputs are unchanged (cache.ts), so moving a stale entry
// alone would leave the stale outputs in place, fresh. The stamps of the entries about to move are removed
// before they move (as nx 20 to 23 mark their task DB first): a guard killed in between leaves the entries for
// the next command's recovery, which plans them again.
// Invariants: only a stamp whose bytes hash to a withheld entry's key is removed (it names nothing else: wireit
// removes it itself before any run or restore); nothing else outside the shared pass is touched; a stamp that
// cannot be removed leaves every entry in place, each reported as not withheld with why.

import type { Env, RunnerWithholdResult, SharedPass } from '../adapter.js';
import type { CacheState, RunnerCache, WithholdOptions } from '../types.js';
import { dropStamps } from './cache.js';

export async function withholdWireit(
  cache: RunnerCache,
  before: CacheState,
  options: WithholdOptions,
  _env: Env,
  pass: SharedPass,
): Promise<RunnerWithholdResult> {
  const plan = pass.plan(cache, before, options);
  // Nothing to withhold (most runs): the plan is the result; the cache is listed once.
  if (plan.units.length === 0) return pass.keep(plan);
  const entries = plan.units.flatMap((unit) => unit.paths.map((path) => ({ key: unit.key, path })));
  try {
    dropStamps(cache.dir, entries);
  } catch (error) {
    return pass.keep(
      plan,
      `its script's fingerprint stamp could not be removed (${error instanceof Error ? error.message : String(error)}): left in the cache (moved alone, wireit would still call the stale outputs fresh)`,
    );
  }
  const keys = plan.units.map((unit) => unit.key);
  const result = await pass.move(cache, before, { ...options, ownKeys: keys });
  return { ...result, keptBeforeMove: plan.keptBeforeMove };
}
