// The journal's promise, state by state: a unit a killed pass or restore left in flight is settled from
// where its files are, never left split between cache and quarantine, never losing a byte; restore works
// from a partial journal; a lock held by a live process is respected, a dead holder's is taken over.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { acquireLock } from '../../../lib/ledger/ledger-lock.js';
import { processStart } from '../../../lib/ledger/live.js';
import { appendJournal, readJournal, unitId, type IntentLine } from '../../../lib/ledger/quarantine/journal.js';
import { recordTree, stageOf } from '../../../lib/ledger/quarantine/move.js';
import { repairQuarantine } from '../../../lib/ledger/quarantine/repair.js';
import { restore } from '../../../lib/ledger/quarantine/restore.js';
import { quarantine, quarantineLockName } from '../../../lib/ledger/quarantine/pass.js';
import { listQuarantine } from '../../../lib/ledger/quarantine/list.js';
import { machineStamp, trustedPlaces } from '../../../lib/ledger/trust.js';
import { tempWorkspace } from '../../helpers/workspace.js';
import { turboEntry, write } from '../../helpers/runner-caches.js';

const PATHS = (key: string): string[] => [`${key}.tar.zst`, `${key}-meta.json`, `${key}-manifest.json`];

/** A turbo entry in the cache and its intent in a run's journal, nothing moved yet (a pass killed right after its fsync). */
function announced(root: string, key: string): { cache: string; dir: string; home: string; intent: IntentLine } {
  const cache = join(root, 'cache');
  turboEntry(cache, key);
  const dir = join(root, '.lockguard', 'quarantine', 'r1');
  mkdirSync(dir, { recursive: true });
  const files = PATHS(key).flatMap((path) => recordTree(cache, path));
  const intent: IntentLine = {
    op: 'intent',
    unit: unitId('turbo', key),
    t: Date.now(),
    runner: 'turbo',
    key,
    cacheDir: cache,
    paths: PATHS(key),
    files,
    size: 1,
    reason: 'test',
    ...machineStamp(),
  };
  appendJournal(dir, [intent], true);
  return { cache, dir, home: join(dir, 'entries', 'turbo', key), intent };
}

function stateOf(dir: string, key: string): string | undefined {
  return readJournal(dir).units.find((unit) => unit.intent.key === key)?.state;
}

function where(cache: string, home: string, key: string): string[] {
  return PATHS(key).map(
    (path) => `${existsSync(join(cache, path)) ? 'C' : '-'}${existsSync(join(home, path)) ? 'Q' : '-'}`,
  );
}

/** The test cache as the one trusted place (trust.ts). */
function placesOf(root: string): ReturnType<typeof trustedPlaces> {
  return trustedPlaces(root, [{ runner: 'turbo', dir: join(root, 'cache') }]);
}

/** A pid that is certainly dead (a process that has exited). */
function deadPid(): number {
  const child = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' });
  return Number(child.stdout.trim());
}

test('announced, nothing moved: settled as not moved, the entry whole in the cache', (t) => {
  const root = tempWorkspace(t);
  const { cache, dir, home } = announced(root, 'aaaa000000000001');
  assert.equal(stateOf(dir, 'aaaa000000000001'), 'moving');
  assert.deepEqual(repairQuarantine(dir, placesOf(root)), { settled: 1, stuck: [] });
  assert.equal(stateOf(dir, 'aaaa000000000001'), 'not-moved');
  assert.deepEqual(where(cache, home, 'aaaa000000000001'), ['C-', 'C-', 'C-']);
});

test('split between cache and quarantine: finished into quarantine (the run had decided to withhold it)', (t) => {
  const root = tempWorkspace(t);
  const key = 'bbbb000000000002';
  const { cache, dir, home } = announced(root, key);
  mkdirSync(home, { recursive: true });
  renameSync(join(cache, `${key}.tar.zst`), join(home, `${key}.tar.zst`));
  assert.deepEqual(where(cache, home, key), ['-Q', 'C-', 'C-']);
  repairQuarantine(dir, placesOf(root));
  assert.equal(stateOf(dir, key), 'withheld');
  assert.deepEqual(where(cache, home, key), ['-Q', '-Q', '-Q']);
  assert.equal(listQuarantine(root)[0]?.manifest?.entries.length, 1);
});

test('a torn copy under its stage name is removed, never taken for an entry', (t) => {
  const root = tempWorkspace(t);
  const key = 'cccc000000000003';
  const { cache, dir, home } = announced(root, key);
  mkdirSync(home, { recursive: true });
  writeFileSync(stageOf(join(home, `${key}.tar.zst`)), '');
  repairQuarantine(dir, placesOf(root));
  assert.equal(existsSync(stageOf(join(home, `${key}.tar.zst`))), false);
  assert.equal(stateOf(dir, key), 'not-moved');
  assert.deepEqual(where(cache, home, key), ['C-', 'C-', 'C-']);
});

test('a verified copy in quarantine whose source removal was cut short: the leftover in the cache goes', (t) => {
  const root = tempWorkspace(t);
  const key = 'dddd000000000004';
  const { cache, dir, home } = announced(root, key);
  mkdirSync(home, { recursive: true });
  for (const path of PATHS(key)) writeFileSync(join(home, path), readFileSync(join(cache, path)));
  repairQuarantine(dir, placesOf(root));
  assert.equal(stateOf(dir, key), 'withheld');
  assert.deepEqual(where(cache, home, key), ['-Q', '-Q', '-Q']);
});

test('a new save the runner made since (other bytes under the same name) is never touched', (t) => {
  const root = tempWorkspace(t);
  const key = 'eeee000000000005';
  const { cache, dir, home } = announced(root, key);
  mkdirSync(home, { recursive: true });
  renameSync(join(cache, `${key}.tar.zst`), join(home, `${key}.tar.zst`));
  writeFileSync(join(cache, `${key}.tar.zst`), 'a fresh save by the runner');
  repairQuarantine(dir, placesOf(root));
  assert.equal(stateOf(dir, key), 'withheld');
  assert.equal(readFileSync(join(cache, `${key}.tar.zst`), 'utf8'), 'a fresh save by the runner');
});

test('a restore cut short is undone (the entry whole in quarantine again), then restores cleanly', async (t) => {
  const root = tempWorkspace(t);
  const cache = join(root, 'cache');
  const key = 'ffff000000000006';
  turboEntry(cache, key);
  await quarantine(root, 'r2', [{ runner: 'turbo', key, cacheDir: cache, paths: PATHS(key), reason: 'test' }]);
  const dir = join(root, '.lockguard', 'quarantine', 'r2');
  const home = join(dir, 'entries', 'turbo', key);
  appendJournal(dir, [{ op: 'restore', unit: unitId('turbo', key), t: Date.now() }], true);
  renameSync(join(home, `${key}.tar.zst`), join(cache, `${key}.tar.zst`));
  assert.equal(stateOf(dir, key), 'restoring');
  repairQuarantine(dir, placesOf(root));
  assert.equal(stateOf(dir, key), 'withheld');
  assert.deepEqual(where(cache, home, key), ['-Q', '-Q', '-Q']);
  assert.equal(restore(root, 'r2', { places: placesOf(root) }).restored.length, 1);
  assert.deepEqual(where(cache, home, key), ['C-', 'C-', 'C-']);
});

test("restore from a partial journal: a dead holder's lock is taken over, its units settled, then all put back", async (t) => {
  const root = tempWorkspace(t);
  const cache = join(root, 'cache');
  const keys = ['1111000000000001', '2222000000000002', '3333000000000003'];
  for (const key of keys) turboEntry(cache, key);
  const bytes = keys.flatMap((key) => PATHS(key).map((path) => readFileSync(join(cache, path))));
  // A pass moved the first entry, announced the other two, moved half of the second, and was killed.
  await quarantine(root, 'r3', [
    { runner: 'turbo', key: keys[0] ?? '', cacheDir: cache, paths: PATHS(keys[0] ?? ''), reason: 'test' },
  ]);
  const dir = join(root, '.lockguard', 'quarantine', 'r3');
  const intents = keys.slice(1).map(
    (key): IntentLine => ({
      op: 'intent',
      unit: unitId('turbo', key),
      t: Date.now(),
      runner: 'turbo',
      key,
      cacheDir: cache,
      paths: PATHS(key),
      files: PATHS(key).flatMap((path) => recordTree(cache, path)),
      size: 1,
      reason: 'test',
      ...machineStamp(),
    }),
  );
  appendJournal(dir, intents, true);
  mkdirSync(join(dir, 'entries', 'turbo', keys[1] ?? ''), { recursive: true });
  renameSync(join(cache, `${keys[1]}.tar.zst`), join(dir, 'entries', 'turbo', keys[1] ?? '', `${keys[1]}.tar.zst`));
  mkdirSync(join(root, '.lockguard', 'live'), { recursive: true });
  writeFileSync(
    join(root, '.lockguard', 'live', `.lock-${quarantineLockName('r3')}`),
    JSON.stringify({ pid: deadPid(), pidStart: 1, t: Date.now() - 60_000, ...machineStamp() }),
  );
  assert.equal(listQuarantine(root)[0]?.inFlight, 2);
  const result = restore(root, 'r3', { places: placesOf(root) });
  assert.deepEqual(result.restored.map((entry) => entry.key).sort(), keys.slice(0, 2));
  assert.deepEqual(
    keys.flatMap((key) => PATHS(key).map((path) => readFileSync(join(cache, path)))),
    bytes,
    'every byte back under its name',
  );
  assert.equal(existsSync(join(root, '.lockguard', 'live', `.lock-${quarantineLockName('r3')}`)), false);
});

test('a lock held by a live process is respected (ERR_LOCKGUARD_BUSY); a garbage lock from a dead writer is taken over', (t) => {
  const root = tempWorkspace(t);
  mkdirSync(join(root, '.lockguard', 'live'), { recursive: true });
  const path = join(root, '.lockguard', 'live', '.lock-x');
  writeFileSync(
    path,
    JSON.stringify({ pid: process.pid, pidStart: processStart(process.pid), t: Date.now(), ...machineStamp() }),
  );
  assert.throws(() => acquireLock(root, 'x'), { code: 'ERR_LOCKGUARD_BUSY' });
  writeFileSync(path, JSON.stringify({ pid: deadPid(), pidStart: 1, t: 0, ...machineStamp() }));
  const lock = acquireLock(root, 'x');
  assert.equal(lock.tookOver, true);
  lock.release();
  assert.equal(existsSync(path), false);
  write(path, '');
  // An empty lock is a writer killed between two syscalls (or a moment ago): broken once it is old, with
  // nothing to repair (its holder never began its work).
  spawnSync('touch', ['-d', '1 minute ago', path]);
  const taken = acquireLock(root, 'x');
  assert.equal(taken.tookOver, false);
  assert.ok(readFileSync(path, 'utf8').includes(String(process.pid)), 'the lock is ours now');
  taken.release();
});
