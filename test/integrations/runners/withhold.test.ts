// The withholding pass on synthetic caches in the runners' real layouts: what moves, what stays, and bad input.

import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  cacheState,
  resolvePipelineCache,
  tasksAfterMove,
  withhold,
  type RunnerCache,
} from '../../../lib/integrations/runners/index.js';
import { isLockguardError } from '../../../lib/core/errors.js';
import { tempWorkspace } from '../../helpers/workspace.js';
import { age, nxEntry, pipelineEntry, turboEntry, write } from '../../helpers/runner-caches.js';

function turboCache(root: string): RunnerCache {
  return {
    runner: 'turbo',
    root,
    dir: join(root, '.turbo', 'cache'),
    source: 'default',
    summaries: join(root, '.turbo', 'runs'),
  };
}

const HOUR = 3_600_000;

test('turbo: only entries this run wrote at or after the move are withheld, as whole units', async (t) => {
  const root = tempWorkspace(t);
  const cache = turboCache(root);
  turboEntry(cache.dir, 'aaaa000000000001'); // from an earlier run
  const before = cacheState(cache);
  const runStartedAt = Date.now() - HOUR;
  turboEntry(cache.dir, 'bbbb000000000002'); // this run, before the move
  age(join(cache.dir, 'bbbb000000000002.tar.zst'), runStartedAt + 1000);
  const movedAt = runStartedAt + 2000;
  turboEntry(cache.dir, 'cccc000000000003'); // this run, after the move
  const result = await withhold(cache, before, { movedAt, runStartedAt, runEndedAt: Date.now() + 1000, runId: 'r1' });
  assert.deepEqual(
    result.withheld.map((entry) => entry.key),
    ['cccc000000000003'],
  );
  assert.equal(result.keptBeforeMove, 1);
  assert.deepEqual(result.withheld[0]?.paths, [
    'cccc000000000003.tar.zst',
    'cccc000000000003-meta.json',
    'cccc000000000003-manifest.json',
  ]);
  for (const suffix of ['.tar.zst', '-meta.json', '-manifest.json']) {
    assert.equal(existsSync(join(cache.dir, `cccc000000000003${suffix}`)), false);
    assert.equal(
      existsSync(
        join(
          root,
          '.lockguard',
          'quarantine',
          'r1',
          'entries',
          'turbo',
          'cccc000000000003',
          `cccc000000000003${suffix}`,
        ),
      ),
      true,
    );
    assert.equal(existsSync(join(cache.dir, `aaaa000000000001${suffix}`)), true);
    assert.equal(existsSync(join(cache.dir, `bbbb000000000002${suffix}`)), true);
  }
  assert.equal(readFileSync(join(root, '.lockguard', '.gitignore'), 'utf8'), '*\n');
});

test('turbo: an entry of a task running across the move is withheld even when written before it', async (t) => {
  const root = tempWorkspace(t);
  const cache = turboCache(root);
  const before = cacheState(cache);
  const runStartedAt = Date.now() - HOUR;
  turboEntry(cache.dir, 'dddd000000000004');
  age(join(cache.dir, 'dddd000000000004.tar.zst'), runStartedAt + 1000);
  const result = await withhold(cache, before, {
    movedAt: runStartedAt + 5000,
    runStartedAt,
    runEndedAt: Date.now() + 1000,
    runId: 'r2',
    runningAcrossMove: ['dddd000000000004'],
  });
  assert.deepEqual(
    result.withheld.map((entry) => entry.key),
    ['dddd000000000004'],
  );
});

test('nothing moves when nothing was written after the move, or when the entry predates the run', async (t) => {
  const root = tempWorkspace(t);
  const cache = turboCache(root);
  const before = cacheState(cache);
  const now = Date.now();
  turboEntry(cache.dir, 'eeee000000000005');
  age(join(cache.dir, 'eeee000000000005.tar.zst'), now - 10 * HOUR); // not in `before`, but older than the run
  const result = await withhold(cache, before, {
    movedAt: now - HOUR,
    runStartedAt: now - 2 * HOUR,
    runEndedAt: now + 1000,
    runId: 'r3',
  });
  assert.deepEqual(result.withheld, []);
  assert.equal(result.quarantineDir, undefined);
  assert.equal(existsSync(join(root, '.lockguard', 'quarantine')), false);
});

test('a symlinked entry pointing outside the cache is never followed and never moved', async (t) => {
  const root = tempWorkspace(t, { outside: { 'secret.bin': 'outside bytes' } });
  const cache = turboCache(root);
  const before = cacheState(cache);
  const now = Date.now();
  mkdirSync(cache.dir, { recursive: true });
  symlinkSync(join(root, 'outside', 'secret.bin'), join(cache.dir, 'ffff000000000006.tar.zst'));
  write(join(cache.dir, 'ffff000000000006-meta.json'), '{}');
  const result = await withhold(cache, before, {
    movedAt: now - HOUR,
    runStartedAt: now - 2 * HOUR,
    runEndedAt: now + 1000,
    runId: 'r4',
  });
  assert.deepEqual(result.withheld, []);
  assert.equal(result.notMoved[0]?.reason, 'symlink');
  assert.ok(lstatSync(join(cache.dir, 'ffff000000000006.tar.zst')).isSymbolicLink());
  assert.equal(readFileSync(join(root, 'outside', 'secret.bin'), 'utf8'), 'outside bytes');
  assert.ok(existsSync(join(cache.dir, 'ffff000000000006-meta.json')));
});

test('a pipeline shard that is a symlink is never listed through', async (t) => {
  const root = tempWorkspace(t, { outside: {} });
  const cache: RunnerCache = { runner: 'pnpm-pipeline', root, dir: join(root, 'pcache'), source: 'test' };
  const before = cacheState(cache);
  pipelineEntry(join(root, 'outside-cache'), `ab${'0'.repeat(62)}`);
  mkdirSync(join(cache.dir, 'tasks'), { recursive: true });
  symlinkSync(join(root, 'outside-cache', 'tasks', 'ab'), join(cache.dir, 'tasks', 'ab'));
  const now = Date.now();
  const result = await withhold(cache, before, {
    movedAt: now - HOUR,
    runStartedAt: now - 2 * HOUR,
    runEndedAt: now + 1000,
    runId: 'r5',
  });
  assert.deepEqual(result.withheld, []);
  assert.ok(existsSync(join(root, 'outside-cache', 'tasks', 'ab', `ab${'0'.repeat(62)}`, 'meta.json')));
});

test('a missing cache dir is an empty state; a cache dir that is a file is a clear error and nothing moves', async (t) => {
  const root = tempWorkspace(t);
  const cache = turboCache(root);
  const state = cacheState(cache);
  assert.equal(state.exists, false);
  assert.equal(state.entries.size, 0);
  const now = Date.now();
  assert.deepEqual(
    (await withhold(cache, state, { movedAt: now, runStartedAt: now, runEndedAt: now, runId: 'r6' })).withheld,
    [],
  );
  write(join(root, '.turbo', 'cache'), 'not a folder');
  assert.throws(
    () => cacheState(cache),
    (error: unknown) => isLockguardError(error) && error.code === 'ERR_LOCKGUARD_IO' && error.path === cache.dir,
  );
  assert.equal(readFileSync(cache.dir, 'utf8'), 'not a folder');
});

test('nx: the entry folder and its terminal output move together; the task DB is left alone', async (t) => {
  const root = tempWorkspace(t);
  const cache: RunnerCache = { runner: 'nx', root, dir: join(root, '.nx', 'cache'), source: 'default' };
  write(join(root, '.nx', 'workspace-data', 'x-v6.db'), 'sqlite bytes');
  const before = cacheState(cache);
  nxEntry(cache.dir, '13845629775271854330');
  write(join(cache.dir, 'run.json'), '{}');
  const now = Date.now();
  const result = await withhold(cache, before, {
    movedAt: now - HOUR,
    runStartedAt: now - 2 * HOUR,
    runEndedAt: now + 1000,
    runId: 'r7',
  });
  assert.deepEqual(
    result.withheld.map((entry) => entry.paths),
    [['13845629775271854330', 'terminalOutputs/13845629775271854330']],
  );
  assert.equal(existsSync(join(cache.dir, '13845629775271854330')), false);
  assert.equal(existsSync(join(cache.dir, 'terminalOutputs', '13845629775271854330')), false);
  assert.ok(existsSync(join(cache.dir, 'run.json')));
  assert.equal(readFileSync(join(root, '.nx', 'workspace-data', 'x-v6.db'), 'utf8'), 'sqlite bytes');
});

test("nx shared cache: with own keys from the summary, a concurrent checkout's saves stay", async (t) => {
  const root = tempWorkspace(t);
  const cache: RunnerCache = {
    runner: 'nx',
    root,
    dir: join(root, 'home', '.nx', 'abc', 'cache'),
    source: 'test',
    shared: true,
  };
  const before = cacheState(cache);
  nxEntry(cache.dir, '111');
  nxEntry(cache.dir, '222');
  const now = Date.now();
  const result = await withhold(cache, before, {
    movedAt: now - HOUR,
    runStartedAt: now - 2 * HOUR,
    runEndedAt: now + 1000,
    runId: 'r8',
    ownKeys: ['111'],
  });
  assert.deepEqual(
    result.withheld.map((entry) => entry.key),
    ['111'],
  );
  assert.ok(existsSync(join(cache.dir, '222')));
});

test("pnpm pipeline: another workspace's entries, written in the same window, are untouched", async (t) => {
  const root = tempWorkspace(t, { ws1: {}, ws2: {} });
  const env = { XDG_CACHE_HOME: join(root, 'xdg') };
  const one = resolvePipelineCache(join(root, 'ws1'), env);
  const two = resolvePipelineCache(join(root, 'ws2'), env);
  assert.notEqual(one.dir, two.dir);
  const before = cacheState(one);
  const k1 = 'a1'.padEnd(64, '1');
  const k2 = 'b2'.padEnd(64, '2');
  pipelineEntry(one.dir, k1);
  pipelineEntry(two.dir, k2);
  const now = Date.now();
  const result = await withhold(one, before, {
    movedAt: now - HOUR,
    runStartedAt: now - 2 * HOUR,
    runEndedAt: now + 1000,
    runId: 'r9',
    ledgerRoot: join(root, 'ws1'),
  });
  assert.deepEqual(
    result.withheld.map((entry) => entry.key),
    [k1],
  );
  assert.deepEqual(result.withheld[0]?.paths, [`tasks/a1/${k1}`]);
  assert.ok(existsSync(join(two.dir, 'tasks', 'b2', k2, 'meta.json')));
});

test('EXDEV: rename across file systems falls back to copy, verify, remove, with the same bytes', async (t) => {
  const root = tempWorkspace(t);
  const cache: RunnerCache = { runner: 'nx', root, dir: join(root, '.nx', 'cache'), source: 'default' };
  const before = cacheState(cache);
  nxEntry(cache.dir, '42');
  const original = readFileSync(join(cache.dir, '42', 'packages', 'b', 'dist', 'out.json'));
  const exdev = (): never => {
    throw Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' });
  };
  const now = Date.now();
  const result = await withhold(cache, before, {
    movedAt: now - HOUR,
    runStartedAt: now - 2 * HOUR,
    runEndedAt: now + 1000,
    runId: 'r10',
    rename: exdev,
  });
  assert.deepEqual(
    result.withheld.map((entry) => entry.key),
    ['42'],
  );
  assert.equal(existsSync(join(cache.dir, '42')), false);
  assert.deepEqual(
    readFileSync(
      join(root, '.lockguard', 'quarantine', 'r10', 'entries', 'nx', '42', '42', 'packages', 'b', 'dist', 'out.json'),
    ),
    original,
  );
});

test('a rename that fails midway puts the unit back whole and reports it', async (t) => {
  const root = tempWorkspace(t);
  const cache = turboCache(root);
  const before = cacheState(cache);
  turboEntry(cache.dir, '9999000000000009');
  let calls = 0;
  const flaky = (from: string, to: string): void => {
    calls++;
    if (calls === 2) throw Object.assign(new Error('EIO'), { code: 'EIO' });
    renameSync(from, to);
  };
  const now = Date.now();
  const result = await withhold(cache, before, {
    movedAt: now - HOUR,
    runStartedAt: now - 2 * HOUR,
    runEndedAt: now + 1000,
    runId: 'r11',
    rename: flaky,
  });
  assert.deepEqual(result.withheld, []);
  assert.equal(result.notMoved[0]?.reason, 'error');
  for (const suffix of ['.tar.zst', '-meta.json', '-manifest.json'])
    assert.ok(existsSync(join(cache.dir, `9999000000000009${suffix}`)), suffix);
});

test('corrupt or missing run summaries are notes, never crashes', async (t) => {
  const root = tempWorkspace(t, {
    '.turbo': { runs: { 'x.json': '{not json' } },
    '.nx': { cache: { 'run.json': '[[[' } },
  });
  const now = Date.now();
  const turbo = tasksAfterMove(turboCache(root), { movedAt: now, runStartedAt: now - HOUR });
  assert.deepEqual(turbo.tasks, []);
  assert.match(turbo.note ?? '', /not valid JSON/);
  const nx = tasksAfterMove(
    { runner: 'nx', root, dir: join(root, '.nx', 'cache'), source: 'default' },
    { movedAt: now, runStartedAt: now - HOUR },
  );
  assert.deepEqual(nx.tasks, []);
  assert.match(nx.note ?? '', /not valid JSON/);
  const pipeline: RunnerCache = {
    runner: 'pnpm-pipeline',
    root,
    dir: join(root, 'p'),
    source: 'test',
    summaries: join(root, 'p', 'runs'),
  };
  const id = `${now}-abc`;
  write(
    join(root, 'p', 'runs', id, 'events.ndjson'),
    [
      JSON.stringify({ event: 'taskStarted', task: 'packages/b#build', key: 'k1', at: now + 10 }),
      '{torn',
      JSON.stringify({
        event: 'taskFinished',
        task: 'packages/b#build',
        status: 'passed',
        cache: 'miss',
        at: now + 20,
      }),
    ].join('\n'),
  );
  const reading = tasksAfterMove(pipeline, { movedAt: now, runStartedAt: now - 1 });
  assert.deepEqual(reading.tasks, [{ task: 'packages/b#build', key: 'k1', action: 'saved', at: now + 20 }]);
  assert.match(reading.note ?? '', /1 unreadable line/);
  assert.equal(reading.firstTaskAt, now + 10);
  const missing = tasksAfterMove(turboCache(tempWorkspace(t)), { movedAt: now, runStartedAt: now });
  assert.match(missing.note ?? '', /--summarize/);
});

test('a symlink inside an nx entry moves as a link: its target outside the cache is never read or moved', async (t) => {
  const root = tempWorkspace(t, { outside: { 'target.txt': 'outside' } });
  const cache: RunnerCache = { runner: 'nx', root, dir: join(root, '.nx', 'cache'), source: 'default' };
  const before = cacheState(cache);
  nxEntry(cache.dir, '77');
  symlinkSync(join(root, 'outside', 'target.txt'), join(cache.dir, '77', 'link'));
  const now = Date.now();
  const result = await withhold(cache, before, {
    movedAt: now - HOUR,
    runStartedAt: now - 2 * HOUR,
    runEndedAt: now + 1000,
    runId: 'r12',
  });
  const entry = result.withheld[0];
  assert.equal(entry?.files.find((file) => file.path === '77/link')?.kind, 'link');
  assert.equal(entry?.files.find((file) => file.path === '77/link')?.sha256, undefined);
  assert.ok(
    lstatSync(join(root, '.lockguard', 'quarantine', 'r12', 'entries', 'nx', '77', '77', 'link')).isSymbolicLink(),
  );
  assert.equal(readFileSync(join(root, 'outside', 'target.txt'), 'utf8'), 'outside');
});
