// Quarantine: entries go in whole, come back exactly, and a restore never overwrites.

import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { quarantine, quarantineLockName } from '../../../lib/ledger/quarantine/pass.js';
import { listQuarantine } from '../../../lib/ledger/quarantine/list.js';
import { restore } from '../../../lib/ledger/quarantine/restore.js';
import { isLockguardError } from '../../../lib/core/errors.js';
import { trustedPlaces } from '../../../lib/ledger/trust.js';
import { tempWorkspace } from '../../helpers/workspace.js';
import { write } from '../../helpers/runner-caches.js';

/** The test cache as the trusted place of both runners it holds entries of (trust.ts). */
function placesOf(root: string): ReturnType<typeof trustedPlaces> {
  return trustedPlaces(root, [
    { runner: 'turbo', dir: join(root, 'cache') },
    { runner: 'pnpm-pipeline', dir: join(root, 'cache') },
  ]);
}

function entryTree(cacheDir: string): void {
  write(join(cacheDir, 'tasks', 'ab', 'abcd', 'meta.json'), '{"version":2}');
  write(join(cacheDir, 'tasks', 'ab', 'abcd', 'outputs', 'dist', 'out.json'), '{"tinyDep":"6.0.0"}');
  write(join(cacheDir, 'tasks', 'ab', 'abcd', 'outputs', 'bin.dat'), Buffer.from([0, 1, 2, 255]).toString('latin1'));
  chmodSync(join(cacheDir, 'tasks', 'ab', 'abcd', 'outputs', 'bin.dat'), 0o640);
  symlinkSync('dist/out.json', join(cacheDir, 'tasks', 'ab', 'abcd', 'outputs', 'link'));
}

test('restore puts an entry back exactly: names, bytes, modes, links', async (t) => {
  const root = tempWorkspace(t);
  const cacheDir = join(root, 'cache');
  entryTree(cacheDir);
  const files = ['meta.json', 'outputs/dist/out.json', 'outputs/bin.dat'].map((p) =>
    join(cacheDir, 'tasks', 'ab', 'abcd', p),
  );
  const bytes = files.map((f) => readFileSync(f));
  const modes = files.map((f) => statSync(f).mode);
  const result = await quarantine(root, 'run-1', [
    { runner: 'pnpm-pipeline', key: 'abcd', cacheDir, paths: ['tasks/ab/abcd'], reason: 'test' },
  ]);
  assert.equal(result.moved.length, 1);
  assert.equal(result.moved[0]?.files.filter((f) => f.kind === 'file').length, 3);
  assert.equal(existsSync(join(cacheDir, 'tasks', 'ab', 'abcd')), false);
  {
    // Listed with its manifest.
    const [listing] = listQuarantine(root);
    assert.equal(listing?.run, 'run-1');
    assert.deepEqual(
      listing?.manifest?.entries.map((e) => e.key),
      ['abcd'],
    );
  }
  {
    // Back, byte for byte.
    const back = restore(root, 'run-1', { places: placesOf(root) });
    assert.equal(back.restored.length, 1);
    assert.deepEqual(
      files.map((f) => readFileSync(f)),
      bytes,
    );
    assert.deepEqual(
      files.map((f) => statSync(f).mode),
      modes,
    );
    assert.equal(readlinkSync(join(cacheDir, 'tasks', 'ab', 'abcd', 'outputs', 'link')), 'dist/out.json');
    assert.equal(
      existsSync(join(root, '.lockguard', 'quarantine', 'run-1', 'entries', 'pnpm-pipeline', 'abcd')),
      false,
    );
  }
  {
    // A second restore says so and changes nothing.
    const again = restore(root, 'run-1', { places: placesOf(root) });
    assert.deepEqual(again.restored, []);
    assert.equal(again.skipped[0]?.reason, 'already-restored');
    assert.ok(listQuarantine(root)[0]?.manifest?.entries[0]?.restoredAt);
  }
});

test('a restore into a cache that already holds the entry does not overwrite it', async (t) => {
  const root = tempWorkspace(t);
  const cacheDir = join(root, 'cache');
  write(join(cacheDir, 'abc.tar.zst'), 'stale');
  write(join(cacheDir, 'abc-meta.json'), 'stale meta');
  await quarantine(root, 'run-2', [
    {
      runner: 'turbo',
      key: 'abc',
      cacheDir,
      paths: ['abc.tar.zst', 'abc-meta.json', 'abc-manifest.json'],
      reason: 'test',
    },
  ]);
  write(join(cacheDir, 'abc.tar.zst'), 'fresh');
  const result = restore(root, 'run-2', { entry: 'abc', places: placesOf(root) });
  assert.deepEqual(result.restored, []);
  assert.equal(result.skipped[0]?.reason, 'already-in-cache');
  assert.equal(readFileSync(join(cacheDir, 'abc.tar.zst'), 'utf8'), 'fresh');
  assert.equal(existsSync(join(cacheDir, 'abc-meta.json')), false);
  assert.equal(
    readFileSync(join(root, '.lockguard', 'quarantine', 'run-2', 'entries', 'turbo', 'abc', 'abc.tar.zst'), 'utf8'),
    'stale',
  );
});

test('an entry changed while in quarantine is not restored', async (t) => {
  const root = tempWorkspace(t);
  const cacheDir = join(root, 'cache');
  write(join(cacheDir, 'k1.tar.zst'), 'original');
  await quarantine(root, 'run-3', [{ runner: 'turbo', key: 'k1', cacheDir, paths: ['k1.tar.zst'], reason: 'test' }]);
  writeFileSync(join(root, '.lockguard', 'quarantine', 'run-3', 'entries', 'turbo', 'k1', 'k1.tar.zst'), 'tampered');
  const result = restore(root, 'run-3', { places: placesOf(root) });
  assert.equal(result.skipped[0]?.reason, 'changed-in-quarantine');
  assert.equal(existsSync(join(cacheDir, 'k1.tar.zst')), false);
});

test('units that would leave the cache dir or cross a symlink are not moved', async (t) => {
  const root = tempWorkspace(t, { outside: { 'file.txt': 'keep' } });
  const cacheDir = join(root, 'cache');
  write(join(cacheDir, 'inner', 'x'), 'x');
  symlinkSync(join(root, 'outside'), join(cacheDir, 'linked'));
  const result = await quarantine(root, 'run-4', [
    { runner: 'turbo', key: 'up', cacheDir, paths: ['../outside/file.txt'], reason: 'test' },
    { runner: 'turbo', key: 'abs', cacheDir, paths: [join(root, 'outside', 'file.txt')], reason: 'test' },
    { runner: 'turbo', key: 'via', cacheDir, paths: ['linked/file.txt'], reason: 'test' },
    { runner: 'turbo', key: 'link', cacheDir, paths: ['linked'], reason: 'test' },
    { runner: 'turbo', key: '../bad', cacheDir, paths: ['inner/x'], reason: 'test' },
  ]);
  assert.deepEqual(result.moved, []);
  assert.deepEqual(
    result.notMoved.map((n) => n.reason),
    ['outside-cache-dir', 'outside-cache-dir', 'symlink', 'symlink', 'outside-cache-dir'],
  );
  assert.equal(readFileSync(join(root, 'outside', 'file.txt'), 'utf8'), 'keep');
  assert.ok(lstatSync(join(cacheDir, 'linked')).isSymbolicLink());
  assert.ok(existsSync(join(cacheDir, 'inner', 'x')));
});

test('unknown run, unknown entry and a garbage journal are clear, and the files stay', async (t) => {
  const root = tempWorkspace(t);
  assert.throws(
    () => restore(root, 'nope', { places: placesOf(root) }),
    (e: unknown) => isLockguardError(e) && e.code === 'ERR_LOCKGUARD_BAD_RUN',
  );
  assert.throws(
    () => restore(root, '../x', { places: placesOf(root) }),
    (e: unknown) => isLockguardError(e) && e.code === 'ERR_LOCKGUARD_USAGE',
  );
  const cacheDir = join(root, 'cache');
  write(join(cacheDir, 'k.tar.zst'), 'k');
  await quarantine(root, 'run-5', [{ runner: 'turbo', key: 'k', cacheDir, paths: ['k.tar.zst'], reason: 'test' }]);
  assert.throws(
    () => restore(root, 'run-5', { entry: 'other', places: placesOf(root) }),
    (e: unknown) => isLockguardError(e) && e.code === 'ERR_LOCKGUARD_USAGE',
  );
  writeFileSync(join(root, '.lockguard', 'quarantine', 'run-5', 'journal.ndjson'), '{"op":"intent",\nnot json\n');
  assert.throws(
    () => restore(root, 'run-5', { entry: 'k', places: placesOf(root) }),
    (e: unknown) => isLockguardError(e) && e.code === 'ERR_LOCKGUARD_USAGE',
  );
  assert.match(listQuarantine(root)[0]?.problem ?? '', /2 line\(s\) of its journal could not be read/);
  assert.ok(existsSync(join(root, '.lockguard', 'quarantine', 'run-5', 'entries', 'turbo', 'k', 'k.tar.zst')));
});

test('a lockguard 0.1 manifest (no journal) still lists, but is not restored: nothing ties it to this machine', async (t) => {
  const root = tempWorkspace(t);
  const cacheDir = join(root, 'cache');
  write(join(cacheDir, 'abc.tar.zst'), 'bytes');
  await quarantine(root, 'run-6', [{ runner: 'turbo', key: 'abc', cacheDir, paths: ['abc.tar.zst'], reason: 'test' }]);
  const dir = join(root, '.lockguard', 'quarantine', 'run-6');
  const [entry] = listQuarantine(root)[0]?.manifest?.entries ?? [];
  rmSync(join(dir, 'journal.ndjson'));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ version: 1, run: 'run-6', root, entries: [entry] }));
  assert.deepEqual(
    listQuarantine(root)[0]?.manifest?.entries.map((e) => e.key),
    ['abc'],
  );
  const result = restore(root, 'run-6', { places: placesOf(root) });
  assert.deepEqual(result.restored, []);
  assert.equal(result.skipped[0]?.reason, 'foreign');
  assert.match(result.skipped[0]?.detail ?? '', /entries\/turbo\/abc/, 'says where its files are');
  assert.equal(existsSync(join(cacheDir, 'abc.tar.zst')), false);
  assert.equal(readFileSync(join(dir, 'entries', 'turbo', 'abc', 'abc.tar.zst'), 'utf8'), 'bytes');
});

test('a pass that lost every entry to a concurrent run leaves no quarantine behind (nothing pins its run against prune)', async (t) => {
  const root = tempWorkspace(t);
  const cacheDir = join(root, 'cache');
  write(join(cacheDir, 'gone1.tar.zst'), 'one');
  write(join(cacheDir, 'gone2.tar.zst'), 'two');
  // A concurrent run takes each entry between this pass's intent and its move (the rename finds nothing).
  const rename = (from: string, to: string): void => {
    rmSync(from, { force: true });
    renameSync(from, to);
  };
  const result = await quarantine(
    root,
    'run-lost',
    ['gone1', 'gone2'].map((key) => ({ runner: 'turbo', key, cacheDir, paths: [`${key}.tar.zst`], reason: 'test' })),
    { rename },
  );
  assert.deepEqual(result.moved, []);
  assert.equal(result.notMoved.length, 2);
  assert.equal(existsSync(join(root, '.lockguard', 'quarantine', 'run-lost')), false, 'no empty quarantine left');
  assert.deepEqual(listQuarantine(root), []);
  // Entries already gone before the pass: no folder either.
  await quarantine(root, 'run-none', [
    { runner: 'turbo', key: 'never', cacheDir, paths: ['never.tar.zst'], reason: 'test' },
  ]);
  assert.equal(existsSync(join(root, '.lockguard', 'quarantine', 'run-none')), false);
  // A quarantine that holds something stays, even when a later pass for the same run moved nothing.
  write(join(cacheDir, 'kept.tar.zst'), 'kept');
  await quarantine(root, 'run-kept', [
    { runner: 'turbo', key: 'kept', cacheDir, paths: ['kept.tar.zst'], reason: 'test' },
  ]);
  await quarantine(root, 'run-kept', [
    { runner: 'turbo', key: 'gone3', cacheDir, paths: ['gone3.tar.zst'], reason: 'test' },
  ]);
  assert.ok(existsSync(join(root, '.lockguard', 'quarantine', 'run-kept', 'entries', 'turbo', 'kept', 'kept.tar.zst')));
});

test("a failed move that cannot be settled keeps the run's lock (the next command repairs it), and says so by its state", async (t) => {
  const root = tempWorkspace(t);
  const cacheDir = join(root, 'cache');
  write(join(cacheDir, 'torn.tar.zst'), 'torn');
  write(join(cacheDir, 'after.tar.zst'), 'after');
  // The move fails with a link left where the entry was: neither side can be proven ours, so it stays in flight.
  const rename = (from: string): void => {
    rmSync(from, { force: true });
    symlinkSync('elsewhere', from);
    throw new Error('the disk went away');
  };
  const result = await quarantine(
    root,
    'run-torn',
    ['torn', 'after'].map((key) => ({ runner: 'turbo', key, cacheDir, paths: [`${key}.tar.zst`], reason: 'test' })),
    { rename },
  );
  assert.deepEqual(result.moved, []);
  assert.ok(result.fault !== undefined, 'a move left in flight is a fault: the pass stops');
  assert.deepEqual(
    result.notMoved.map((n) => [n.key, n.reason]),
    [
      ['torn', 'error'],
      ['after', 'error'],
    ],
  );
  assert.match(result.notMoved[0]?.detail ?? '', /^in flight: .*the disk went away/, 'the words stay for the report');
  const lock = join(root, '.lockguard', 'live', `.lock-${quarantineLockName('run-torn')}`);
  assert.ok(existsSync(lock), 'the lock stays held: a later command takes it over and repairs the unit');
  assert.ok(existsSync(join(root, '.lockguard', 'quarantine', 'run-torn', 'journal.ndjson')), 'the journal is kept');
});
