// The yarn plugin's refusal rule: every install-running yarn command but `yarn install` itself (frozen by
// YARN_ENABLE_IMMUTABLE_INSTALLS) is refused; `install` asked to rewrite the lockfile is refused too.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { refusalOf, yarnCommand } from '../../../lib/integrations/yarn-plugin/plugin.js';

test('yarnCommand skips `workspace <name>` and `--cwd <dir>`', () => {
  assert.deepEqual(yarnCommand(['workspace', 'b', 'add', 'x']), { command: 'add', args: ['x'] });
  assert.deepEqual(yarnCommand(['--cwd', 'packages/b', 'remove', 'x']), { command: 'remove', args: ['x'] });
  assert.deepEqual(yarnCommand([]), { command: undefined, args: [] });
});

test('refusalOf: add/remove/up/dedupe refused; install and bare yarn pass unless told to rewrite the lockfile', () => {
  for (const argv of [
    ['add', 'x'],
    ['workspace', 'b', 'add', 'x'],
    ['remove', 'x'],
    ['up', 'x'],
    ['dedupe'],
    ['link', '../x'],
    ['patch-commit', 'p'],
  ])
    assert.ok(refusalOf(argv), argv.join(' '));
  for (const argv of [[], ['install'], ['install', '--immutable'], ['--inline-builds']])
    assert.equal(refusalOf(argv), undefined, argv.join(' '));
  for (const argv of [
    ['install', '--no-immutable'],
    ['install', '--mode=update-lockfile'],
    ['install', '--mode', 'update-lockfile'],
  ])
    assert.ok(refusalOf(argv), argv.join(' '));
});

test('the bundle exports what yarn reads: name and factory, with a validateProject hook', () => {
  const require = createRequire(import.meta.url);
  const bundle = require('../../../yarn-plugin.cjs') as {
    name: string;
    factory: () => { hooks: Record<string, unknown> };
  };
  assert.equal(bundle.name, 'lockguard-refuse');
  assert.equal(typeof bundle.factory().hooks['validateProject'], 'function');
});
