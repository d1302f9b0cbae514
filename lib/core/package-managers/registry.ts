// The package managers lockguard knows: one core adapter per package manager, in the order a root's
// lockfiles are recognized by.
//
// Owns: `PACKAGE_MANAGER_CORES`, `coreOf(name)`, `coreOfLockfile(file)`, `baseEntries` (an adapter's entries
// in a scope) and the fallback manager of a root with no lockfile. Adding a package manager is a folder exporting one PackageManagerCore and one line here
// (README.md says what the adapter must provide; test/core/package-managers/registry.test.ts checks every
// name has exactly one adapter with every member), plus its integration half
// (integrations/package-managers/registry.ts).
// Invariants: no package-manager knowledge here; the dispatchers (workspace.ts, entries.ts, fingerprints.ts,
// install-check.ts, slices/slices.ts, slices/layout.ts) go through this list, never through a switch on a name.

import { inScope, type EntrySpec, type Scope } from '../entries.js';
import type { AsyncLower, PackageManagerCore } from './adapter.js';
import { bun } from './bun/index.js';
import type { PackageManager } from './names.js';
import { npm } from './npm/index.js';
import { pnpm } from './pnpm/index.js';
import { asyncManagerChunk } from './chunk-load.js';
import { yarn } from './yarn/index.js';

export const PACKAGE_MANAGER_CORES: readonly PackageManagerCore[] = [pnpm, npm, yarn, bun];

/** The readers of lockfile versions only an asynchronous reader reads (adapter.ts `AsyncLower` says why apart). */
export const ASYNC_SLICE_READERS: Readonly<Partial<Record<PackageManager, AsyncLower>>> = {
  pnpm: (bytes, absPath, options) => asyncManagerChunk('pnpm').pnpmSliceGraphAsync(bytes, absPath, options),
};

/** The manager of a root that names none (no lockfile, no marker, no `packageManager` field). */
export const FALLBACK_MANAGER: PackageManager = 'npm';

// Built with no work at load: a bundle that imports this module but none of its answers (an install hook
// reaching ledger/run-record.ts) drops it and every adapter (esbuild keeps a module whose loading does work).
function byName(name: string): PackageManagerCore | undefined {
  return PACKAGE_MANAGER_CORES.find((core) => core.name === name);
}

/** The core adapter of a package manager (every PackageManager has one). */
export function coreOf(name: PackageManager): PackageManagerCore {
  const core = byName(name);
  if (core === undefined) throw new Error(`no package-manager adapter is registered for ${name}`);
  return core;
}

/** The core adapter whose lockfile is named exactly `relPath` ('pnpm-lock.yaml'), or undefined. */
export function coreOfLockfile(relPath: string): PackageManagerCore | undefined {
  return PACKAGE_MANAGER_CORES.find((core) => core.lockfiles.includes(relPath));
}

/** Whether `name` names a registered package manager (a manifest's `packageManager` field, a record). */
export function isPackageManager(name: string): name is PackageManager {
  return byName(name) !== undefined;
}

/**
 * The fixed entries of a package manager in `scope`, before patches (which depend on file contents); at `root`,
 * those of the layout the root has (a Rush repository), when it has one.
 */
export function baseEntries(manager: PackageManager, scope: Scope, root?: string): EntrySpec[] {
  const core = coreOf(manager);
  const entries = (root === undefined ? undefined : core.layout?.entriesAt(root)) ?? core.entries;
  return entries.filter((entry) => inScope(entry.kind, scope));
}

/** Every fixed entry a table of `manager` can hold, in any layout (a ledger record's entries are checked by it). */
export function knownEntries(manager: PackageManager): EntrySpec[] {
  const core = coreOf(manager);
  return [...core.entries, ...(core.layout?.entries ?? [])];
}

/** The package manager of the layout `root` has (a Rush repository: pnpm), if any; throws for a broken marker file. */
export function layoutAt(root: string): { readonly manager: PackageManager } | undefined {
  for (const core of PACKAGE_MANAGER_CORES)
    if (core.layout?.entriesAt(root) !== undefined) return { manager: core.name };
  return undefined;
}
