// Which remote cache each runner would reach from this workspace, and whether the gate can stand there.
//
// Owns: `detectRemote(runner, root, env, argv)` → none | gateable (the upstream URL and where it was set)
// | ungateable (why), read-only, from the same places the runners read:
// - turbo 2.11: `--api/--token/--team` in the runner's argv, `TURBO_API`/`TURBO_TOKEN`/`TURBO_TEAM`/
//   `TURBO_TEAMID`, `.turbo/config.json` (apiUrl, teamId, teamSlug, token), the `turbo login` user config
//   (`$TURBO_CONFIG_DIR_PATH` or `$XDG_CONFIG_HOME/turborepo/config.json`: token, apiUrl), turbo.json
//   `remoteCache` (apiUrl, teamId, teamSlug; `enabled: false` turns it off). Precedence as turbo's own:
//   flags > env > .turbo/config.json > user config > turbo.json > `https://vercel.com/api`.
// - nx 24 (read from its `cache.js`): Nx Cloud when `NX_CLOUD_ACCESS_TOKEN`/`NX_CLOUD_AUTH_TOKEN` or nx.json
//   `nxCloudId`/`nxCloudAccessToken`/an nx-cloud tasks runner, unless `NX_NO_CLOUD=true` or nx.json
//   `neverConnectToCloud` (cloud wins over everything: ungateable); an installed `@nx/{s3,shared-fs,gcs,
//   azure}-cache` (or `@nx/powerpack-*`), resolved from the root as nx resolves it, runs in nx's process
//   (ungateable), as does a legacy custom tasks runner named in nx.json; else
//   `NX_SELF_HOSTED_REMOTE_CACHE_SERVER` (gateable). `NX_SKIP_REMOTE_CACHE=true` or `--skipRemoteCache`: none.
// - pnpm 12.21 pipeline: `PNPM_REMOTE_CACHE_URL` with `PNPM_REMOTE_CACHE_TRUSTED_KEYS` (without trusted
//   keys pnpm turns its remote off). The URL is joined by plain concatenation (a base path is kept).
//   Gateable only without a credential for it in pnpm's npmrc settings (see npmrc-auth.ts).
// An upstream is ungateable when its URL is not plain http(s) (credentials or a query in it) or when a
// proxy variable covers its host (the runner would go through the proxy; the gate does not speak one).
// Invariants: reads config files, never writes; never returns or echoes a token or an env value other
// than the upstream URL itself (which was refused if it held credentials); a config file that exists but
// cannot be read errs towards "configured" (a needless switch costs an upload; a missed one can publish
// a stale entry).

import { readdirSync, readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { parseUpstream } from '../remote-gate/upstream-url.js';
import { pnpmHasAuthFor } from './pnpm-pipeline/npmrc-auth.js';
import type { GateProtocol } from '../remote-gate/types.js';
import type { RunnerName } from './types.js';

type Env = Readonly<Record<string, string | undefined>>;

export type RemoteDetection =
  | { readonly state: 'none'; readonly runner: RunnerName }
  | {
      readonly state: 'gateable';
      readonly runner: Exclude<RunnerName, 'none'>;
      readonly protocol: GateProtocol;
      /** The upstream URL the runner would reach (no credentials, no query: checked). */
      readonly upstream: string;
      /** Where it was configured, for the report: `TURBO_API`, `--api`, `.turbo/config.json`, ... */
      readonly source: string;
      /** turbo: the remote was named by `--api` in the runner's own argv (the gate must rewrite it). */
      readonly apiFlag?: boolean;
    }
  | { readonly state: 'ungateable'; readonly runner: Exclude<RunnerName, 'none'>; readonly why: string };

export const TURBO_DEFAULT_API = 'https://vercel.com/api';

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
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

function field(object: Record<string, unknown> | 'absent' | 'unreadable', ...names: string[]): string | undefined {
  if (typeof object !== 'object') return undefined;
  for (const name of names) {
    const value = object[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** The value of `--name value` / `--name=value` before a `--` in the runner's argv. */
export function flagValue(argv: readonly string[], name: string): string | undefined {
  const end = argv.indexOf('--');
  const words = end === -1 ? argv : argv.slice(0, end);
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? '';
    if (word === name) return words[i + 1];
    if (word.startsWith(`${name}=`)) return word.slice(name.length + 1);
  }
  return undefined;
}

/** Does a proxy variable cover this URL's host (so the runner would go through it)? Returns its name. */
export function proxyFor(url: string, env: Env): string | undefined {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const noProxy = (env['NO_PROXY'] ?? env['no_proxy'] ?? '')
    .split(/[\s,]+/)
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  const excluded = noProxy.some((entry) => entry === '*' || host === entry.replace(/^\./, '').replace(/:\d+$/, '') || host.endsWith(entry.startsWith('.') ? entry : `.${entry}`));
  if (excluded) return undefined;
  const names = parsed.protocol === 'https:' ? ['HTTPS_PROXY', 'https_proxy', 'ALL_PROXY', 'all_proxy'] : ['HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy'];
  return names.find((name) => set(env, name));
}

function judgeUpstream(runner: Exclude<RunnerName, 'none'>, protocol: GateProtocol, url: string, source: string, env: Env, extra: { apiFlag?: boolean } = {}): RemoteDetection {
  const parsed = parseUpstream(url);
  if (typeof parsed === 'string') {
    const what = { 'not-a-url': 'is not a URL', scheme: 'is not http or https', 'credentials-in-url': 'carries credentials', 'query-in-url': 'carries a query' }[parsed];
    return { state: 'ungateable', runner, why: `the remote set by ${source} ${what}` };
  }
  const proxy = proxyFor(url, env);
  if (proxy !== undefined) return { state: 'ungateable', runner, why: `the remote is reached through a proxy (${proxy}), which the gate does not speak` };
  return { state: 'gateable', runner, protocol, upstream: url, source, ...(extra.apiFlag === true ? { apiFlag: true } : {}) };
}

function detectTurbo(root: string, env: Env, argv: readonly string[]): RemoteDetection {
  const turboJson = readJson(join(root, 'turbo.json'));
  const turboJsonc = turboJson === 'absent' ? readJson(join(root, 'turbo.jsonc')) : turboJson;
  const remoteCache = typeof turboJsonc === 'object' ? (turboJsonc['remoteCache'] as Record<string, unknown> | undefined) : undefined;
  if (remoteCache !== undefined && typeof remoteCache === 'object' && remoteCache['enabled'] === false) return { state: 'none', runner: 'turbo' };
  const local = readJson(join(root, '.turbo', 'config.json'));
  const configDir = set(env, 'TURBO_CONFIG_DIR_PATH') ? (env['TURBO_CONFIG_DIR_PATH'] as string) : join(set(env, 'XDG_CONFIG_HOME') ? (env['XDG_CONFIG_HOME'] as string) : join(env['HOME'] ?? homedir(), '.config'), 'turborepo');
  const user = readJson(join(configDir, 'config.json'));
  const remoteObject = remoteCache !== undefined && typeof remoteCache === 'object' ? remoteCache : 'absent';
  const configured =
    ['--api', '--token', '--team'].some((name) => flagValue(argv, name) !== undefined) ||
    ['TURBO_TOKEN', 'TURBO_TEAM', 'TURBO_TEAMID', 'TURBO_API'].some((name) => set(env, name)) ||
    local === 'unreadable' ||
    user === 'unreadable' ||
    field(local, 'teamId', 'teamid', 'teamSlug', 'teamslug', 'apiUrl', 'apiurl', 'token') !== undefined ||
    field(user, 'token') !== undefined ||
    field(remoteObject, 'teamId', 'teamSlug', 'apiUrl') !== undefined;
  if (!configured) return { state: 'none', runner: 'turbo' };
  if (local === 'unreadable') return { state: 'ungateable', runner: 'turbo', why: '.turbo/config.json cannot be read, so the remote it names is unknown' };
  if (user === 'unreadable') return { state: 'ungateable', runner: 'turbo', why: "turbo's user config cannot be read, so the remote it names is unknown" };
  const fromFlag = flagValue(argv, '--api');
  if (fromFlag !== undefined) return judgeUpstream('turbo', 'turbo-v8', fromFlag, '--api', env, { apiFlag: true });
  const candidates: [string | undefined, string][] = [
    [env['TURBO_API'] === '' ? undefined : env['TURBO_API'], 'TURBO_API'],
    [field(local, 'apiUrl', 'apiurl'), '.turbo/config.json'],
    [field(user, 'apiUrl', 'apiurl'), "turbo's user config"],
    [field(remoteObject, 'apiUrl'), 'turbo.json remoteCache.apiUrl'],
  ];
  const found = candidates.find(([value]) => value !== undefined);
  return found === undefined ? judgeUpstream('turbo', 'turbo-v8', TURBO_DEFAULT_API, "turbo's default remote (Vercel)", env) : judgeUpstream('turbo', 'turbo-v8', found[0] as string, found[1], env);
}

const NX_CACHE_PLUGINS = ['s3', 'shared-fs', 'gcs', 'azure'].flatMap((name) => [`@nx/${name}-cache`, `@nx/powerpack-${name}-cache`]);

/** The folders `require.resolve(name, { paths: [root] })` looks in: every node_modules from root up, then Node's global folders. */
function lookupFolders(root: string): string[] {
  const folders: string[] = [];
  for (let dir = root; ; dir = dirname(dir)) {
    if (basename(dir) !== 'node_modules') folders.push(join(dir, 'node_modules'));
    if (dirname(dir) === dir) break;
  }
  return [...folders, ...((Module as unknown as { globalPaths?: readonly string[] }).globalPaths ?? [])];
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
  const require = createRequire(join(root, 'package.json'));
  return NX_CACHE_PLUGINS.find((name) => {
    try {
      require.resolve(name, { paths: [root] });
      return true;
    } catch {
      return false;
    }
  });
}

function detectNx(root: string, env: Env, argv: readonly string[]): RemoteDetection {
  const nxJson = readJson(join(root, 'nx.json'));
  if (env['NX_SKIP_REMOTE_CACHE'] === 'true' || argv.includes('--skipRemoteCache') || argv.includes('--skip-remote-cache')) return { state: 'none', runner: 'nx' };
  if (nxJson === 'unreadable') return { state: 'ungateable', runner: 'nx', why: 'nx.json cannot be read, so its remote cache is unknown' };
  const object = typeof nxJson === 'object' ? nxJson : {};
  const cloudOff = env['NX_NO_CLOUD'] === 'true' || object['neverConnectToCloud'] === true;
  const runners = Object.values((object['tasksRunnerOptions'] as Record<string, { runner?: unknown }> | undefined) ?? {}).map((entry) => (typeof entry?.runner === 'string' ? entry.runner : ''));
  const cloud =
    ['NX_CLOUD_ACCESS_TOKEN', 'NX_CLOUD_AUTH_TOKEN', 'NX_CLOUD_ID'].some((name) => set(env, name)) ||
    object['nxCloudId'] !== undefined ||
    object['nxCloudAccessToken'] !== undefined ||
    runners.some((runner) => runner === 'nx-cloud' || runner === '@nrwl/nx-cloud');
  if (cloud && !cloudOff) return { state: 'ungateable', runner: 'nx', why: "Nx Cloud is reached from inside nx's own process" };
  const custom = runners.find((runner) => runner !== '' && runner !== 'nx/tasks-runners/default' && runner !== 'nx-cloud' && runner !== '@nrwl/nx-cloud');
  if (custom !== undefined) return { state: 'ungateable', runner: 'nx', why: `the tasks runner ${custom} reaches its cache from inside nx's own process` };
  const plugin = nxPluginInstalled(root);
  if (plugin !== undefined) return { state: 'ungateable', runner: 'nx', why: `${plugin} is installed and reaches its cache from inside nx's own process` };
  const server = env['NX_SELF_HOSTED_REMOTE_CACHE_SERVER'];
  if (server === undefined || server === '') return { state: 'none', runner: 'nx' };
  return judgeUpstream('nx', 'nx-v1', server, 'NX_SELF_HOSTED_REMOTE_CACHE_SERVER', env);
}

function detectPipeline(root: string, env: Env): RemoteDetection {
  const url = env['PNPM_REMOTE_CACHE_URL'];
  if (url === undefined || url === '' || !set(env, 'PNPM_REMOTE_CACHE_TRUSTED_KEYS')) return { state: 'none', runner: 'pnpm-pipeline' };
  let credential = false;
  try {
    credential = pnpmHasAuthFor(url, root, env);
  } catch {
    credential = true;
  }
  if (credential) return { state: 'ungateable', runner: 'pnpm-pipeline', why: "pnpm finds its token for the remote by the remote's address, which the gate cannot stand in for" };
  return judgeUpstream('pnpm-pipeline', 'pnpm-pipeline-v8', url, 'PNPM_REMOTE_CACHE_URL', env);
}

/** The remote this runner would reach from `root` with `env` and its own `argv` (the runner's words). */
export function detectRemote(runner: RunnerName, root: string, env: Env, argv: readonly string[] = []): RemoteDetection {
  switch (runner) {
    case 'turbo':
      return detectTurbo(root, env, argv);
    case 'nx':
      return detectNx(root, env, argv);
    case 'pnpm-pipeline':
      return detectPipeline(root, env);
    case 'none':
      return { state: 'none', runner };
  }
}
