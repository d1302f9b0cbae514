// Does pnpm hold a credential for a URL? (pnpm 12.21's pipeline remote takes its token from the npmrc
// settings keyed by the remote's address, `//host:port/path/:_authToken`.)
//
// Owns: a presence check over the places pnpm reads (`pnpm_config_*` env, the project's `.npmrc`, pnpm's
// global rc, the user's `.npmrc`), for the URL's address and every parent path of it.
// Why it matters: pointed at the gate, pnpm looks for a token under the gate's address and finds none, so
// it would send no auth. Handing the token over under the gate's address (an env setting named
// `pnpm_config_//127.0.0.1:<port>/:_authToken`) works for pnpm itself, but a POSIX `sh` between lockguard
// and pnpm (a root script, `sh -c`) drops such a name from the env (dash, measured): the remote would then
// answer 401 to every request, worse than no gate. So a pipeline remote with a credential is not gated.
// Invariants: returns presence only; never returns, logs or keeps a value.

import type { Env } from '../../../core/env.js';
import { nodeOs } from '../../../core/lazy-builtins.js';
import { join } from 'node:path';
import { readConfigText } from '../../../core/bounded-read.js';

/** `//host[:port]/path/` npmrc keys that cover `url`, longest first. */
function npmrcPrefixes(url: URL): string[] {
  const hosts = [url.host, url.hostname];
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  const out: string[] = [];
  for (let n = segments.length; n >= 0; n--) {
    const path = segments.slice(0, n).join('/');
    for (const host of hosts) out.push(`//${host}/${path === '' ? '' : `${path}/`}`);
  }
  return out;
}

function rcLines(path: string): Map<string, string> {
  const values = new Map<string, string>();
  let text: string;
  try {
    text = readConfigText(path) ?? '';
  } catch {
    return values;
  }
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*([^#;=\s][^=]*?)\s*=\s*(.*?)\s*$/.exec(line);
    if (match !== null) values.set(match[1] ?? '', match[2] ?? '');
  }
  return values;
}

/** The `_authToken` pnpm would send to `upstream`, from its env or rc files (literal values only). */
function authValue(upstream: string, root: string, env: Env): string | undefined {
  const prefixes = npmrcPrefixes(new URL(upstream));
  const home = env['HOME'] ?? nodeOs().homedir();
  const configHome =
    env['XDG_CONFIG_HOME'] !== undefined && env['XDG_CONFIG_HOME'] !== ''
      ? env['XDG_CONFIG_HOME']
      : join(home, '.config');
  // Highest precedence first: env, the project's .npmrc, pnpm's global rc, the user's .npmrc.
  const sources = [
    new Map(
      Object.entries(env).flatMap(([name, value]) =>
        name.startsWith('pnpm_config_') && value !== undefined ? [[name.slice('pnpm_config_'.length), value]] : [],
      ),
    ),
    rcLines(join(root, '.npmrc')),
    rcLines(join(configHome, 'pnpm', 'rc')),
    rcLines(join(home, '.npmrc')),
  ];
  for (const prefix of prefixes) {
    for (const values of sources) {
      for (const name of [':_authToken', ':_auth', ':_password']) {
        const value = values.get(`${prefix}${name}`);
        if (value !== undefined && value !== '') return value;
      }
    }
  }
  return undefined;
}

/** True when pnpm would find a credential for `url` (any value, expanded or not). */
export function pnpmHasAuthFor(url: string, root: string, env: Env): boolean {
  return authValue(url, root, env) !== undefined;
}
