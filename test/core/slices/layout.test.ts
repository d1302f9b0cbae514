// Where the linker puts the hoisted pool (core/slices/layout.ts), read from the committed settings, and what
// that does to the slices: every project folds the pool where its own code resolves the root node_modules
// (end to end: test/e2e/reach-pnpm-hoisted.test.ts, reach-npm-yarn.test.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slicesFromLockfile } from '../../../lib/core/slices/index.js';
import { poolAtRoot } from '../../../lib/core/slices/layout.js';
import { tempWorkspace } from '../../helpers/workspace.js';

const BERRY = '__metadata:\n  version: 8\n';

test('pnpm: only node-linker=hoisted, shamefully-hoist or a public-hoist-pattern put the pool at the root (.npmrc or pnpm-workspace.yaml)', (t) => {
  const at = (tree: Record<string, string>): boolean => poolAtRoot(tempWorkspace(t, tree), 'pnpm', '');
  assert.equal(at({}), false, "pnpm's defaults: the private hoist only");
  assert.equal(at({ '.npmrc': 'hoist-pattern[]=*\npublic-hoist-pattern=\n' }), false);
  assert.equal(at({ 'pnpm-workspace.yaml': 'packages: []\npublicHoistPattern: []\n' }), false);
  assert.equal(at({ '.npmrc': 'node-linker=hoisted\n' }), true);
  assert.equal(at({ '.npmrc': 'shamefully-hoist = true\n' }), true);
  assert.equal(at({ '.npmrc': 'public-hoist-pattern[]=tiny-dep\n' }), true);
  assert.equal(at({ 'pnpm-workspace.yaml': 'nodeLinker: hoisted\n' }), true);
  assert.equal(at({ 'pnpm-workspace.yaml': "publicHoistPattern:\n  - '*types*'\n" }), true);
});

test("npm and yarn v1 always, yarn berry unless PnP (its default), bun's hoisted linker (bunfig.toml, else bun.lock's configVersion)", (t) => {
  const root = (tree: Record<string, string>): string => tempWorkspace(t, tree);
  assert.equal(poolAtRoot(root({}), 'npm', ''), true);
  assert.equal(poolAtRoot(root({}), 'yarn', '# yarn lockfile v1\n'), true);
  assert.equal(poolAtRoot(root({}), 'yarn', BERRY), false);
  assert.equal(poolAtRoot(root({ '.yarnrc.yml': 'nodeLinker: pnp\n' }), 'yarn', BERRY), false);
  assert.equal(poolAtRoot(root({ '.yarnrc.yml': 'nodeLinker: "node-modules"\n' }), 'yarn', BERRY), true);
  const v1 = '{\n  "lockfileVersion": 1,\n  "configVersion": 1,\n';
  assert.equal(poolAtRoot(root({}), 'bun', '{\n  "lockfileVersion": 1,\n'), true, 'before configVersion: hoisted');
  assert.equal(poolAtRoot(root({}), 'bun', v1), false, 'configVersion 1: isolated');
  assert.equal(poolAtRoot(root({ 'bunfig.toml': '[install]\nlinker = "isolated"\n' }), 'bun', ''), false);
  assert.equal(poolAtRoot(root({ 'bunfig.toml': '[install]\nlinker = "hoisted"\n' }), 'bun', v1), true);
});

const NPM_LOCK = JSON.stringify({
  name: 'root',
  lockfileVersion: 3,
  packages: {
    '': { name: 'root', workspaces: ['packages/*'] },
    'node_modules/a': { resolved: 'packages/a', link: true },
    'node_modules/b': { resolved: 'packages/b', link: true },
    'node_modules/tiny-dep': { version: '7.0.0', resolved: 'file:vendor/t7.tgz' },
    'packages/a': { name: 'a', version: '1.0.0' },
    'packages/b': { name: 'b', version: '1.0.0', dependencies: { 'tiny-dep': '*' } },
  },
});

test("npm: a project that installs no package still folds the pool (its own code resolves npm's root node_modules)", (t) => {
  const root = tempWorkspace(t, { 'package-lock.json': NPM_LOCK });
  const sliced = slicesFromLockfile(Buffer.from(NPM_LOCK), { lockfile: 'package-lock.json', root });
  assert.equal(sliced.slices.find((slice) => slice.importer === 'packages/a')?.reach, sliced.pool);
  const strict = slicesFromLockfile(Buffer.from(NPM_LOCK), { lockfile: 'package-lock.json', root, poolAtRoot: false });
  assert.equal(strict.slices.find((slice) => slice.importer === 'packages/a')?.reach, undefined, 'the override');
  assert.equal(strict.slices.find((slice) => slice.importer === 'packages/b')?.reach, strict.pool);
});
