// Workspace discovery and the package-manager guess.

import assert from 'node:assert/strict';
import { realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { findWorkspace } from '../../lib/core/workspace.js';
import { pnpmTree, tempWorkspace, writeTree } from '../helpers/workspace.js';

test('a pnpm workspace is found from a package folder inside it', async (t) => {
  const root = tempWorkspace(t, { ...pnpmTree(), packages: { b: { 'package.json': '{"name":"b"}' } } });
  assert.deepEqual(await findWorkspace(join(root, 'packages/b')), { root, manager: 'pnpm' });
});

test('an npm workspace: the nearest folder up with a lockfile or a workspaces field', async (t) => {
  const root = tempWorkspace(t, {
    'package.json': '{"workspaces":["packages/*"]}',
    packages: { b: { 'package.json': '{"name":"b"}' } },
  });
  assert.deepEqual(await findWorkspace(join(root, 'packages/b')), { root, manager: 'npm' });
  const yarn = tempWorkspace(t, { 'package.json': '{}', 'yarn.lock': '' });
  assert.equal((await findWorkspace(yarn)).manager, 'yarn');
});

test('no workspace, or a folder that does not exist: ERR_LOCKGUARD_NOT_A_WORKSPACE naming it', async (t) => {
  const empty = tempWorkspace(t, {});
  await assert.rejects(findWorkspace(empty), { code: 'ERR_LOCKGUARD_NOT_A_WORKSPACE', path: empty });
  await assert.rejects(findWorkspace(join(empty, 'missing')), { code: 'ERR_LOCKGUARD_NOT_A_WORKSPACE' });
});

test('pnpm workspaces: the root is the one @pnpm/find-workspace-dir finds, in every layout (plain, nested, links, misnamed, a folder)', async (t) => {
  const { findWorkspaceDir } = await import('@pnpm/find-workspace-dir');
  const lock = "lockfileVersion: '9.0'\n";
  const layouts: Record<string, (root: string) => string> = {
    plain: (root) => {
      writeTree(root, { ...pnpmTree(), packages: { a: { 'package.json': '{}' } } });
      return join(root, 'packages/a');
    },
    'nested pnpm workspaces (the nearer wins)': (root) => {
      writeTree(root, {
        ...pnpmTree(),
        inner: { 'pnpm-workspace.yaml': 'packages: []\n', 'pnpm-lock.yaml': lock, deep: {} },
      });
      return join(root, 'inner/deep');
    },
    'a linked manifest': (root) => {
      writeTree(root, { 'pnpm-lock.yaml': lock, 'real.yaml': 'packages: []\n', sub: {} });
      symlinkSync('real.yaml', join(root, 'pnpm-workspace.yaml'));
      return join(root, 'sub');
    },
    'a dangling linked manifest above a plain one': (root) => {
      writeTree(root, { ...pnpmTree(), sub: {} });
      symlinkSync('gone.yaml', join(root, 'sub', 'pnpm-workspace.yaml'));
      return join(root, 'sub');
    },
    'a folder named like the manifest': (root) => {
      writeTree(root, { ...pnpmTree(), sub: { 'pnpm-workspace.yaml': {} } });
      return join(root, 'sub');
    },
    'a cwd reached through a link': (root) => {
      writeTree(root, { ...pnpmTree(), packages: { a: {} } });
      symlinkSync(join(root, 'packages', 'a'), join(root, 'alias'));
      return join(root, 'alias');
    },
  };
  for (const [name, make] of Object.entries(layouts)) {
    const root = tempWorkspace(t);
    const start = make(root);
    const real = realpathSync(start);
    const pnpm = await findWorkspaceDir(real);
    // No lockfile below pnpm's root in these layouts: no npm-style root is deeper, so pnpm's answer is the root.
    assert.equal((await findWorkspace(start)).root, pnpm, name);
  }
  // The misnamed manifest pnpm refuses is refused here too.
  const misnamed = tempWorkspace(t, { 'package.json': '{}', 'pnpm-workspace.yml': 'packages: []\n' });
  await assert.rejects(findWorkspaceDir(misnamed));
  await assert.rejects(findWorkspace(misnamed), { code: 'ERR_LOCKGUARD_NOT_A_WORKSPACE' });
});
