// The withholding pass for nx, per version (task-db.ts says what each version needs).
//
// Owns: `withholdNx`: plan as every runner (the shared pass handed in: withhold.ts planWithhold), then by
// the workspace's nx version: nx 24 (and newer) moves the entries; nx 20 to 23 first mark their task-DB rows not replayable and move
// only the entries whose rows were marked; an nx lockguard cannot guard (older than 20, or
// NX_CACHE_FAILURES=true) moves nothing and says so in `unguarded`, so no line claims a withholding.
// Invariants: the version is read only here, after a move (never on a run without one); a failed marking
// leaves every entry in place, each reported as not withheld with why.

import { markNotReplayable, nxSupport, nxVersionAt, type NxSupport } from './task-db.js';
import type { Env, RunnerWithholdResult, SharedPass } from '../adapter.js';
import type { CacheState, RunnerCache, WithholdOptions } from '../types.js';

export async function withholdNx(
  cache: RunnerCache,
  before: CacheState,
  options: WithholdOptions,
  env: Env,
  pass: SharedPass,
): Promise<RunnerWithholdResult> {
  const support: NxSupport = nxSupport(nxVersionAt(cache.root), env);
  const version = support.version === undefined ? {} : { runnerVersion: support.version };
  if (support.kind === 'folder') return { ...(await pass.move(cache, before, options)), ...version };
  const plan = pass.plan(cache, before, options);
  const keys = plan.units.map((unit) => unit.key);
  if (support.kind === 'unguarded') {
    return {
      ...pass.keep(plan),
      unguarded: { why: support.why ?? `nx ${support.version} cannot be guarded`, left: keys.length },
      ...version,
    };
  }
  const failed = markNotReplayable(cache.root, cache.dir, keys, env);
  if (failed !== undefined) {
    const detail = `nx ${support.version} answers hits from its task DB, and ${failed}: left in the cache (moving it would make nx restore nothing)`;
    return { ...pass.keep(plan, detail), ...version };
  }
  // Only the marked entries may move (one written since the plan would be a hit with nothing restored);
  // the plan above already counted the entries kept from before the move.
  const result = await pass.move(cache, before, { ...options, ownKeys: keys });
  return { ...result, keptBeforeMove: plan.keptBeforeMove, ...version };
}
