// doctor's lage checks, as data: where lage caches here, what of it lockguard guards, and its remote.
//
// Owns: `lageChecks(root, env)`: nothing where lage is not configured; else `lage-cache` (local saves in
// node_modules/.cache/lage: guarded; turned off by lage's env: nothing saved) and, where a remote is
// configured, `lage-remote` (not gated; a guarded run turns remote writes off: remote.ts).
// Invariants: read-only; never runs lage or its config.

import type { DoctorCheck, Env } from '../adapter.js';
import { localSavesOff } from './cache.js';
import { lageConfigFile, lageConfigured } from './config.js';
import { lageRemoteSource } from './remote.js';

function cacheCheck(root: string, env: Env): DoctorCheck {
  const off = localSavesOff([], env);
  if (off !== undefined)
    return { check: 'lage-cache', level: 'ok', detail: `lage saves nothing locally here (${off})` };
  const config = lageConfigFile(root);
  return {
    check: 'lage-cache',
    level: 'ok',
    detail: `lage caches in node_modules/.cache/lage/cache/<hash[:4]>/<hash>/ (config: ${config?.file ?? 'none, lage defaults'}): lockguard run withholds stale saves there`,
  };
}

function remoteCheck(root: string, env: Env): DoctorCheck[] {
  const source = lageRemoteSource(root, env);
  if (source === undefined) return [];
  return [
    {
      check: 'lage-remote',
      level: 'warn',
      detail: `lage's backfill remote cache (${source}) is reached from lage's own worker threads; that remote is not gated`,
      fix: 'Run lage through `lockguard run` (--remote=auto, the default, sets LAGE_WRITE_CACHE=false for runs that may rewrite the lockfile, and blanks BACKFILL_CACHE_PROVIDER where the env sets it).',
    },
  ];
}

export function lageChecks(root: string, env: Env): DoctorCheck[] {
  if (!lageConfigured(root)) return [];
  return [cacheCheck(root, env), ...remoteCheck(root, env)];
}
