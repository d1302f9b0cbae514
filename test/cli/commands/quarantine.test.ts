import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { acquireLock } from '../../../lib/ledger/ledger-lock.js';
import { processStart, registerLive, unregisterLive } from '../../../lib/ledger/live.js';
import { quarantine, quarantineLockName } from '../../../lib/ledger/quarantine/index.js';
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
  await quarantine(root, 'run-1', [
    { runner: 'turbo', key: 'abc', task: 'b#build', cacheDir, paths: ['abc.tar.zst'], reason: 'test' },
  ]);
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

test("lockguard quarantine drop deletes a run's withheld entries, leaves the rest, and the run can then be pruned", async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const cacheDir = join(root, '.turbo', 'cache');
  write(join(cacheDir, 'abc.tar.zst'), 'bytes');
  write(join(cacheDir, 'def.tar.zst'), 'other');
  await quarantine(root, 'run-1', [
    { runner: 'turbo', key: 'abc', task: 'b#build', cacheDir, paths: ['abc.tar.zst'], reason: 'test' },
  ]);
  await quarantine(root, 'run-2', [
    { runner: 'turbo', key: 'def', task: 'c#build', cacheDir, paths: ['def.tar.zst'], reason: 'test' },
  ]);
  const noRun = await cli(['quarantine', 'drop'], root);
  assert.equal(noRun.code, 2);
  assert.match(noRun.stderr, /drop needs --run/);
  const dropped = await cli(['quarantine', 'drop', '--run', 'run-1'], root);
  assert.equal(dropped.code, 0, dropped.stderr);
  assert.match(dropped.stdout, /^dropped the quarantine of run-1: 1 withheld entry deleted\n$/);
  const listed = JSON.parse((await cli(['quarantine', 'list', '--json'], root)).stdout) as { run: string }[];
  assert.deepEqual(
    listed.map((run) => run.run),
    ['run-2'],
  );
  assert.deepEqual(readdirSync(join(root, '.lockguard', 'quarantine')), ['run-2']);
  assert.equal(existsSync(join(cacheDir, 'abc.tar.zst')), false, 'the entry is not put back');
  assert.equal((await cli(['quarantine', 'restore', '--run', 'run-1'], root)).code, 2);
  assert.equal((await cli(['quarantine', 'drop', '--run', 'run-1'], root)).code, 2, 'twice is no quarantine');
  assert.equal(existsSync(join(root, '.lockguard', 'live')), false, 'the lock is released');
});

test('lockguard quarantine drop: names that are no run, a set-aside leftover, a live run, a held lock', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const cacheDir = join(root, '.turbo', 'cache');
  write(join(cacheDir, 'abc.tar.zst'), 'bytes');
  await quarantine(root, 'run-1', [{ runner: 'turbo', key: 'abc', cacheDir, paths: ['abc.tar.zst'], reason: 'test' }]);
  const ledger = join(root, '.lockguard');
  for (const name of ['..', '.', '.dropped-run-1', '../runs', 'run-1/..']) {
    const result = await cli(['quarantine', 'drop', '--run', name], root);
    assert.equal(result.code, 2, `${name}: ${result.stderr}`);
    assert.equal((await cli(['quarantine', 'restore', '--run', name], root)).code, 2, `restore ${name}`);
    assert.ok(existsSync(join(ledger, 'quarantine', 'run-1', 'journal.ndjson')), `${name}: nothing dropped`);
  }
  // What a killed drop left aside is finished by the next one; one planted as a link to the outside goes
  // as a link, its target untouched.
  mkdirSync(join(ledger, 'quarantine', '.dropped-run-0', 'entries'), { recursive: true });
  const outside = tempWorkspace(t, { 'mine.txt': 'mine' });
  symlinkSync(outside, join(ledger, 'quarantine', '.dropped-run-9'));
  // A live run (this process) is refused; its quarantine stays.
  registerLive(root, {
    dir: join(ledger, 'runs', 'run-1'),
    id: 'run-1',
    pid: process.pid,
    pidStart: processStart(process.pid),
    policy: 'withhold',
  });
  const live = await cli(['quarantine', 'drop', '--run', 'run-1'], root);
  assert.equal(live.code, 2);
  assert.match(live.stderr, /still live/);
  unregisterLive(root, 'run-1');
  // A marker not made on this machine (it may be live on another host): refused too, nothing changed.
  mkdirSync(join(ledger, 'live'), { recursive: true });
  writeFileSync(
    join(ledger, 'live', 'run-1'),
    JSON.stringify({
      dir: join(ledger, 'runs', 'run-1'),
      id: 'run-1',
      pid: process.pid,
      pidStart: 1,
      policy: 'withhold',
      host: 'another-host',
      boot: 'x',
    }),
  );
  const foreign = await cli(['quarantine', 'drop', '--run', 'run-1'], root);
  assert.equal(foreign.code, 2);
  assert.match(foreign.stderr, /live marker not made on this machine/);
  assert.ok(existsSync(join(ledger, 'quarantine', 'run-1', 'journal.ndjson')));
  unregisterLive(root, 'run-1');
  // Another process working on it holds its lock: refused, nothing changed.
  const lock = acquireLock(root, quarantineLockName('run-1'));
  const busy = await cli(['quarantine', 'drop', '--run', 'run-1'], root);
  lock.release();
  assert.equal(busy.code, 2);
  assert.match(busy.stderr, /Another lockguard process/);
  assert.ok(existsSync(join(ledger, 'quarantine', 'run-1', 'journal.ndjson')));
  const done = await cli(['quarantine', 'drop', '--run', 'run-1', '--json'], root);
  assert.equal(done.code, 0, done.stderr);
  assert.deepEqual(JSON.parse(done.stdout), {
    run: 'run-1',
    withheld: 1,
    restored: 0,
    unreadableLines: 0,
    finished: 2,
  });
  assert.deepEqual(readdirSync(join(ledger, 'quarantine')), []);
  assert.equal(readFileSync(join(outside, 'mine.txt'), 'utf8'), 'mine');
  // A garbage journal is no reason to keep a quarantine: dropped, said uncounted, never printed.
  mkdirSync(join(ledger, 'quarantine', 'run-2'));
  writeFileSync(join(ledger, 'quarantine', 'run-2', 'journal.ndjson'), '\u0000garbage{secret-token-1234');
  const garbage = await cli(['quarantine', 'drop', '--run', 'run-2'], root);
  assert.equal(garbage.code, 0, garbage.stderr);
  assert.match(garbage.stdout, /0 withheld entries deleted; 1 line\(s\) of its journal could not be read/);
  assert.doesNotMatch(`${garbage.stdout}${garbage.stderr}`, /secret-token/);
  assert.deepEqual(readdirSync(join(ledger, 'quarantine')), []);
  // A journal that is no file at all: dropped, said uncounted.
  mkdirSync(join(ledger, 'quarantine', 'run-3', 'journal.ndjson'), { recursive: true });
  const folder = await cli(['quarantine', 'drop', '--run', 'run-3'], root);
  assert.equal(folder.code, 0, folder.stderr);
  assert.match(folder.stdout, /its journal was unreadable, so its entries were deleted uncounted/);
  assert.deepEqual(readdirSync(join(ledger, 'quarantine')), []);
});
