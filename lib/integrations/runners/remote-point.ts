// Pointing a runner at the gate for one run: the env (and, for turbo's `--api`, the argv) of the child.
//
// Owns: turbo `TURBO_API=<gate>` (its token and team stay as the user set them; a `--api` in the runner's
// own argv is rewritten, since a flag beats the env); nx `NX_SELF_HOSTED_REMOTE_CACHE_SERVER=<gate>`;
// pnpm 12.21 pipeline `PNPM_REMOTE_CACHE_URL=<gate>` plus the user's own token for the upstream handed
// to pnpm under the gate's address (`pnpm_config_//127.0.0.1:<port>/:_authToken`): pnpm looks its token up
// by the URL's host, so without it the gate would receive no auth to forward.
// turbo's strict env mode filters the env of turbo's *tasks*; turbo itself reads TURBO_API from its own
// env, which is the one set here.
// Invariants: the token value lives only in the child's env; it is never returned elsewhere, logged or
// recorded; nothing is pointed at the gate that the detection did not find gateable.

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { RemoteDetection } from './remote-config.js';

type Env = Readonly<Record<string, string | undefined>>;
type Gateable = Extract<RemoteDetection, { state: 'gateable' }>;

export interface Pointed {
  readonly env: Readonly<Record<string, string>>;
  readonly argv: readonly string[];
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
    text = readFileSync(path, 'utf8');
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
function pipelineToken(upstream: string, root: string, env: Env): string | undefined {
  const prefixes = npmrcPrefixes(new URL(upstream));
  const home = env['HOME'] ?? homedir();
  const configHome = env['XDG_CONFIG_HOME'] !== undefined && env['XDG_CONFIG_HOME'] !== '' ? env['XDG_CONFIG_HOME'] : join(home, '.config');
  // Highest precedence first: env, the project's .npmrc, pnpm's global rc, the user's .npmrc.
  const sources = [new Map(Object.entries(env).flatMap(([name, value]) => (name.startsWith('pnpm_config_') && value !== undefined ? [[name.slice('pnpm_config_'.length), value]] : []))), rcLines(join(root, '.npmrc')), rcLines(join(configHome, 'pnpm', 'rc')), rcLines(join(home, '.npmrc'))];
  for (const prefix of prefixes) {
    for (const values of sources) {
      const value = values.get(`${prefix}:_authToken`);
      // pnpm does not expand ${VAR} in repository-controlled credentials: neither does this.
      if (value !== undefined && value !== '' && !value.includes('${')) return value;
    }
  }
  return undefined;
}

/** The child's env (and argv) that sends the runner's remote cache traffic to the gate at `gateUrl`. */
export function pointRunnerAt(detection: Gateable, gateUrl: string, argv: readonly string[], root: string, env: Env): Pointed {
  switch (detection.runner) {
    case 'turbo':
      return { env: { TURBO_API: gateUrl }, argv: detection.apiFlag === true ? rewriteApi(argv, gateUrl) : [...argv] };
    case 'nx':
      return { env: { NX_SELF_HOSTED_REMOTE_CACHE_SERVER: gateUrl }, argv: [...argv] };
    case 'pnpm-pipeline': {
      const token = pipelineToken(detection.upstream, root, env);
      const gateKey = `pnpm_config_//${new URL(gateUrl).host}/:_authToken`;
      return { env: { PNPM_REMOTE_CACHE_URL: gateUrl, ...(token === undefined ? {} : { [gateKey]: token }) }, argv: [...argv] };
    }
  }
}
