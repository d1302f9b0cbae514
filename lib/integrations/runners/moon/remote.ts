// moon's remote cache (read from moon 2.5's crates/config remote_config.rs and cache-remote, measured with
// moon 2.5.5): `remote.host` in the workspace config, or `MOON_REMOTE_HOST` over it, names a Bazel Remote
// Execution API service (gRPC by default, HTTP with `remote.api: http`; moonbase, bazel-remote). moon reaches it
// from its own process, with a protocol lockguard has no gate for, so that remote is not gated.
//
// Owns: detection (ungateable when a host is set, said up front; else none) and moon's own switch: an empty
// `MOON_REMOTE_HOST` turns the remote off for the run (measured: no connection; saves still go to
// `.moon/cache/outputs/`, where lockguard withholds stale ones). moon has no write-only setting outside CI
// (`remote.cache.localReadOnly` still uploads when `CI` is set), so remote reads are off too. `MOON_CACHE=read`
// would stop local saves as well.
// Invariants: reads only the env it is given and the workspace file; never echoes the host (it may hold a
// credential) or a token.

import type { Env } from '../../../core/env.js';
import type { RemoteDetection } from '../remote-upstream.js';
import type { RemotePlan } from '../types.js';
import { moonWorkspaceFile, workspaceSetting } from './config.js';

/** Where moon's remote host is set, or undefined when moon reaches no remote. */
export function moonRemoteSource(root: string, env: Env): string | undefined {
  const fromEnv = env['MOON_REMOTE_HOST'];
  if (fromEnv !== undefined) return fromEnv === '' ? undefined : 'MOON_REMOTE_HOST';
  const host = workspaceSetting(root, ['remote', 'host']);
  return host === undefined || host === ''
    ? undefined
    : `remote.host in ${moonWorkspaceFile(root) ?? '.moon/workspace.yml'}`;
}

export function detectMoon(root: string, env: Env): RemoteDetection {
  const source = moonRemoteSource(root, env);
  return source === undefined
    ? { state: 'none', runner: 'moon' }
    : {
        state: 'ungateable',
        runner: 'moon',
        why: `moon's remote cache (${source}: the Bazel remote API) is reached from moon's own process, so that remote is not gated; a run that may rewrite the lockfile turns it off (MOON_REMOTE_HOST empty)`,
      };
}

/**
 * The remote off for this run (an empty `MOON_REMOTE_HOST`), said whether or not one is configured (the switch
 * has no root to read the workspace file from; a host there is named by the detection's line).
 */
export function moonWritesOff(why: string, env: Env | undefined): RemotePlan {
  const fromEnv = env?.['MOON_REMOTE_HOST'];
  const what =
    fromEnv === undefined || fromEnv === '' ? "any remote.host of moon's workspace file" : 'MOON_REMOTE_HOST';
  return {
    argv: [],
    env: { MOON_REMOTE_HOST: '' },
    note: `[lockguard] moon remote cache off for this run (MOON_REMOTE_HOST empty: ${what} is not reached, reads included, as moon has no write-only setting; saves stay in .moon/cache, where lockguard withholds stale ones): ${why}`,
  };
}
