// What a refusing run (`lockguard run --policy refuse`) adds to its child's environment, per package
// manager, so installs inside the run fail at the source instead of rewriting the lockfile, with no pnpmfile
// or hook committed to the repository.
//
// Owns: `refuseEnv(manager, env)`, asked of each package manager's integration adapter (`<pm>/index.ts` holds
// what was measured of its switches). Pure but for finding lockguard's own yarn plugin file (yarn only).
// - Inside turbo's default strict env mode `pnpm_config_frozen_lockfile`, YARN_*, BUN_* and XDG_* do not
//   reach a task (turbo strips them): there the run fails after the rewrite and withholds.
// Invariants: never removes or overrides a setting the user made stricter; values are never logged.

import type { Env } from '../../core/env.js';
import type { RefuseEnvOptions } from './adapter.js';
import { integrationOf } from './registry.js';
import type { Manager } from './tables.js';

export type { RefuseEnvOptions } from './adapter.js';
export { YARN_PLUGIN_FILE, yarnPluginPath } from './yarn/plugin-path.js';

/**
 * The variables to add to a refusing run's child env for `manager` (empty where nothing holds). Pass the
 * caller's env so a YARN_PLUGINS the user set is kept (lockguard's plugin is appended to it).
 */
export function refuseEnv(manager: Manager, env: Env = {}, options: RefuseEnvOptions = {}): Record<string, string> {
  return integrationOf(manager).refuseEnv(env, options);
}
