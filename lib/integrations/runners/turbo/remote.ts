// turbo 2.11's remote cache: where turbo reads it from, how the gate is put in front of it, and turbo's
// own switch where no gate can stand.
//
// Owns:
// - detection: `--api/--token/--team` in the runner's argv, `TURBO_API`/`TURBO_TOKEN`/`TURBO_TEAM`/
//   `TURBO_TEAMID`, `.turbo/config.json` (apiUrl, teamId, teamSlug, token), the `turbo login` user config
//   (`$TURBO_CONFIG_DIR_PATH` or `$XDG_CONFIG_HOME/turborepo/config.json`: token, apiUrl), turbo.json
//   `remoteCache` (apiUrl, teamId, teamSlug; `enabled: false` turns it off). Precedence as turbo's own:
//   flags > env > .turbo/config.json > user config > turbo.json > `https://vercel.com/api`.
// - pointing: `TURBO_API=<gate>` (its token and team stay as the user set them; a `--api` in the runner's
//   own argv is rewritten, since a flag beats the env). turbo's strict env mode filters the env of turbo's
//   *tasks*; turbo itself reads TURBO_API from its own env, which is the one set here.
// - the switch: `TURBO_CACHE=local:rw,remote:r` keeps remote reads and local writes and stops uploads.
//   Cost: nothing the run builds reaches teammates/CI until a run without a writer. An env var rather than
//   `--cache=…`, so `npx turbo`/`pnpm turbo` wrappers need no argv surgery; a `--cache` flag the user
//   passed wins over it (said in the note). A user's own TURBO_CACHE keeps its local part.
// Invariants: reads config files, never writes; never echoes a token, nor a TURBO_CACHE value without
// turbo's shape; no credential is read, moved or added.

import { nodeOs } from '../../../core/lazy-builtins.js';
import { join } from 'node:path';
import type { Env, Pointed } from '../adapter.js';
import { field, flagValue, isSet, judgeUpstream, readJson, type RemoteDetection } from '../remote-upstream.js';
import type { RemotePlan } from '../types.js';

export const TURBO_DEFAULT_API = 'https://vercel.com/api';

type Gateable = Extract<RemoteDetection, { state: 'gateable' }>;

/** The remote turbo would reach from `root`. */
export function detectTurbo(root: string, env: Env, argv: readonly string[]): RemoteDetection {
  const turboJson = readJson(join(root, 'turbo.json'));
  const turboJsonc = turboJson === 'absent' ? readJson(join(root, 'turbo.jsonc')) : turboJson;
  const remoteCache =
    typeof turboJsonc === 'object' ? (turboJsonc['remoteCache'] as Record<string, unknown> | undefined) : undefined;
  if (remoteCache !== undefined && typeof remoteCache === 'object' && remoteCache['enabled'] === false)
    return { state: 'none', runner: 'turbo' };
  const local = readJson(join(root, '.turbo', 'config.json'));
  const configDir = isSet(env, 'TURBO_CONFIG_DIR_PATH')
    ? (env['TURBO_CONFIG_DIR_PATH'] as string)
    : join(
        isSet(env, 'XDG_CONFIG_HOME')
          ? (env['XDG_CONFIG_HOME'] as string)
          : join(env['HOME'] ?? nodeOs().homedir(), '.config'),
        'turborepo',
      );
  const user = readJson(join(configDir, 'config.json'));
  const remoteObject = remoteCache !== undefined && typeof remoteCache === 'object' ? remoteCache : 'absent';
  const configured =
    ['--api', '--token', '--team'].some((name) => flagValue(argv, name) !== undefined) ||
    ['TURBO_TOKEN', 'TURBO_TEAM', 'TURBO_TEAMID', 'TURBO_API'].some((name) => isSet(env, name)) ||
    local === 'unreadable' ||
    user === 'unreadable' ||
    field(local, 'teamId', 'teamid', 'teamSlug', 'teamslug', 'apiUrl', 'apiurl', 'token') !== undefined ||
    field(user, 'token') !== undefined ||
    field(remoteObject, 'teamId', 'teamSlug', 'apiUrl') !== undefined;
  if (!configured) return { state: 'none', runner: 'turbo' };
  if (local === 'unreadable')
    return {
      state: 'ungateable',
      runner: 'turbo',
      why: '.turbo/config.json cannot be read, so the remote it names is unknown',
    };
  if (user === 'unreadable')
    return {
      state: 'ungateable',
      runner: 'turbo',
      why: "turbo's user config cannot be read, so the remote it names is unknown",
    };
  const fromFlag = flagValue(argv, '--api');
  if (fromFlag !== undefined) return judgeUpstream('turbo', 'turbo-v8', fromFlag, '--api', env, { apiFlag: true });
  const candidates: [string | undefined, string][] = [
    [env['TURBO_API'] === '' ? undefined : env['TURBO_API'], 'TURBO_API'],
    [field(local, 'apiUrl', 'apiurl'), '.turbo/config.json'],
    [field(user, 'apiUrl', 'apiurl'), "turbo's user config"],
    [field(remoteObject, 'apiUrl'), 'turbo.json remoteCache.apiUrl'],
  ];
  const found = candidates.find(([value]) => value !== undefined);
  return found === undefined
    ? judgeUpstream('turbo', 'turbo-v8', TURBO_DEFAULT_API, "turbo's default remote (Vercel)", env)
    : judgeUpstream('turbo', 'turbo-v8', found[0] as string, found[1], env);
}

function rewriteApi(argv: readonly string[], gateUrl: string): string[] {
  const end = argv.indexOf('--');
  return argv.map((word, i) => {
    if (end !== -1 && i >= end) return word;
    if (word.startsWith('--api=')) return `--api=${gateUrl}`;
    if (i > 0 && argv[i - 1] === '--api' && (end === -1 || i < end)) return gateUrl;
    return word;
  });
}

/** turbo's env (and argv, for a `--api` of its own) pointed at the gate. */
export function pointTurboAt(detection: Gateable, gateUrl: string, argv: readonly string[]): Pointed {
  return { env: { TURBO_API: gateUrl }, argv: detection.apiFlag === true ? rewriteApi(argv, gateUrl) : [...argv] };
}

const TURBO_CACHE_SHAPE = /^(local|remote):(r|w|rw)(,(local|remote):(r|w|rw))*$/;

function hasFlag(argv: readonly string[], name: string): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((word) => word === name || word.startsWith(`${name}=`));
}

/** A TURBO_CACHE value with remote writes removed (`remote:rw` → `remote:r`, `remote:w` dropped). */
function withoutRemoteWrites(value: string, remoteOff: boolean): string {
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  const kept = parts.flatMap((part) => {
    const [where, access = ''] = part.split(':');
    if (where !== 'remote') return [part];
    if (remoteOff) return [];
    const reads = access.includes('r');
    return reads ? ['remote:r'] : [];
  });
  return kept.length === 0 ? 'local:rw' : kept.join(',');
}

/** Remote writes off through `TURBO_CACHE` (remote reads kept under auto). */
export function turboWritesOff(
  mode: 'auto' | 'off',
  why: string,
  context: { readonly argv?: readonly string[]; readonly env?: Env },
): RemotePlan {
  const own = context.env?.['TURBO_CACHE'];
  // A user's own TURBO_CACHE is kept (minus remote writes) only when it has turbo's shape; otherwise
  // it is replaced, and never echoed.
  const usable = own !== undefined && TURBO_CACHE_SHAPE.test(own);
  const value = usable ? withoutRemoteWrites(own, mode === 'off') : mode === 'off' ? 'local:rw' : 'local:rw,remote:r';
  const flagNote = hasFlag(context.argv ?? [], '--cache') ? ' (your --cache flag takes precedence over it)' : '';
  const what = mode === 'off' ? 'remote cache off' : 'remote cache read-only';
  return {
    argv: [],
    env: { TURBO_CACHE: value },
    note: `[lockguard] turbo ${what} for this run (TURBO_CACHE=${value}): ${why}${flagNote}`,
  };
}
