// What every runner's remote detection shares: the detection's shape and the judgement of an upstream URL.
//
// Owns: `RemoteDetection` (none | gateable, with the upstream and where it was set | ungateable, why),
// `judgeUpstream` (plain http(s) without credentials or a query, and no proxy variable covering its host:
// the runner would go through the proxy, which the gate does not speak), and the small readers the
// runners' detections use (JSON config files, `--flag value` before `--`, set env values).
// Invariants: reads only what it is given or the one file named; never returns or echoes a token or an
// env value other than the upstream URL itself (which was refused if it held credentials); a config file
// that exists but cannot be read is 'unreadable', never an error.

import type { Env } from '../../core/env.js';
import { parseUpstream } from '../remote-gate/upstream-url.js';
import type { GateProtocol } from '../remote-gate/types.js';
import type { RunnerName } from './types.js';
import { readConfigText } from '../../core/bounded-read.js';

type GuardedRunner = Exclude<RunnerName, 'none'>;

export type RemoteDetection =
  | { readonly state: 'none'; readonly runner: RunnerName }
  | {
      readonly state: 'gateable';
      readonly runner: GuardedRunner;
      readonly protocol: GateProtocol;
      /** The upstream URL the runner would reach (no credentials, no query: checked). */
      readonly upstream: string;
      /** Where it was configured, for the report: `TURBO_API`, `--api`, `.turbo/config.json`, ... */
      readonly source: string;
      /** turbo: the remote was named by `--api` in the runner's own argv (the gate must rewrite it). */
      readonly apiFlag?: boolean;
    }
  | { readonly state: 'ungateable'; readonly runner: GuardedRunner; readonly why: string };

/** A set, non-empty env value. */
export function isSet(env: Env, name: string): boolean {
  const value = env[name];
  return value !== undefined && value !== '';
}

/** A JSON object file (whole-line `//` comments allowed): the object, 'absent', or 'unreadable'. */
export function readJson(path: string): Record<string, unknown> | 'absent' | 'unreadable' {
  let text: string | undefined;
  try {
    text = readConfigText(path);
  } catch {
    return 'unreadable';
  }
  if (text === undefined) return 'absent';
  try {
    const value: unknown = JSON.parse(text.replace(/^\s*\/\/.*$/gm, ''));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** The first of `names` that is a non-empty string in `object`. */
export function field(
  object: Record<string, unknown> | 'absent' | 'unreadable',
  ...names: string[]
): string | undefined {
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
function proxyFor(url: string, env: Env): string | undefined {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const noProxy = (env['NO_PROXY'] ?? env['no_proxy'] ?? '')
    .split(/[\s,]+/)
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  const excluded = noProxy.some(
    (entry) =>
      entry === '*' ||
      host === entry.replace(/^\./, '').replace(/:\d+$/, '') ||
      host.endsWith(entry.startsWith('.') ? entry : `.${entry}`),
  );
  if (excluded) return undefined;
  const names =
    parsed.protocol === 'https:'
      ? ['HTTPS_PROXY', 'https_proxy', 'ALL_PROXY', 'all_proxy']
      : ['HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy'];
  return names.find((name) => isSet(env, name));
}

/** The detection for an upstream `url` set by `source`: gateable, or ungateable with why. */
export function judgeUpstream(
  runner: GuardedRunner,
  protocol: GateProtocol,
  url: string,
  source: string,
  env: Env,
  extra: { apiFlag?: boolean } = {},
): RemoteDetection {
  const parsed = parseUpstream(url);
  if (typeof parsed === 'string') {
    const what = {
      'not-a-url': 'is not a URL',
      scheme: 'is not http or https',
      'credentials-in-url': 'carries credentials',
      'query-in-url': 'carries a query',
    }[parsed];
    return { state: 'ungateable', runner, why: `the remote set by ${source} ${what}` };
  }
  const proxy = proxyFor(url, env);
  if (proxy !== undefined)
    return {
      state: 'ungateable',
      runner,
      why: `the remote is reached through a proxy (${proxy}), which the gate does not speak`,
    };
  return {
    state: 'gateable',
    runner,
    protocol,
    upstream: url,
    source,
    ...(extra.apiFlag === true ? { apiFlag: true } : {}),
  };
}
