// pnpm's integration half: its command line, the packages its version is read from, its frozen install and
// its refusal switches.
//
// Owns: the `PackageManagerIntegration` of pnpm (adapter.ts), listed in registry.ts. Measured (pnpm 12.4.2):
// `pnpm_config_frozen_lockfile=true` refuses `pnpm install` after a manifest edit (rc 1, lockfile untouched)
// but not `pnpm add` (rc 0, rewritten); `pnpm_config_verify_deps_before_run=error` refuses the install before
// `pnpm run`/`exec`. pnpm 12 ignores `npm_config_frozen_lockfile`; pnpm 10 reads `npm_config_*`, so both
// spellings are set. Where no pnpmfile is committed, `add` is not refused at the source.
// Invariants: values only.

import type { PackageManagerIntegration } from '../adapter.js';
import { PNPM_COMMAND_LINE } from './command-line.js';
import { PNPM_HOOKS } from './hooks.js';

export const pnpm: PackageManagerIntegration = {
  name: 'pnpm',
  commandLine: PNPM_COMMAND_LINE,
  hooks: PNPM_HOOKS,
  init: {
    hook: 'pnpmfile',
    prepareRuns: 'pnpm installs that change something run the hook from now on',
    note: () => undefined,
  },
  frozenInstall: 'pnpm install --frozen-lockfile',
  refuseEnv: () => ({
    pnpm_config_frozen_lockfile: 'true',
    pnpm_config_verify_deps_before_run: 'error',
    npm_config_frozen_lockfile: 'true',
    npm_config_verify_deps_before_run: 'error',
  }),
  refuseGap: (table) =>
    table.entries.some((entry) => entry.kind === 'pnpmfile' && entry.digest !== null) ? undefined : 'pnpm-no-pnpmfile',
};
