// bun's integration half: its command line, the package its version is read from, its frozen install and
// its refusal switches (none: measured with bun 1.4.5, no env setting freezes the lockfile;
// `install.frozenLockfile` is bunfig.toml only).
//
// Owns: the `PackageManagerIntegration` of bun (adapter.ts), listed in registry.ts.
// Invariants: values only.

import type { PackageManagerIntegration } from '../adapter.js';
import { BUN_COMMAND_LINE } from './command-line.js';
import { BUN_HOOKS } from './hooks.js';

export const bun: PackageManagerIntegration = {
  name: 'bun',
  commandLine: BUN_COMMAND_LINE,
  hooks: BUN_HOOKS,
  init: {
    prepareRuns: 'bun install and bun add run the hook from now on',
    // After init added the prepare hook, "no hook file to write" read as a contradiction: said as it is.
    note: (npmScripts) =>
      npmScripts
        ? `bun has no plugin hooks: the root prepare hook above runs after bun install and bun add; other installs inside a run are caught by the table (file events and the final check).\n`
        : `This is a bun workspace: no hook file to write.\n  bun has no plugin hooks: installs inside a run are caught by the table (file events and the final check).\n`,
  },
  frozenInstall: 'bun install --frozen-lockfile',
  refuseEnv: () => ({}),
  refuseGap: () => 'bun',
};
