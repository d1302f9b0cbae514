// Each package manager's command-line table (`<pm>/command-line.ts`), listed apart from the integration
// registry: argv.ts reads them here, so the bundles that classify command lines (the pnpmfile, loaded in
// every pnpm process) carry the tables alone, not every adapter's doctor checks and refusal code (measured:
// the pnpmfile's require took about 5 ms before the adapters, 7 ms through the registry, 16 ms once the
// adapters held doctor's checks; median of 12, a loaded 2-core machine).
//
// Owns: `COMMAND_LINES`, `commandLineOf(name)`, `EXECUTABLES` (every executable name of every manager).
// Invariants: data only; test/integrations/package-managers/registry.test.ts checks this list is the
// registry's tables, in its order (a new package manager's table is one line here too).

import { BUN_COMMAND_LINE } from './bun/command-line.js';
import { NPM_COMMAND_LINE } from './npm/command-line.js';
import { PNPM_COMMAND_LINE } from './pnpm/command-line.js';
import type { Manager, ManagerTable } from './tables.js';
import { YARN_COMMAND_LINE } from './yarn/command-line.js';

export const COMMAND_LINES: readonly ManagerTable[] = [
  PNPM_COMMAND_LINE,
  NPM_COMMAND_LINE,
  YARN_COMMAND_LINE,
  BUN_COMMAND_LINE,
];

/** What `manager`'s command line means. */
export function commandLineOf(manager: Manager): ManagerTable {
  const table = COMMAND_LINES.find((line) => line.name === manager);
  if (table === undefined) throw new Error(`no command-line table is registered for ${manager}`);
  return table;
}

/** Executable names (basename, extension dropped) → the manager, and whether the word itself means `exec`. */
export const EXECUTABLES: Readonly<Record<string, { readonly manager: Manager; readonly exec?: true }>> =
  Object.fromEntries(
    COMMAND_LINES.flatMap((table) =>
      Object.entries(table.executables).map(([word, how]) => [word, { manager: table.name, ...how }]),
    ),
  );
