import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { quarantine } from '../../../lib/run/quarantine.js';
import { cli } from '../../helpers/cli.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';
import { write } from '../../helpers/runner-caches.js';

test('lockguard quarantine list and restore', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const cacheDir = join(root, '.turbo', 'cache');
  write(join(cacheDir, 'abc.tar.zst'), 'bytes');
  {
    // Nothing withheld yet.
    const empty = await cli(['quarantine', 'list'], root);
    assert.equal(empty.code, 0);
    assert.match(empty.stdout, /No withheld/);
  }
  await quarantine(root, 'run-1', [{ runner: 'turbo', key: 'abc', task: 'b#build', cacheDir, paths: ['abc.tar.zst'], reason: 'test' }]);
  {
    const listed = await cli(['quarantine', 'list', '--json'], root);
    assert.equal(listed.code, 0);
    const data = JSON.parse(listed.stdout) as { run: string; entries: { key: string; task: string }[] }[];
    assert.equal(data[0]?.run, 'run-1');
    assert.equal(data[0]?.entries[0]?.task, 'b#build');
    const text = await cli(['quarantine', 'list'], root);
    assert.match(text.stdout, /run-1: 1 entry, 1 still withheld/);
  }
  {
    const restored = await cli(['quarantine', 'restore', '--run', 'run-1', '--json'], root);
    assert.equal(restored.code, 0);
    assert.equal((JSON.parse(restored.stdout) as { restored: unknown[] }).restored.length, 1);
    assert.equal(readFileSync(join(cacheDir, 'abc.tar.zst'), 'utf8'), 'bytes');
  }
});

test('lockguard quarantine: usage errors teach, --help explains', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  assert.equal((await cli(['quarantine'], root)).code, 2);
  assert.equal((await cli(['quarantine', 'drop'], root)).code, 2);
  const noRun = await cli(['quarantine', 'restore'], root);
  assert.equal(noRun.code, 2);
  assert.match(noRun.stderr, /--run/);
  assert.equal((await cli(['quarantine', 'restore', '--run', 'missing'], root)).code, 2);
  assert.equal((await cli(['quarantine', 'list', '--run', 'missing'], root)).code, 2);
  const help = await cli(['quarantine', '--help'], root);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /never overwritten/);
  assert.equal(existsSync(join(root, '.lockguard')), false);
});
