// Where lockguard's own yarn plugin file is (dist/yarn-plugin.cjs), for the refusing run's YARN_PLUGINS and
// `init`'s import line.
//
// Owns: `YARN_PLUGIN_FILE`, `yarnPluginPath`. Invariants: a few stats from this module's own location up;
// undefined when this install has none (not built).

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The file name of the bundled yarn plugin (dist/yarn-plugin.cjs, next to the CLI bundle). */
export const YARN_PLUGIN_FILE = 'yarn-plugin.cjs';

/** How many folders up from this module the bundled plugin may be (the bundle, or dist/lib/integrations/...). */
const PLUGIN_SEARCH_DEPTH = 7;

/** The absolute path of lockguard's yarn plugin, or undefined when this install has none (not built). */
export function yarnPluginPath(from: string = fileURLToPath(import.meta.url)): string | undefined {
  for (let dir = dirname(from), depth = 0; depth < PLUGIN_SEARCH_DEPTH; dir = dirname(dir), depth++) {
    const candidate = join(dir, YARN_PLUGIN_FILE);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) break;
  }
  return undefined;
}
