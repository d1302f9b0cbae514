// The run ledger: creation, atomicity, validation, and finding runs.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import {
  appendEvent,
  createRun,
  loadRun,
  readEvents,
  ensureLedger,
  listRunIds,
  newRunId,
  runIdAt,
  runIdTime,
} from '../../lib/ledger/ledger.js';
import { findRun } from '../../lib/ledger/find-run.js';
import { readBlob } from '../../lib/ledger/blobs.js';
import { findLiveRuns, listMarkers, registerLive, unregisterLive, processStart } from '../../lib/ledger/live.js';
import { verifyRun } from '../../lib/ledger/verdict.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";

test('a new ledger ignores itself in git, and a run leaves no stage files', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const run = createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root, { scope: 'inputs' }) });
  assert.equal(fs.readFileSync(join(root, '.lockguard/.gitignore'), 'utf8'), '*\n');
  assert.deepEqual(fs.readdirSync(run.dir).sort(), ['events.ndjson', 'run.json']);
  assert.equal(loadRun(run.dir).record.key, run.record.key);
  // The lockfile's bytes are kept by digest for later diffs.
  assert.equal(readBlob(root, run.record.entries[0]?.digest ?? ('' as never))?.toString(), LOCK);
});

test('a garbage run record is a clear error naming the file', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const run = createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root) });
  fs.writeFileSync(join(run.dir, 'run.json'), '{not json');
  assert.throws(() => loadRun(run.dir), { code: 'ERR_LOCKGUARD_BROKEN_LEDGER', path: join(run.dir, 'run.json') });
  fs.writeFileSync(join(run.dir, 'run.json'), '{"version":1,"entries":"nope"}');
  assert.throws(() => findRun(root, undefined, undefined, 'snapshot'), { code: 'ERR_LOCKGUARD_BROKEN_LEDGER' });
});

test('.lockguard that is a file is refused, not replaced', (t) => {
  const root = tempWorkspace(t, { ...pnpmTree(LOCK), '.lockguard': 'mine' });
  assert.throws(() => ensureLedger(root), { code: 'ERR_LOCKGUARD_BROKEN_LEDGER', path: join(root, '.lockguard') });
  assert.equal(fs.readFileSync(join(root, '.lockguard'), 'utf8'), 'mine');
});

test('findRun: explicit id, LOCKGUARD_RUN folder, latest snapshot; missing and foreign runs refused', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const other = tempWorkspace(t, pnpmTree(LOCK));
  const first = createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root) });
  const second = createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root) });
  const foreign = createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(other) });
  assert.equal(findRun(root, undefined, undefined, 'snapshot').record.id, second.record.id);
  assert.equal(findRun(root, first.record.id, undefined).record.id, first.record.id);
  assert.equal(findRun(root, undefined, first.dir).record.id, first.record.id);
  assert.throws(() => findRun(root, undefined, join(root, 'nowhere')), { code: 'ERR_LOCKGUARD_BAD_RUN' });
  assert.throws(() => findRun(root, undefined, foreign.dir), { code: 'ERR_LOCKGUARD_BAD_RUN' });
  const empty = tempWorkspace(t, pnpmTree(LOCK));
  assert.throws(() => findRun(empty, undefined, undefined, 'snapshot'), { code: 'ERR_LOCKGUARD_NO_SNAPSHOT' });
});

test('run ids sort by creation within one microsecond: a forced tie is broken by creation order, never the random suffix', (t) => {
  // A clock stuck on one microsecond (a little ahead of now, so the wall clock cannot move past it).
  const stuck = Date.now() * 1000 + 5_000_000;
  const ids = Array.from({ length: 40 }, (_, i) => newRunId(i % 2 === 0 ? 'run' : 'snapshot', () => stuck));
  assert.deepEqual([...ids].sort(), ids, 'lexical order is creation order');
  assert.equal(new Set(ids.map((id) => id.slice(0, 15))).size, 1, 'all in one second of the stuck clock');
  assert.match(ids[0] ?? '', /^\d{8}T\d{12}Z-run-[0-9a-f]{6}$/);
  // Through the ledger: runs created back to back (many within one millisecond) come back newest first.
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const table = readWorkspaceFingerprints(root, { scope: 'inputs' });
  const created = Array.from(
    { length: 25 },
    (_, i) => createRun({ kind: i % 3 === 0 ? 'run' : 'snapshot', table }).record.id,
  );
  assert.deepEqual(listRunIds(root), [...created].reverse());
  assert.equal(findRun(root, undefined, undefined).record.id, created.at(-1));
  assert.equal(
    findRun(root, undefined, undefined, 'run').record.id,
    created.filter((id) => id.includes('-run-')).at(-1),
  );
  // Ids written by lockguard 0.1 (millisecond stamps) are still listed.
  fs.mkdirSync(join(root, '.lockguard/runs/20200101T000000000Z-snapshot-abcdef'));
  assert.equal(listRunIds(root).at(-1), '20200101T000000000Z-snapshot-abcdef');
});

test('a torn last event line (a run killed mid-append) is skipped, the rest kept', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const run = createRun({ kind: 'run', table: readWorkspaceFingerprints(root), policy: 'withhold' });
  appendEvent(run, { type: 'hook', source: 'pnpmfile' });
  fs.appendFileSync(join(run.dir, 'events.ndjson'), '{"t":1,"type":"ho');
  assert.deepEqual(
    readEvents(run.dir).map((event) => event.type),
    ['hook'],
  );
});

test('verify: once a run recorded a move it stays moved, across processes', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const run = createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root, { scope: 'inputs' }) });
  assert.equal(verifyRun(run).save, true);
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), `${LOCK}# edited\n`);
  const moved = verifyRun(run);
  assert.equal(moved.save, false);
  assert.deepEqual(
    moved.moved.map((file) => [file.path, file.kind]),
    [['pnpm-lock.yaml', 'rewritten']],
  );
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), LOCK);
  assert.equal(verifyRun(loadRun(run.dir)).save, false);
});

test('live markers: found while the process lives; a dead or untrusted one is no live run, and stays as evidence', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  assert.deepEqual(findLiveRuns(root), []);
  fs.mkdirSync(join(root, '.lockguard'));
  const dir = (id: string): string => join(root, '.lockguard', 'runs', id);
  registerLive(root, {
    dir: dir('a'),
    id: 'a',
    pid: process.pid,
    pidStart: processStart(process.pid),
    policy: 'refuse',
  });
  registerLive(root, { dir: dir('b'), id: 'b', pid: process.pid, pidStart: 1, policy: 'flag' });
  registerLive(root, { dir: dir('c'), id: 'c', pid: process.pid, pidStart: null, policy: 'flag' });
  registerLive(root, {
    dir: join(root, 'elsewhere'),
    id: 'd',
    pid: process.pid,
    pidStart: processStart(process.pid),
    policy: 'flag',
  });
  fs.writeFileSync(join(root, '.lockguard/live/garbage'), 'not json');
  assert.deepEqual(
    findLiveRuns(root).map((run) => run.id),
    ['a'],
  );
  {
    // A reused pid (another start time), a marker with no start time, or one naming a run folder outside the
    // ledger is never live; the dead one stays until the next command finishes its run.
    const markers = listMarkers(root);
    assert.deepEqual(markers.map((m) => [m.name, m.alive, m.run !== undefined]).sort(), [
      ['a', true, true],
      ['b', false, true],
      ['c', false, false],
      ['d', false, false],
      ['garbage', false, false],
    ]);
    assert.equal(fs.existsSync(join(root, '.lockguard/live/b')), true);
  }
  for (const id of ['a', 'b', 'c', 'd', 'garbage']) unregisterLive(root, id);
  unregisterLive(root, 'none');
  assert.equal(fs.existsSync(join(root, '.lockguard/live')), false, 'the live folder goes with its last marker');
});

test('a live folder that is a symlink is never read through', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const elsewhere = tempWorkspace(t);
  fs.mkdirSync(join(root, '.lockguard'));
  fs.writeFileSync(
    join(elsewhere, 'x'),
    JSON.stringify({
      dir: join(root, '.lockguard', 'runs', 'x'),
      id: 'x',
      pid: process.pid,
      pidStart: processStart(process.pid),
      policy: 'refuse',
    }),
  );
  fs.symlinkSync(elsewhere, join(root, '.lockguard', 'live'));
  assert.deepEqual(findLiveRuns(root), []);
  assert.deepEqual(listMarkers(root), []);
});

test('runIdTime reads back the time runIdAt and newRunId stamp (to the millisecond); no stamp is 0', () => {
  for (const ms of [0, 1_796_138_556_160, Date.UTC(2026, 11, 31, 23, 59, 59, 999)]) {
    const id = runIdAt('snapshot', ms * 1000 + 123, 'abcdef');
    assert.match(id, /^\d{8}T\d{12}Z-snapshot-abcdef$/);
    assert.equal(runIdTime(id), ms);
  }
  // Never before now (an earlier test in this process may have pushed the ids' clock ahead, never back).
  const before = Date.now();
  assert.ok(runIdTime(newRunId('run')) >= before);
  assert.equal(runIdTime('not-a-run'), 0);
});
