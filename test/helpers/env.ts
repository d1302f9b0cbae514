// The one environment every subprocess of a test gets.
//
// Owns: the pinned npm first on PATH (NPM_BIN), lockguard's code cache off (LOCKGUARD_CODE_CACHE), which of the developer's variables a test never inherits (`scrubbedEnv`: CI, GITHUB_*, LOCKGUARD_*,
// npm_*/pnpm_* settings, YARN_*, BUN_*, COREPACK_*, TURBO_*, NX_*, NODE_OPTIONS, colour switches), and the
// isolated environment (`isolatedEnv`): HOME and XDG_* under a temp dir, no telemetry or update checks, and
// (by default) every package manager's cache, store and global folder under it too, offline, with an
// unreachable registry.
// Invariants: nothing here writes outside the folders it is given; no value of the developer's environment
// but PATH and the system's own (LANG, TMPDIR, ...) reaches a test's subprocess.

import { mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm` and `npx` of the npm pinned in devDependencies (links into node_modules/npm, committed in
 * test/npm-bin/): first on every test subprocess's PATH, so a test never runs the machine's npm, whatever
 * version that is (a machine whose npm upgrade failed has npm 10).
 */
export const NPM_BIN = fileURLToPath(new URL('../../../test/npm-bin', import.meta.url));

/** Variables a subprocess test must not inherit: each would change lockguard's or a tool's behaviour. */
const NEVER_INHERITED =
  /^(CI|GITHUB_.*|LOCKGUARD_.*|npm_.*|NPM_.*|PNPM_.*|pnpm_.*|YARN_.*|BUN_.*|COREPACK_.*|TURBO_.*|NX_.*|NODE_OPTIONS|FORCE_COLOR|NO_COLOR)$/i;

/** This process's environment without what a test must not inherit, plus `extra`. */
export function scrubbedEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || NEVER_INHERITED.test(name)) continue;
    env[name] = value;
  }
  env['PATH'] = [NPM_BIN, env['PATH'] ?? ''].join(delimiter);
  // lockguard's code cache (lib/cli/code-cache.ts) off: it would write under the developer's HOME where a test
  // keeps it, and every test would pay a first run's write. test/cli/code-cache.test.ts turns it on.
  env['LOCKGUARD_CODE_CACHE'] = 'off';
  return { ...env, ...extra };
}

/** A registry address nothing listens on: a tool that tries the network fails at once instead of fetching. */
export const DEAD_REGISTRY = 'http://127.0.0.1:9/';

/** HOME and the XDG folders under it, created. */
export function homeEnv(home: string): Record<string, string> {
  const dirs = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  return dirs;
}

/** No telemetry, no update checks, no nx daemon or cloud: set for every tool, whatever the settings mode. */
const QUIET: Readonly<Record<string, string>> = {
  DO_NOT_TRACK: '1',
  TURBO_TELEMETRY_DISABLED: '1',
  TURBO_NO_UPDATE_NOTIFIER: '1',
  NX_DAEMON: 'false',
  NX_NO_CLOUD: 'true',
};

export interface IsolatedEnvOptions {
  /** HOME (XDG_* go under it). Default: `<tmp>/home`. */
  readonly home?: string;
  /** The pnpm store; share one per test file to keep installs cheap. Default: `<tmp>/store`. */
  readonly storeDir?: string;
  /**
   * Where the package managers' settings come from. `env` (default): npm_config_* / pnpm_config_* (cache,
   * store, offline, the dead registry, no audit/fund/update checks), YARN_* and BUN_* folders under `tmp`.
   * `home`: none of those; every tool finds its folders under HOME. For workspaces whose installs also run
   * inside turbo tasks: turbo's strict env mode strips those variables, and a store chosen by env outside a
   * task and by default inside it would not be the same store.
   */
  readonly settings?: 'env' | 'home';
  /**
   * With `env` settings: offline, with the dead registry for npm, pnpm and bun (default). false leaves the
   * registry reachable: pnpm 12 resolves the `packageManager` it is pinned to before it installs.
   */
  readonly offline?: boolean;
  /** Folders put before PATH. */
  readonly path?: readonly string[];
  /** Set last: they win over everything above. */
  readonly extra?: Record<string, string>;
}

/** scrubbedEnv() with everything a tool reads from the user moved under `tmp` (see IsolatedEnvOptions). */
export function isolatedEnv(tmp: string, options: IsolatedEnvOptions = {}): Record<string, string> {
  const env: Record<string, string> = { ...scrubbedEnv(), ...homeEnv(options.home ?? join(tmp, 'home')), ...QUIET };
  if ((options.settings ?? 'env') === 'env')
    Object.assign(env, packageManagerSettings(tmp, options.storeDir ?? join(tmp, 'store'), options.offline ?? true));
  if (options.path !== undefined && options.path.length > 0)
    env['PATH'] = [...options.path, process.env['PATH'] ?? ''].join(delimiter);
  return { ...env, ...options.extra };
}

function packageManagerSettings(tmp: string, storeDir: string, offline: boolean): Record<string, string> {
  const settings: Record<string, string> = {
    cache: join(tmp, 'npm-cache'),
    store_dir: storeDir,
    ...(offline ? { offline: 'true', registry: DEAD_REGISTRY } : {}),
    audit: 'false',
    fund: 'false',
    update_notifier: 'false',
    loglevel: 'warn',
  };
  const env: Record<string, string> = {
    // yarn berry: its global folder and cache in the temp dir, no network, no telemetry, plain output;
    // yarn 1 reads YARN_CACHE_FOLDER too. bun: its cache and home in the temp dir, a dead registry.
    YARN_GLOBAL_FOLDER: join(tmp, 'yarn-global'),
    YARN_CACHE_FOLDER: join(tmp, 'yarn-cache'),
    YARN_ENABLE_GLOBAL_CACHE: 'false',
    YARN_ENABLE_NETWORK: 'false',
    YARN_ENABLE_TELEMETRY: 'false',
    YARN_ENABLE_PROGRESS_BARS: 'false',
    YARN_ENABLE_COLORS: 'false',
    BUN_INSTALL: join(tmp, 'bun-home'),
    BUN_INSTALL_CACHE_DIR: join(tmp, 'bun-cache'),
    ...(offline ? { BUN_CONFIG_REGISTRY: DEAD_REGISTRY } : {}),
  };
  // npm and pnpm 10 read npm_config_*; pnpm 12 reads pnpm_config_*.
  for (const [name, value] of Object.entries(settings)) {
    env[`npm_config_${name}`] = value;
    env[`pnpm_config_${name}`] = value;
  }
  return env;
}
