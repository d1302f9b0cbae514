// nx's remote cache (read from nx 24's `cache.js`): where nx reads it from, how the gate is put in front
// of it, and nx's own switch where no gate can stand.
//
// Owns:
// - detection: Nx Cloud when `NX_CLOUD_ACCESS_TOKEN`/`NX_CLOUD_AUTH_TOKEN` or nx.json `nxCloudId`/
//   `nxCloudAccessToken`/an nx-cloud tasks runner, unless `NX_NO_CLOUD=true` or nx.json
//   `neverConnectToCloud` (cloud wins over everything: ungateable); an installed `@nx/{s3,shared-fs,gcs,
//   azure}-cache` (or `@nx/powerpack-*`), resolved from the root as nx resolves it, runs in nx's process
//   (ungateable), as does a legacy custom tasks runner named in nx.json; else
//   `NX_SELF_HOSTED_REMOTE_CACHE_SERVER` (gateable). `NX_SKIP_REMOTE_CACHE=true` or `--skipRemoteCache`: none.
// - pointing: `NX_SELF_HOSTED_REMOTE_CACHE_SERVER=<gate>`.
// - the switch: nx 24 has no write-only one. `NX_SKIP_REMOTE_CACHE=true` turns remote reads off as well;
//   under `auto` with a possible writer it is set anyway: a slower run beats an upload every CI job replays.
// Invariants: reads config files, never writes; never echoes a token.

import { readdirSync } from 'node:fs';
import { nodeModule } from '../../../core/lazy-builtins.js';
import { basename, dirname, join } from 'node:path';
import type { Env, Pointed } from '../adapter.js';
import { isSet, judgeUpstream, readJson, type RemoteDetection } from '../remote-upstream.js';
import type { RemotePlan } from '../types.js';

const NX_CACHE_PLUGINS = ['s3', 'shared-fs', 'gcs', 'azure'].flatMap((name) => [
  `@nx/${name}-cache`,
  `@nx/powerpack-${name}-cache`,
]);

/** The folders `require.resolve(name, { paths: [root] })` looks in: every node_modules from root up, then Node's global folders. */
function lookupFolders(root: string): string[] {
  const folders: string[] = [];
  for (let dir = root; ; dir = dirname(dir)) {
    if (basename(dir) !== 'node_modules') folders.push(join(dir, 'node_modules'));
    if (dirname(dir) === dir) break;
  }
  return [...folders, ...((nodeModule() as unknown as { globalPaths?: readonly string[] }).globalPaths ?? [])];
}

/** Whether some lookup folder's `@nx` scope names one of the plugins (one readdir per folder; most have none). */
function nxPluginNamed(root: string): boolean {
  const names = new Set(NX_CACHE_PLUGINS.map((name) => name.slice('@nx/'.length)));
  return lookupFolders(root).some((folder) => {
    try {
      return readdirSync(join(folder, '@nx')).some((name) => names.has(name));
    } catch {
      return false;
    }
  });
}

function nxPluginInstalled(root: string): string | undefined {
  // Resolving eight names the way nx does costs a few hundred system calls; where no lookup folder names
  // any of them, none resolves.
  if (!nxPluginNamed(root)) return undefined;
  const require = nodeModule().createRequire(join(root, 'package.json'));
  return NX_CACHE_PLUGINS.find((name) => {
    try {
      require.resolve(name, { paths: [root] });
      return true;
    } catch {
      return false;
    }
  });
}

/** The remote nx would reach from `root`. */
export function detectNx(root: string, env: Env, argv: readonly string[]): RemoteDetection {
  const nxJson = readJson(join(root, 'nx.json'));
  if (
    env['NX_SKIP_REMOTE_CACHE'] === 'true' ||
    argv.includes('--skipRemoteCache') ||
    argv.includes('--skip-remote-cache')
  )
    return { state: 'none', runner: 'nx' };
  if (nxJson === 'unreadable')
    return { state: 'ungateable', runner: 'nx', why: 'nx.json cannot be read, so its remote cache is unknown' };
  const object = typeof nxJson === 'object' ? nxJson : {};
  const cloudOff = env['NX_NO_CLOUD'] === 'true' || object['neverConnectToCloud'] === true;
  const runners = Object.values(
    (object['tasksRunnerOptions'] as Record<string, { runner?: unknown }> | undefined) ?? {},
  ).map((entry) => (typeof entry?.runner === 'string' ? entry.runner : ''));
  const cloud =
    ['NX_CLOUD_ACCESS_TOKEN', 'NX_CLOUD_AUTH_TOKEN', 'NX_CLOUD_ID'].some((name) => isSet(env, name)) ||
    object['nxCloudId'] !== undefined ||
    object['nxCloudAccessToken'] !== undefined ||
    runners.some((runner) => runner === 'nx-cloud' || runner === '@nrwl/nx-cloud');
  if (cloud && !cloudOff)
    return { state: 'ungateable', runner: 'nx', why: "Nx Cloud is reached from inside nx's own process" };
  const custom = runners.find(
    (runner) =>
      runner !== '' && runner !== 'nx/tasks-runners/default' && runner !== 'nx-cloud' && runner !== '@nrwl/nx-cloud',
  );
  if (custom !== undefined)
    return {
      state: 'ungateable',
      runner: 'nx',
      why: `the tasks runner ${custom} reaches its cache from inside nx's own process`,
    };
  const plugin = nxPluginInstalled(root);
  if (plugin !== undefined)
    return {
      state: 'ungateable',
      runner: 'nx',
      why: `${plugin} is installed and reaches its cache from inside nx's own process`,
    };
  const server = env['NX_SELF_HOSTED_REMOTE_CACHE_SERVER'];
  if (server === undefined || server === '') return { state: 'none', runner: 'nx' };
  return judgeUpstream('nx', 'nx-v1', server, 'NX_SELF_HOSTED_REMOTE_CACHE_SERVER', env);
}

/** nx's env pointed at the gate. */
export function pointNxAt(gateUrl: string, argv: readonly string[]): Pointed {
  return { env: { NX_SELF_HOSTED_REMOTE_CACHE_SERVER: gateUrl }, argv: [...argv] };
}

/** Remote reads and writes off through `NX_SKIP_REMOTE_CACHE` (nx has no write-only switch). */
export function nxWritesOff(why: string): RemotePlan {
  return {
    argv: [],
    env: { NX_SKIP_REMOTE_CACHE: 'true' },
    note: `[lockguard] nx remote cache skipped for this run (NX_SKIP_REMOTE_CACHE=true; nx has no write-only switch, so remote reads are off too): ${why}`,
  };
}
