// What a refusing run (`lockguard run --policy refuse`) adds to its child's environment, per package
// manager, so installs inside the run fail at the source instead of rewriting the lockfile, with no pnpmfile
// or hook committed to the repository.
//
// Owns: `refuseEnv(manager, env)`: pure (no file-system access but finding lockguard's own yarn plugin file,
// and only for yarn). Measured:
// - pnpm 12.4.2: `pnpm_config_frozen_lockfile=true` refuses `pnpm install` after a manifest edit (rc 1,
//   lockfile untouched) but not `pnpm add` (rc 0, rewritten); `pnpm_config_verify_deps_before_run=error`
//   refuses the install before `pnpm run`/`exec`. pnpm 12 ignores `npm_config_frozen_lockfile`; pnpm 10 reads
//   `npm_config_*`, so both spellings are set.
// - yarn berry (4.18.1): `YARN_ENABLE_IMMUTABLE_INSTALLS=true` stops `yarn install` (and bare `yarn`) when
//   the lockfile would change (YN0028, rc 1, nothing written), but `add`, `remove`, `up` ignore it (rc 0,
//   yarn.lock rewritten). `YARN_PLUGINS=<lockguard's plugin>` (appended to the user's own, `;`-separated;
//   the .yarnrc.yml plugins still load) refuses every other install-running command in the plugin's
//   `validateProject` hook, before anything is written.
// - yarn v1 (1.22.22): nothing holds: no setting stops `add`, and `--frozen-lockfile` (a flag or .yarnrc
//   only, no env) lets a workspace install change node_modules without failing. Empty.
// - bun (1.4.5): no env setting freezes the lockfile (`install.frozenLockfile` is bunfig.toml only). Empty.
// - npm: nothing refuses before npm writes (its root scripts run after it). Empty.
// - Inside turbo's default strict env mode `pnpm_config_frozen_lockfile`, YARN_*, BUN_* and XDG_* do not
//   reach a task (turbo strips them): there the run fails after the rewrite and withholds.
// Invariants: never removes or overrides a setting the user made stricter; values are never logged.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Env } from '../../core/env.js';
import type { Manager } from './tables.js';

/** The file name of the bundled yarn plugin (dist/yarn-plugin.cjs, next to the CLI bundle). */
export const YARN_PLUGIN_FILE = 'yarn-plugin.cjs';

/** How many folders up from this module the bundled plugin may be (the bundle, or dist/lib/integrations/...). */
const PLUGIN_SEARCH_DEPTH = 6;

/** The absolute path of lockguard's yarn plugin, or undefined when this install has none (not built). */
export function yarnPluginPath(from: string = fileURLToPath(import.meta.url)): string | undefined {
  for (let dir = dirname(from), depth = 0; depth < PLUGIN_SEARCH_DEPTH; dir = dirname(dir), depth++) {
    const candidate = join(dir, YARN_PLUGIN_FILE);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) break;
  }
  return undefined;
}

export interface RefuseEnvOptions {
  /** The yarn plugin's path (default: found next to lockguard's own files). */
  readonly yarnPlugin?: string | undefined;
}

/**
 * The variables to add to a refusing run's child env for `manager` (empty where nothing holds). Pass the
 * caller's env so a YARN_PLUGINS the user set is kept (lockguard's plugin is appended to it).
 */
export function refuseEnv(manager: Manager, env: Env = {}, options: RefuseEnvOptions = {}): Record<string, string> {
  switch (manager) {
    case 'pnpm':
      return {
        pnpm_config_frozen_lockfile: 'true',
        pnpm_config_verify_deps_before_run: 'error',
        npm_config_frozen_lockfile: 'true',
        npm_config_verify_deps_before_run: 'error',
      };
    case 'yarn': {
      const out: Record<string, string> = { YARN_ENABLE_IMMUTABLE_INSTALLS: 'true' };
      const plugin = 'yarnPlugin' in options ? options.yarnPlugin : yarnPluginPath();
      if (plugin !== undefined) {
        const own = env['YARN_PLUGINS'];
        const listed = own === undefined || own === '' ? [] : own.split(';');
        out['YARN_PLUGINS'] = listed.includes(plugin) ? (own as string) : [...listed, plugin].join(';');
      }
      return out;
    }
    case 'npm':
    case 'bun':
      return {};
  }
}
