// What a refusing run (`lockguard run --policy refuse`) adds to its child's environment, per package
// manager, so installs inside the run fail at the source instead of rewriting the lockfile.
//
// Owns: `refuseEnv(manager, env)`: pure (no file-system access but finding lockguard's own yarn plugin
// file, and only for yarn). Measured (yarn 4.18.1, yarn 1.22.22, bun 1.4.5, turbo 2.11.11):
// - yarn berry: `YARN_ENABLE_IMMUTABLE_INSTALLS=true` stops `yarn install` (and bare `yarn`) when the
//   lockfile would change (YN0028, rc 1, nothing written), but `add`, `remove`, `up` ignore it (rc 0,
//   yarn.lock rewritten). `YARN_PLUGINS=<lockguard's plugin>` (appended to the user's own, `;`-separated;
//   the .yarnrc.yml plugins still load) refuses every other install-running command in the plugin's
//   `validateProject` hook, before anything is written.
// - yarn v1: nothing holds: no setting stops `add`, and `--frozen-lockfile` (a flag or .yarnrc only, no
//   env) lets a workspace install change node_modules without failing. Empty.
// - bun: no env setting freezes the lockfile (`install.frozenLockfile` is bunfig.toml only; a global
//   bunfig under an XDG_CONFIG_HOME of ours would hold for `add`, but redirects every tool's XDG config
//   and turbo strips XDG_*). Empty.
// - Inside turbo's default strict env mode none of these reach a task (YARN_*, BUN_*, XDG_* are stripped):
//   there the run fails after the rewrite and withholds, as for npm.
// Invariants: never removes or overrides a setting the user made stricter; values are never logged.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PackageManager } from '../../core/workspace.js';

/** The file name of the bundled yarn plugin (dist/yarn-plugin.cjs, next to the CLI bundle). */
export const YARN_PLUGIN_FILE = 'yarn-plugin.cjs';

/** The absolute path of lockguard's yarn plugin, or undefined when this install has none (not built). */
export function yarnPluginPath(from: string = fileURLToPath(import.meta.url)): string | undefined {
  // Works from the bundle (dist/lockguard.cjs) and from the module tree (dist/lib/integrations/...).
  for (let dir = dirname(from), depth = 0; depth < 6; dir = dirname(dir), depth++) {
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
export function refuseEnv(manager: PackageManager, env: Readonly<Record<string, string | undefined>> = {}, options: RefuseEnvOptions = {}): Record<string, string> {
  switch (manager) {
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
    case 'pnpm':
    case 'npm':
    case 'bun':
      return {};
  }
}
