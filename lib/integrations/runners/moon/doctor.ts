// doctor's moon checks, as data: which cache moon uses here and what of it lockguard guards.
//
// Owns: `moonChecks(root, env)`: nothing where no moon workspace config is found; else `moon-cache` (MOON_CACHE:
// read-write or write: guarded, where; read or off: nothing saved), `moon-remote` (a remote host: not gated, and
// how a guarded run turns it off) and `moon-cas` (`experiments.casOutputsCache`: saves go to moon's CAS store,
// which lockguard does not withhold from).
// Invariants: read-only (the workspace file and env); never runs moon.

import type { DoctorCheck, Env } from '../adapter.js';
import { moonCacheMode } from './cache.js';
import { moonConfigDir, moonWorkspaceFile, workspaceSetting } from './config.js';
import { moonRemoteSource } from './remote.js';

function cacheCheck(root: string, env: Env): DoctorCheck {
  const { mode, source } = moonCacheMode(env);
  const dir = `${moonConfigDir(root)}/cache`;
  if (mode === 'read' || mode === 'off')
    return { check: 'moon-cache', level: 'ok', detail: `moon saves nothing to ${dir} here (${source})` };
  return {
    check: 'moon-cache',
    level: 'ok',
    detail: `moon caches task outputs in ${dir}/outputs (${source}): lockguard run withholds stale saves there`,
  };
}

function remoteCheck(root: string, env: Env): DoctorCheck[] {
  const source = moonRemoteSource(root, env);
  if (source === undefined) return [];
  return [
    {
      check: 'moon-remote',
      level: 'warn',
      detail: `moon's remote cache (${source}) is reached from moon's own process (the Bazel remote API): not gated`,
      fix: 'Run moon through `lockguard run` (--remote=auto, the default, sets MOON_REMOTE_HOST empty for runs that may rewrite the lockfile).',
    },
  ];
}

function casCheck(root: string, env: Env): DoctorCheck[] {
  const fromEnv = env['MOON_EXPERIMENT_CAS_OUTPUTS_CACHE'];
  const on =
    fromEnv !== undefined
      ? /^(1|true|yes|on)$/i.test(fromEnv)
      : workspaceSetting(root, ['experiments', 'casOutputsCache']) === 'true';
  if (!on) return [];
  return [
    {
      check: 'moon-cas',
      level: 'warn',
      detail: `experiments.casOutputsCache: moon saves task outputs in its CAS store (${moonConfigDir(root)}/cache/manifests, blobs), which lockguard does not withhold from`,
      fix: 'Turn the experiment off (experiments.casOutputsCache: false) for lockguard to withhold stale saves.',
    },
  ];
}

export function moonChecks(root: string, env: Env): DoctorCheck[] {
  if (moonWorkspaceFile(root) === undefined) return [];
  return [cacheCheck(root, env), ...remoteCheck(root, env), ...casCheck(root, env)];
}
