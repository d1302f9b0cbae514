// Is a remote cache configured for this runner here? Only then is there an upload to stop.
//
// Owns: a cheap, read-only guess from the environment and the runner's config files.
// turbo 2: TURBO_TOKEN / TURBO_TEAM / TURBO_TEAMID / TURBO_API, `.turbo/config.json` (teamId, apiUrl), or
// the user's `$XDG_CONFIG_HOME/turborepo/config.json` token; turbo.json `remoteCache.enabled: false` turns
// it off. nx 24: NX_CLOUD_ACCESS_TOKEN / NX_CLOUD_AUTH_TOKEN / NX_CLOUD_ID, nx.json `nxCloudId` /
// `nxCloudAccessToken`, or a remote-cache package named in nx.json (`@nx/s3-cache`, `@nx/gcs-cache`, ...);
// NX_NO_CLOUD=true turns Nx Cloud off.
// Invariant: errs towards "configured" when a config file exists but cannot be read (a needless switch
// costs a cache upload; a missed one can publish a stale entry).

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { RunnerName } from './types.js';

type Env = Readonly<Record<string, string | undefined>>;

function set(env: Env, name: string): boolean {
  const value = env[name];
  return value !== undefined && value !== '';
}

function readJson(path: string): Record<string, unknown> | 'absent' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return (error as { code?: string }).code === 'ENOENT' ? 'absent' : 'unreadable';
  }
  try {
    const value: unknown = JSON.parse(text.replace(/^\s*\/\/.*$/gm, ''));
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

function turboConfigured(root: string, env: Env): boolean {
  const turboJson = readJson(join(root, 'turbo.json'));
  if (typeof turboJson === 'object' && (turboJson['remoteCache'] as { enabled?: unknown } | undefined)?.enabled === false) return false;
  if (['TURBO_TOKEN', 'TURBO_TEAM', 'TURBO_TEAMID', 'TURBO_API'].some((name) => set(env, name))) return true;
  const local = readJson(join(root, '.turbo', 'config.json'));
  if (local === 'unreadable') return true;
  if (typeof local === 'object' && ['teamId', 'teamid', 'teamSlug', 'apiUrl', 'apiurl'].some((key) => local[key] !== undefined)) return true;
  const configHome = env['XDG_CONFIG_HOME'] !== undefined && env['XDG_CONFIG_HOME'] !== '' ? env['XDG_CONFIG_HOME'] : join(env['HOME'] ?? homedir(), '.config');
  const user = readJson(join(configHome, 'turborepo', 'config.json'));
  return user === 'unreadable' || (typeof user === 'object' && user['token'] !== undefined);
}

function nxConfigured(root: string, env: Env): boolean {
  const cloudOff = env['NX_NO_CLOUD'] === 'true';
  if (!cloudOff && ['NX_CLOUD_ACCESS_TOKEN', 'NX_CLOUD_AUTH_TOKEN', 'NX_CLOUD_ID'].some((name) => set(env, name))) return true;
  const nxJson = readJson(join(root, 'nx.json'));
  if (nxJson === 'unreadable') return true;
  if (nxJson === 'absent') return false;
  if (!cloudOff && (nxJson['nxCloudId'] !== undefined || nxJson['nxCloudAccessToken'] !== undefined)) return true;
  return /"@nx\/(s3|gcs|azure|shared-fs)-cache"|"@nx-aws-plugin|nx-remotecache-/.test(JSON.stringify(nxJson));
}

/** True when the runner may upload to a remote cache from this workspace. */
export function remoteConfigured(runner: RunnerName, root: string, env: Env): boolean {
  switch (runner) {
    case 'turbo':
      return turboConfigured(root, env);
    case 'nx':
      return nxConfigured(root, env);
    case 'pnpm-pipeline':
    case 'none':
      return false;
  }
}
