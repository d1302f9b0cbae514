// Which pnpm runs here: the executable PATH finds (its own package's version), switched to the packageManager
// pin by pnpm 9.7+, unless managePackageManagerVersions is off.

import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { effectivePnpm, runningVersion } from '../../../lib/integrations/package-managers/version.js';
import { PACKAGE_ROOT } from '../../helpers/hooks.js';
import { tempWorkspace } from '../../helpers/workspace.js';

function withPnpm10(t: Parameters<typeof tempWorkspace>[0], manifest: Record<string, unknown>): string {
  const root = tempWorkspace(t, { 'package.json': JSON.stringify(manifest) });
  mkdirSync(join(root, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(join(PACKAGE_ROOT, 'node_modules', 'pnpm10', 'bin', 'pnpm.cjs'), join(root, 'node_modules', '.bin', 'pnpm'));
  return root;
}

test('the pnpm found in node_modules/.bin is read from its own package', (t) => {
  const root = withPnpm10(t, {});
  const found = runningVersion('pnpm', root, {});
  assert.deepEqual([found.version, found.source, found.path], ['10.34.8', 'package', join(root, 'node_modules', '.bin', 'pnpm')]);
  assert.equal(effectivePnpm(root, {}).version, '10.34.8');
});

test('pnpm 9.7+ switches to the packageManager pin; with managePackageManagerVersions off it does not', (t) => {
  const root = withPnpm10(t, { packageManager: 'pnpm@12.4.2' });
  const pinned = effectivePnpm(root, {});
  assert.equal(pinned.version, '12.4.2');
  assert.match(pinned.why, /pinned in packageManager; pnpm 10\.34\.8 on PATH switches to it/);
  assert.equal(effectivePnpm(root, { pnpm_config_manage_package_manager_versions: 'false' }).version, '10.34.8');
});

test('nothing on PATH: the pin, else unknown', (t) => {
  const pinnedOnly = tempWorkspace(t, { 'package.json': '{"packageManager":"pnpm@12.4.2"}' });
  assert.equal(effectivePnpm(pinnedOnly, { PATH: '' }).version, '12.4.2');
  assert.equal(effectivePnpm(pinnedOnly, { PATH: '' }).found.path, undefined);
  const none = tempWorkspace(t, { 'package.json': '{}' });
  assert.equal(effectivePnpm(none, { PATH: '' }).version, undefined);
});
