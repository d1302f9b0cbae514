// nx's own answer to "where is your cache" is remembered under a key of everything it depends on: a
// guarded run in an nx workspace asks nx (a ~350 ms node process) once, not on every run.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { test } from 'node:test';
import { nxMemoKey, readNxMemo, writeNxMemo } from '../../../../lib/integrations/runners/nx/memo.js';
import { resolveNxCache } from '../../../../lib/integrations/runners/index.js';
import { whichNx } from '../../../../lib/integrations/runners/nx/which.js';
import { tempWorkspace } from '../../../helpers/workspace.js';

/** This repository (dist/test/… → the repo root), whose node_modules holds the pinned nx. */
const REPO = fileURLToPath(new URL('../../../../../', import.meta.url));

test('the memo is keyed on nx.json, the git config and HOME; a garbage memo is a miss', (t) => {
  const root = tempWorkspace(t, {
    'nx.json': '{}',
    '.git': { config: '[remote "origin"]\n  url = https://example.invalid/a.git\n' },
    '.lockguard': {},
  });
  const env = { HOME: '/home/someone' };
  const key = nxMemoKey(root, env);
  assert.equal(readNxMemo(root, key), undefined);
  writeNxMemo(root, key, '/home/someone/.nx/abc/cache');
  assert.equal(readNxMemo(root, key), '/home/someone/.nx/abc/cache');
  assert.notEqual(nxMemoKey(root, { HOME: '/home/other' }), key);
  writeFileSync(join(root, 'nx.json'), '{"nxCloudId":"x"}');
  assert.notEqual(nxMemoKey(root, env), key, 'nx.json changed');
  writeFileSync(join(root, 'nx.json'), '{}');
  assert.equal(nxMemoKey(root, env), key);
  writeFileSync(join(root, '.git', 'config'), '[remote "origin"]\n  url = https://example.invalid/b.git\n');
  assert.notEqual(nxMemoKey(root, env), key, 'the remote changed');
  writeFileSync(join(root, '.lockguard', 'cache', 'nx-cache-dir.json'), '{ not json');
  assert.equal(readNxMemo(root, nxMemoKey(root, env)), undefined);
});

test('resolveNxCache takes the remembered answer instead of asking nx again', (t) => {
  // HOME outside /tmp and a git repo: nx may share its cache, so it would be asked.
  const home = realpathSync(mkdtempSync('/var/tmp/lockguard-nx-home-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const root = tempWorkspace(t, { 'nx.json': '{}', 'package.json': '{}', '.git': { config: '' }, '.lockguard': {} });
  mkdirSync(join(root, 'node_modules'));
  symlinkSync(join(REPO, 'node_modules', 'nx'), join(root, 'node_modules', 'nx'));
  const env = { HOME: home };
  // The key names the nx the workspace starts (its package.json as Node resolves it).
  writeNxMemo(root, nxMemoKey(root, env, whichNx(root)?.manifest), join(home, '.nx', 'remembered', 'cache'));
  const cache = resolveNxCache(root, env);
  assert.equal(cache.dir, join(home, '.nx', 'remembered', 'cache'));
  assert.equal(cache.shared, true);
});

test('a workspace in a git worktree (.git is a file) has a memo key, not a failed run', (t) => {
  const root = tempWorkspace(t, {
    'nx.json': '{}',
    '.git': 'gitdir: /somewhere/else/.git/worktrees/w\n',
    '.lockguard': {},
  });
  const key = nxMemoKey(root, { HOME: '/home/someone' });
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.equal(nxMemoKey(root, { HOME: '/home/someone' }), key);
});
