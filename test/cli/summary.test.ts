// Long lists are summarised: the first 20 lines and a count of the rest naming --verbose, which prints them
// all; short lists are printed whole (quarantine list and restore, key --write-slices and --check-slices).

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { quarantine } from '../../lib/ledger/quarantine/index.js';
import { cli } from '../helpers/cli.js';
import { write } from '../helpers/runner-caches.js';
import { pnpmProjects, pnpmTree, tempWorkspace } from '../helpers/workspace.js';

const lines = (text: string, pattern: RegExp): number => text.split('\n').filter((line) => pattern.test(line)).length;

test('quarantine list and restore: 45 entries print 20 and a count; --verbose prints 45', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const cacheDir = join(root, '.turbo', 'cache');
  const keys = Array.from({ length: 45 }, (_, i) => `k${String(i).padStart(3, '0')}`);
  for (const key of keys) write(join(cacheDir, `${key}.tar.zst`), key);
  await quarantine(
    root,
    'run-1',
    keys.map((key) => ({ runner: 'turbo' as const, key, cacheDir, paths: [`${key}.tar.zst`], reason: 'test' })),
  );
  const short = await cli(['quarantine', 'list'], root);
  assert.equal(short.code, 0, short.stderr);
  assert.match(short.stdout, /run-1: 45 entries, 45 still withheld/);
  assert.equal(lines(short.stdout, /^ {2}turbo k/), 20);
  assert.match(short.stdout, /^ {2}… and 25 more entries \(--verbose lists them all\)$/m);
  const all = await cli(['quarantine', 'list', '--verbose'], root);
  assert.equal(lines(all.stdout, /^ {2}turbo k/), 45);
  assert.doesNotMatch(all.stdout, /more entries/);
  const restored = await cli(['quarantine', 'restore', '--run', 'run-1'], root);
  assert.equal(restored.code, 0, restored.stderr);
  assert.equal(lines(restored.stdout, /^restored turbo k/), 20);
  assert.match(restored.stdout, /^… and 25 more restored \(--verbose lists them all\)$/m);
});

test('key --write-slices and --check-slices: 30 projects print 20 files and a count; --verbose names all', async (t) => {
  const names = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, `p${i}`]));
  const importers = Object.keys(names)
    .map((name) => `  packages/${name}: {}\n`)
    .join('\n');
  const root = tempWorkspace(t, pnpmProjects(`lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n\n${importers}`, names));
  const check = await cli(['key', '--check-slices'], root);
  assert.equal(check.code, 1, check.stderr);
  assert.equal(lines(check.stdout, /^missing: /), 20);
  assert.match(check.stdout, /^… and 11 more slice files/m);
  assert.match(check.stdout, /31 slice files are not current; fix: lockguard key --write-slices/);
  const named = await cli(['--verbose', 'key', '--check-slices'], root);
  assert.equal(lines(named.stdout, /^missing: /), 31, '--verbose before the command names every file');
  assert.doesNotMatch(named.stdout, /more slice files/);
  const written = await cli(['key', '--write-slices'], root);
  assert.equal(written.code, 0, written.stderr);
  assert.equal(lines(written.stdout, /^wrote /), 20);
  assert.match(written.stdout, /^… and 11 more slice files \(--verbose lists them all\)$/m);
});
