// The `yarn plugin import <path>` line lockguard prints (init, doctor): the path of lockguard's own bundled
// plugin as this install of lockguard holds it, never a guess at `./node_modules/lockguard/...`.
//
// Owns: `yarnPluginImportLine(root)`. Under PnP there is no node_modules: lockguard's package.json sets
// `preferUnplugged: true`, so yarn unplugs it into `.yarn/unplugged/lockguard-npm-<version>-<hash>/node_modules/
// lockguard/` and the plugin is a plain file there, the one the running CLI sits next to (found by
// `yarnPluginPath`). A path inside the workspace is printed relative to it (`./...`), one outside (a global
// install, npx's cache) absolute; one inside a zip (lockguard packed, not unplugged: an older lockguard, or
// `preferUnplugged` overridden by `dependenciesMeta`) cannot be read by `yarn plugin import`, so the line
// says to unplug it first. Invariants: pure but for `yarnPluginPath`'s existence checks; never throws.

import { isAbsolute, relative, sep } from 'node:path';
import { yarnPluginPath } from '../package-managers/yarn/plugin-path.js';

/** The command that imports lockguard's plugin into the yarn workspace at `root`, as a user types it. */
export function yarnPluginImportLine(root: string, plugin: string | undefined = yarnPluginPath()): string {
  if (plugin === undefined || /\.zip[\\/]/.test(plugin))
    return 'yarn unplug lockguard && yarn plugin import "$(yarn node -p \'require.resolve("lockguard/yarn-plugin")\')"';
  const fromRoot = relative(root, plugin);
  const inside = fromRoot !== '' && !fromRoot.startsWith('..') && !isAbsolute(fromRoot);
  const path = inside ? `./${fromRoot.split(sep).join('/')}` : plugin;
  return `yarn plugin import ${/[\s"'$`\\]/.test(path) ? JSON.stringify(path) : path}`;
}
