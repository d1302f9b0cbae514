// wireit's remote cache (read from wireit 0.14.13's lib/cli-options.js and lib/caching/github-actions-cache.js):
// `WIREIT_CACHE=github` makes wireit read and write the GitHub Actions cache itself, from its own process,
// through the Actions runtime's own service (ACTIONS_CACHE_URL / ACTIONS_RUNTIME_TOKEN): no URL lockguard
// could put a gate in front of.
//
// Owns: detection (`github`: ungateable, said up front; anything else: no remote) and wireit's own switch:
// `WIREIT_CACHE` decides the whole cache, so for a run that may rewrite the lockfile lockguard sets it to
// `local` (saves stay in the packages' `.wireit/`, where the pass withholds them; remote reads are off too:
// wireit has no write-only setting), or, when no remote is on, pins what wireit would use anyway.
// Invariants: reads only the env it is given; never echoes a token.

import type { Env } from '../../../core/env.js';
import type { RemoteDetection } from '../remote-upstream.js';
import type { RemotePlan } from '../types.js';
import { wireitCacheMode } from './cache.js';

export function detectWireit(env: Env): RemoteDetection {
  return wireitCacheMode(env).mode === 'github'
    ? {
        state: 'ungateable',
        runner: 'wireit',
        why: 'WIREIT_CACHE=github: wireit reaches the GitHub Actions cache from its own process, so that remote is not gated',
      }
    : { state: 'none', runner: 'wireit' };
}

/** The GitHub Actions cache off for this run (`WIREIT_CACHE=local`), or the mode wireit would use pinned. */
export function wireitWritesOff(why: string, env: Env | undefined): RemotePlan {
  const current = wireitCacheMode(env ?? {});
  if (current.mode === 'github')
    return {
      argv: [],
      env: { WIREIT_CACHE: 'local' },
      note: `[lockguard] wireit GitHub Actions cache off for this run (WIREIT_CACHE=local: saves stay in the packages' .wireit folders, where lockguard withholds stale ones; wireit has no write-only setting, so remote reads are off too): ${why}`,
    };
  const pinned = current.mode === 'none' ? 'none' : 'local';
  return {
    argv: [],
    env: { WIREIT_CACHE: pinned },
    note: `[lockguard] wireit cache kept ${pinned} for this run (WIREIT_CACHE=${pinned}, no remote): ${why}`,
  };
}
