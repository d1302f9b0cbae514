// `lockguard hook` (the npm root-script hook) writes the per-project slice files after `npm install` and
// `npm ci` where the workspace uses them, and only warns when it cannot (the install never fails for it).

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../../helpers/cli.js';
import { tempWorkspace } from '../../helpers/workspace.js';

const LOCK = JSON.stringify({
  name: 'root',
  lockfileVersion: 3,
  requires: true,
  packages: {
    '': { name: 'root', workspaces: ['packages/a'] },
    'node_modules/a': { resolved: 'packages/a', link: true },
    'packages/a': { name: 'a', version: '1.0.0' },
  },
});

function workspace(t: Parameters<typeof tempWorkspace>[0], turbo: boolean): string {
  return tempWorkspace(t, {
    'package.json': '{"name":"root","private":true,"workspaces":["packages/a"]}',
    'package-lock.json': LOCK,
    ...(turbo ? { 'turbo.json': '{"tasks":{"build":{"inputs":["$TURBO_DEFAULT$",".lockguard-slice"]}}}' } : {}),
    packages: { a: { 'package.json': '{"name":"a","version":"1.0.0"}' } },
  });
}

const POSTINSTALL = { npm_lifecycle_event: 'postinstall', npm_command: 'ci' };

test('postinstall of npm ci writes the files where turbo folds them; preinstall, another command or a workspace without them writes none', async (t) => {
  const root = workspace(t, true);
  assert.equal((await cli(['hook'], root, { ...POSTINSTALL, npm_lifecycle_event: 'preinstall' })).code, 0);
  assert.equal(existsSync(join(root, 'packages', 'a', '.lockguard-slice')), false);
  assert.equal((await cli(['hook'], root, { ...POSTINSTALL, npm_command: 'rebuild' })).code, 0);
  assert.equal(existsSync(join(root, 'packages', 'a', '.lockguard-slice')), false);
  const result = await cli(['hook'], root, POSTINSTALL);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    readFileSync(join(root, 'packages', 'a', '.lockguard-slice'), 'utf8'),
    /^lockguard-slice\/2\nimporter packages\/a\nslice [0-9a-f]{64}\nroot [0-9a-f]{64}\n(reach [0-9a-f]{64}\n)?$/,
  );
  const plain = workspace(t, false);
  assert.equal((await cli(['hook'], plain, POSTINSTALL)).code, 0);
  assert.equal(existsSync(join(plain, 'packages', 'a', '.lockguard-slice')), false);
});

test('a folder where the file belongs: one warning naming it, exit 0 (the install goes on)', async (t) => {
  const root = workspace(t, true);
  mkdirSync(join(root, 'packages', 'a', '.lockguard-slice'));
  const result = await cli(['hook'], root, { ...POSTINSTALL, npm_command: 'install' });
  assert.equal(result.code, 0);
  assert.match(result.stderr, /^\[lockguard\] warning: .*packages\/a\/\.lockguard-slice/m);
});
