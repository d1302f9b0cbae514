// Workspace discovery and the package-manager guess.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { findWorkspace } from '../../lib/core/workspace.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

test('a pnpm workspace is found from a package folder inside it', async (t) => {
  const root = tempWorkspace(t, { ...pnpmTree(), packages: { b: { 'package.json': '{"name":"b"}' } } });
  assert.deepEqual(await findWorkspace(join(root, 'packages/b')), { root, manager: 'pnpm' });
});

test('an npm workspace: the nearest folder up with a lockfile or a workspaces field', async (t) => {
  const root = tempWorkspace(t, { 'package.json': '{"workspaces":["packages/*"]}', packages: { b: { 'package.json': '{"name":"b"}' } } });
  assert.deepEqual(await findWorkspace(join(root, 'packages/b')), { root, manager: 'npm' });
  const yarn = tempWorkspace(t, { 'package.json': '{}', 'yarn.lock': '' });
  assert.equal((await findWorkspace(yarn)).manager, 'yarn');
});

test('no workspace, or a folder that does not exist: ERR_LOCKGUARD_NOT_A_WORKSPACE naming it', async (t) => {
  const empty = tempWorkspace(t, {});
  await assert.rejects(findWorkspace(empty), { code: 'ERR_LOCKGUARD_NOT_A_WORKSPACE', path: empty });
  await assert.rejects(findWorkspace(join(empty, 'missing')), { code: 'ERR_LOCKGUARD_NOT_A_WORKSPACE' });
});
