// The package-manager registry (core half): one adapter per name, each with every member
// PackageManagerCore requires (a new package manager missing one fails here, not in a user's run), and the
// lists the dispatchers derive from it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PackageManagerCore } from '../../../lib/core/package-managers/adapter.js';
import {
  baseEntries,
  coreOf,
  coreOfLockfile,
  FALLBACK_MANAGER,
  isPackageManager,
  PACKAGE_MANAGER_CORES,
} from '../../../lib/core/package-managers/registry.js';
import { SLICE_LOCKFILES } from '../../../lib/core/slices/slices.js';
import { LOCKFILES } from '../../../lib/core/workspace.js';

const FUNCTIONS = ['checkInstall', 'poolAtRoot'] as const;

/** What an adapter lacks, in words ([] when it is complete). */
function problems(core: PackageManagerCore): string[] {
  const found: string[] = [];
  const record = core as unknown as Record<string, unknown>;
  if (typeof record['name'] !== 'string' || record['name'] === '') found.push('name');
  for (const member of ['lockfiles', 'rootMarkers', 'entries'] as const)
    if (!Array.isArray(record[member])) found.push(member);
  if (core.lockfiles?.length === 0) found.push('lockfiles');
  if (!core.entries?.some((entry) => entry.kind === 'lockfile')) found.push('entries');
  for (const member of FUNCTIONS) if (typeof record[member] !== 'function') found.push(member);
  if (record['findRoot'] !== undefined && typeof record['findRoot'] !== 'function') found.push('findRoot');
  const patches = core.patches as unknown as Record<string, unknown> | undefined;
  if (typeof patches?.['rootManifest'] !== 'boolean') found.push('patches.rootManifest');
  if (typeof patches?.['lockfileRegion'] !== 'function') found.push('patches.lockfileRegion');
  const slices = core.slices as unknown as Record<string, unknown> | undefined;
  if (!Array.isArray(slices?.['lockfiles'])) found.push('slices.lockfiles');
  if (typeof slices?.['graph'] !== 'function') found.push('slices.graph');
  return found;
}

test('the registry has exactly one adapter per name, and coreOf finds each', () => {
  const names = PACKAGE_MANAGER_CORES.map((core) => core.name);
  assert.deepEqual(names, ['pnpm', 'npm', 'yarn', 'bun']);
  assert.equal(new Set(names).size, names.length);
  for (const core of PACKAGE_MANAGER_CORES) assert.equal(coreOf(core.name), core);
  assert.throws(() => coreOf('deno' as never), /no package-manager adapter/);
  assert.ok(isPackageManager(FALLBACK_MANAGER));
  assert.equal(isPackageManager('deno'), false);
  assert.equal(isPackageManager('constructor'), false);
});

test('every adapter has every required member', () => {
  for (const core of PACKAGE_MANAGER_CORES) assert.deepEqual(problems(core), [], core.name);
});

test('the member check fails an adapter that lacks one (it can fail)', () => {
  const [first] = PACKAGE_MANAGER_CORES;
  assert.ok(first !== undefined);
  const { checkInstall: _checkInstall, ...noCheck } = first;
  assert.deepEqual(problems(noCheck as unknown as PackageManagerCore), ['checkInstall']);
  const { graph: _graph, ...slices } = first.slices;
  assert.deepEqual(problems({ ...first, slices } as unknown as PackageManagerCore), ['slices.graph']);
  assert.deepEqual(problems({ ...first, entries: [] }), ['entries']);
});

test('a lockfile belongs to one adapter, and the lists the dispatchers derive keep the registry order', () => {
  const all = PACKAGE_MANAGER_CORES.flatMap((core) => core.lockfiles.map((name) => [name, core.name] as const));
  assert.deepEqual(LOCKFILES, all);
  assert.equal(new Set(all.map(([name]) => name)).size, all.length);
  for (const [name, manager] of all) assert.equal(coreOfLockfile(name)?.name, manager);
  assert.equal(coreOfLockfile('package.json'), undefined);
  for (const [name, manager] of SLICE_LOCKFILES) assert.ok(coreOf(manager).lockfiles.includes(name), name);
  for (const core of PACKAGE_MANAGER_CORES) {
    // Every lockfile of a manager is an entry of its table, in every scope.
    for (const name of core.lockfiles)
      assert.ok(
        baseEntries(core.name, 'inputs').some((entry) => entry.path === name && entry.kind === 'lockfile'),
        name,
      );
    assert.ok(baseEntries(core.name, 'inputs').every((entry) => entry.kind !== 'install-marker'));
  }
});
