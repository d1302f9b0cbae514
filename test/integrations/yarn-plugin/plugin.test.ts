// The yarn plugin's refusal rule: every install-running yarn command but `yarn install` itself (frozen by
// YARN_ENABLE_IMMUTABLE_INSTALLS) is refused; `install` asked to rewrite the lockfile is refused too.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadedThroughEnv, refusalOf, yarnCommand } from '../../../lib/integrations/yarn-plugin/plugin.js';

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
  assert.equal(bundle.name, 'lockguard');
  assert.equal(typeof bundle.factory().hooks['validateProject'], 'function');
});

test('the plugin refuses only where YARN_PLUGINS lists its own file (a refusing run), never as the committed copy', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lockguard-yarn-plugin-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const dist = join(dir, 'yarn-plugin.cjs');
  const committed = join(dir, 'lockguard.cjs');
  writeFileSync(dist, '');
  writeFileSync(committed, '');
  symlinkSync(dist, join(dir, 'link.cjs'));
  assert.equal(loadedThroughEnv(dist, { YARN_PLUGINS: `/elsewhere.cjs;${dist}` }, '/'), true);
  assert.equal(loadedThroughEnv(dist, { YARN_PLUGINS: 'yarn-plugin.cjs' }, dir), true, "relative to yarn's cwd");
  assert.equal(loadedThroughEnv(dist, { YARN_PLUGINS: join(dir, 'link.cjs') }, '/'), true, 'through a link');
  assert.equal(loadedThroughEnv(committed, { YARN_PLUGINS: dist }, '/'), false);
  assert.equal(loadedThroughEnv(committed, {}, '/'), false);
  assert.equal(loadedThroughEnv(dist, { YARN_PLUGINS: '' }, '/'), false);
  assert.equal(loadedThroughEnv(undefined, { YARN_PLUGINS: dist }, '/'), false);
});
