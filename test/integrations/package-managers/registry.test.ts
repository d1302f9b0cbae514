// The package-manager registry (integration half): one adapter per manager the core registry lists, in the
// same order, each with every member PackageManagerIntegration requires, and executable names that name one
// manager each.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PACKAGE_MANAGER_CORES } from '../../../lib/core/package-managers/registry.js';
import type { PackageManagerIntegration } from '../../../lib/integrations/package-managers/adapter.js';
import { executableName, parseCommand } from '../../../lib/integrations/package-managers/argv.js';
import { COMMAND_LINES, EXECUTABLES } from '../../../lib/integrations/package-managers/command-lines.js';
import { integrationOf, PACKAGE_MANAGER_INTEGRATIONS } from '../../../lib/integrations/package-managers/registry.js';

const SETS = [
  'valueOptions',
  'frozenOptions',
  'unfrozenOptions',
  'elsewhereOptions',
  'recursiveWords',
  'dryRunOptions',
  'lockfileOnlyOptions',
  'lineOptions',
] as const;

/** What an adapter lacks, in words ([] when it is complete). */
function problems(integration: PackageManagerIntegration): string[] {
  const found: string[] = [];
  const record = integration as unknown as Record<string, unknown>;
  if (typeof record['name'] !== 'string' || record['name'] === '') found.push('name');
  for (const member of ['refuseEnv', 'refuseGap'] as const)
    if (typeof record[member] !== 'function') found.push(member);
  const hooks = integration.hooks as unknown as Record<string, unknown> | undefined;
  for (const member of ['checks', 'sliceHooks'] as const)
    if (typeof hooks?.[member] !== 'function') found.push(`hooks.${member}`);
  const init = integration.init as unknown as Record<string, unknown> | undefined;
  if (typeof init?.['prepareRuns'] !== 'string') found.push('init.prepareRuns');
  if (typeof init?.['note'] !== 'function') found.push('init.note');
  if (typeof record['frozenInstall'] !== 'string' || !integration.frozenInstall.startsWith(integration.name))
    found.push('frozenInstall');
  const table = integration.commandLine as unknown as Record<string, unknown> | undefined;
  if (table === undefined) return [...found, 'commandLine'];
  for (const member of SETS) if (!(table[member] instanceof Set)) found.push(`commandLine.${member}`);
  for (const member of ['aliases', 'effects', 'executables', 'rewritingSubcommands'] as const)
    if (typeof table[member] !== 'object' || table[member] === null) found.push(`commandLine.${member}`);
  if (!Object.keys(integration.commandLine.executables ?? {}).includes(integration.name))
    found.push('commandLine.executables');
  if (typeof table['execCommand'] !== 'string') found.push('commandLine.execCommand');
  if (!Array.isArray(table['packages']) || integration.commandLine.packages.length === 0)
    found.push('commandLine.packages');
  if (!Array.isArray(table['dirOptions'])) found.push('commandLine.dirOptions');
  return found;
}

test('one integration adapter per manager of the core registry, in its order', () => {
  assert.deepEqual(
    PACKAGE_MANAGER_INTEGRATIONS.map((integration) => integration.name),
    PACKAGE_MANAGER_CORES.map((core) => core.name),
  );
  for (const integration of PACKAGE_MANAGER_INTEGRATIONS) assert.equal(integrationOf(integration.name), integration);
  // argv.ts reads the same tables through command-lines.ts (listed apart for the pnpmfile bundle).
  assert.deepEqual(
    COMMAND_LINES,
    PACKAGE_MANAGER_INTEGRATIONS.map((integration) => integration.commandLine),
  );
  for (const integration of PACKAGE_MANAGER_INTEGRATIONS) assert.equal(integration.commandLine.name, integration.name);
  assert.throws(() => integrationOf('deno' as never), /no package-manager integration/);
});

test('every adapter has every required member', () => {
  for (const integration of PACKAGE_MANAGER_INTEGRATIONS) assert.deepEqual(problems(integration), [], integration.name);
});

test('the member check fails an adapter that lacks one (it can fail)', () => {
  const [first] = PACKAGE_MANAGER_INTEGRATIONS;
  assert.ok(first !== undefined);
  const { refuseGap: _refuseGap, ...noGap } = first;
  assert.deepEqual(problems(noGap as unknown as PackageManagerIntegration), ['refuseGap']);
  const { lineOptions: _lineOptions, ...commandLine } = first.commandLine;
  assert.deepEqual(problems({ ...first, commandLine } as unknown as PackageManagerIntegration), [
    'commandLine.lineOptions',
  ]);
});

test("each executable name belongs to one manager, and argv reads each as that manager's", () => {
  const owners = PACKAGE_MANAGER_INTEGRATIONS.flatMap((integration) =>
    Object.keys(integration.commandLine.executables).map((word) => [word, integration.name] as const),
  );
  assert.equal(new Set(owners.map(([word]) => word)).size, owners.length);
  assert.deepEqual(Object.keys(EXECUTABLES).sort(), owners.map(([word]) => word).sort());
  for (const [word, manager] of owners) {
    assert.equal(parseCommand([word, 'install'])?.manager, manager, word);
    const exec = EXECUTABLES[word]?.exec === true;
    if (exec) assert.equal(parseCommand([word, 'x'])?.command, integrationOf(manager).commandLine.execCommand);
  }
  // A release file names its manager (yarn's `.yarn/releases/yarn-4.18.1.cjs`).
  for (const integration of PACKAGE_MANAGER_INTEGRATIONS) {
    const release = integration.commandLine.releaseFile;
    if (release !== undefined) assert.equal(executableName(`/x/${integration.name}-4.18.1.cjs`), integration.name);
  }
});
