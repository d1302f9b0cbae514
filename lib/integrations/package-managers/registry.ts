// The package managers' integration halves: one adapter per package manager, in the core registry's order.
//
// Owns: `PACKAGE_MANAGER_INTEGRATIONS` and `integrationOf(name)`. What a command line means is read through
// command-lines.ts instead (the same tables, listed apart: the pnpmfile bundle, loaded in pnpm's processes,
// carries them alone). Adding a package manager is a folder exporting one PackageManagerIntegration and
// one line here, beside its core half (core/package-managers/registry.ts; README.md says what each provides;
// test/integrations/package-managers/registry.test.ts checks both registries name the same managers).
// Invariants: no package-manager knowledge here; the dispatchers (argv.ts, refuse-env.ts, version.ts,
// script-walk.ts, guard/refuse-setup.ts, guard/run.ts, cli doctor) go through this list, never a switch on a name.

import type { PackageManager } from '../../core/package-managers/names.js';
import type { PackageManagerIntegration } from './adapter.js';
import { bun } from './bun/index.js';
import { npm } from './npm/index.js';
import { pnpm } from './pnpm/index.js';
import { yarn } from './yarn/index.js';

export const PACKAGE_MANAGER_INTEGRATIONS: readonly PackageManagerIntegration[] = [pnpm, npm, yarn, bun];

/** The integration adapter of a package manager (every PackageManager has one). */
export function integrationOf(name: PackageManager): PackageManagerIntegration {
  const found = PACKAGE_MANAGER_INTEGRATIONS.find((integration) => integration.name === name);
  if (found === undefined) throw new Error(`no package-manager integration is registered for ${name}`);
  return found;
}
