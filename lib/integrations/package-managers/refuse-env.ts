// What the environment alone can refuse at the source, per package manager, for `--policy refuse`.
//
// Owns: the settings a refusing run puts into its child's environment, so an install inside the run that
// would rewrite the lockfile fails before it writes, with no pnpmfile or hook committed to the repository.
// Measured (pnpm 12.4.2): `pnpm_config_frozen_lockfile=true` refuses `pnpm install` after a manifest edit
// (rc 1, lockfile untouched) but not `pnpm add` (rc 0, rewritten); `pnpm_config_verify_deps_before_run=error`
// refuses the install before `pnpm run`/`exec`. pnpm 12 ignores `npm_config_frozen_lockfile`; pnpm 10 reads
// `npm_config_*`. Inside a turbo task in strict env mode the `pnpm_config_*` settings do not arrive (turbo
// strips them), so there the pnpmfile (pnpm 10) or `globalPassThroughEnv` is what holds.
// Invariants: pure; values only, no secrets; an empty record where nothing in the environment holds.

import type { Manager } from './tables.js';

export function refuseEnv(manager: Manager): Readonly<Record<string, string>> {
  switch (manager) {
    case 'pnpm':
      return {
        pnpm_config_frozen_lockfile: 'true',
        pnpm_config_verify_deps_before_run: 'error',
        npm_config_frozen_lockfile: 'true',
        npm_config_verify_deps_before_run: 'error',
      };
    case 'npm':
    case 'yarn':
    case 'bun':
      return {};
  }
}
