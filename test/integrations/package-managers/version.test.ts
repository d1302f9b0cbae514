// Which pnpm runs here: the executable PATH finds (its own package's version), switched to the packageManager
// pin by pnpm 9.7+, unless managePackageManagerVersions is off.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { effectivePnpm } from '../../../lib/integrations/package-managers/pnpm/effective-version.js';
import { runningVersion } from '../../../lib/integrations/package-managers/version.js';
import { isolatedEnv } from '../../helpers/env.js';
import { linkPnpmBin } from '../../helpers/tools.js';
import { tempWorkspace } from '../../helpers/workspace.js';

function withPnpm10(t: Parameters<typeof tempWorkspace>[0], manifest: Record<string, unknown>): string {
  const root = tempWorkspace(t, { 'package.json': JSON.stringify(manifest) });
  linkPnpmBin(root, 'pnpm10');
  return root;
}

test('the pnpm found in node_modules/.bin is read from its own package', (t) => {
  const root = withPnpm10(t, {});
  const found = runningVersion('pnpm', root, {});
  assert.deepEqual(
    [found.version, found.source, found.path],
    ['10.34.8', 'package', join(root, 'node_modules', '.bin', 'pnpm')],
  );
  assert.equal(effectivePnpm(root, {}).version, '10.34.8');
});

test('pnpm 9.7+ switches to the packageManager pin; with managePackageManagerVersions off it does not', (t) => {
  const root = withPnpm10(t, { packageManager: 'pnpm@12.4.2' });
  const pinned = effectivePnpm(root, {});
  assert.equal(pinned.version, '12.4.2');
  assert.match(pinned.why, /pinned in packageManager; pnpm 10\.34\.8 on PATH switches to it/);
  assert.equal(effectivePnpm(root, { npm_config_manage_package_manager_versions: 'false' }).version, '10.34.8');
  assert.equal(
    effectivePnpm(root, { pnpm_config_manage_package_manager_versions: 'false' }).version,
    '12.4.2',
    'pnpm 10 reads npm_config_* only',
  );
  assert.equal(
    effectivePnpm(root, { npm_config_manage_package_manager_versions: '0' }).version,
    '12.4.2',
    'only the word false turns it off',
  );
});

interface Case {
  readonly tool: 'pnpm10' | 'pnpm12';
  readonly pin: string;
  readonly files?: Record<string, string>;
  readonly env?: Record<string, string>;
  /** What runs: the tool itself (the switch is off), or the pin it switches to. */
  readonly runs: 'itself' | 'pin';
}

const VERSION = { pnpm10: '10.34.8', pnpm12: '12.4.2' } as const;

// Measured with the real pnpm 10.34.8 and 12.4.2 (below, each case again): which settings keep the PATH pnpm.
const CASES: readonly Case[] = [
  { tool: 'pnpm10', pin: '12.4.2', runs: 'pin' },
  { tool: 'pnpm10', pin: '12.4.2', files: { '.npmrc': 'manage-package-manager-versions=false\n' }, runs: 'itself' },
  {
    tool: 'pnpm10',
    pin: '12.4.2',
    files: { 'pnpm-workspace.yaml': 'packages: []\nmanagePackageManagerVersions: false\n' },
    runs: 'itself',
  },
  {
    tool: 'pnpm10',
    pin: '12.4.2',
    files: {
      '.npmrc': 'manage-package-manager-versions=false\n',
      'pnpm-workspace.yaml': 'packages: []\nmanagePackageManagerVersions: true\n',
    },
    runs: 'pin',
  },
  { tool: 'pnpm10', pin: '12.4.2', env: { npm_config_manage_package_manager_versions: 'false' }, runs: 'itself' },
  { tool: 'pnpm10', pin: '12.4.2', env: { pnpm_config_manage_package_manager_versions: 'false' }, runs: 'pin' },
  { tool: 'pnpm12', pin: '10.34.8', runs: 'pin' },
  { tool: 'pnpm12', pin: '10.34.8', files: { '.npmrc': 'manage-package-manager-versions=false\n' }, runs: 'pin' },
  { tool: 'pnpm12', pin: '10.34.8', env: { pnpm_config_manage_package_manager_versions: 'false' }, runs: 'itself' },
  {
    tool: 'pnpm12',
    pin: '10.34.8',
    files: { 'pnpm-workspace.yaml': 'packages: []\npmOnFail: ignore\n' },
    runs: 'itself',
  },
];

test('managePackageManagerVersions off, where each pnpm reads it: the PATH pnpm runs, as the real pnpm 10 and 12 do', (t) => {
  for (const [index, c] of CASES.entries()) {
    const label = `${c.tool} pinned to ${c.pin} ${JSON.stringify({ ...c.files, ...c.env })}`;
    const root = tempWorkspace(t, {
      'package.json': JSON.stringify({ name: `case-${index}`, packageManager: `pnpm@${c.pin}` }),
      'pnpm-workspace.yaml': 'packages: []\n',
      ...c.files,
    });
    const bin = linkPnpmBin(root, c.tool);
    const effective = effectivePnpm(root, { PATH: '', ...c.env });
    assert.equal(effective.version, c.runs === 'itself' ? VERSION[c.tool] : c.pin, label);
    // The real pnpm, offline: where it switches, the switch to the pin is tried (and fails offline).
    const real = spawnSync(bin, ['--version'], {
      cwd: root,
      env: isolatedEnv(root, { extra: c.env ?? {} }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    const output = `${real.stdout}${real.stderr}`;
    const pin = new RegExp(c.pin.replaceAll('.', '\\.'));
    if (c.runs === 'itself') {
      assert.equal(real.stdout.trim(), VERSION[c.tool], `${label}: ${output}`);
      assert.doesNotMatch(output, pin, `${label}: no switch to the pin was tried`);
    } else assert.match(output, pin, `${label}: the switch to the pin was tried: ${output}`);
  }
});

test('the reason names the setting that keeps the PATH pnpm', (t) => {
  const root = withPnpm10(t, { packageManager: 'pnpm@12.4.2' });
  writeFileSync(join(root, '.npmrc'), 'manage-package-manager-versions = false\n');
  assert.equal(
    effectivePnpm(root, { PATH: '' }).why,
    `pnpm 10.34.8 (${join(root, 'node_modules', '.bin', 'pnpm')}; manage-package-manager-versions=false in .npmrc: it does not switch to pnpm 12.4.2, the packageManager pin)`,
  );
});

test('nothing on PATH: the pin, else unknown', (t) => {
  const pinnedOnly = tempWorkspace(t, { 'package.json': '{"packageManager":"pnpm@12.4.2"}' });
  assert.equal(effectivePnpm(pinnedOnly, { PATH: '' }).version, '12.4.2');
  assert.equal(effectivePnpm(pinnedOnly, { PATH: '' }).found.path, undefined);
  const none = tempWorkspace(t, { 'package.json': '{}' });
  assert.equal(effectivePnpm(none, { PATH: '' }).version, undefined);
});
