// ledger/prune.ts against real ledgers: what is kept and why, what goes, the lockfile copies, what a killed
// prune left aside, a run started during the prune, and links where the ledger's folders belong.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { createRun, listRunIds, newRunId, runIdAt, type RunKind } from '../../lib/ledger/ledger.js';
import { processStart, registerLive } from '../../lib/ledger/live.js';
import { PRUNED_PREFIX } from '../../lib/ledger/ledger-layout.js';
import { pruneLedger } from '../../lib/ledger/prune.js';
import { codeOf } from '../helpers/errors.js';
import { exited } from '../helpers/ledger-runs.js';
import { fileDigests, pnpmTree, tempWorkspace } from '../helpers/workspace.js';

const LOCK_A = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";
const LOCK_B = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n# b\n";
const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A run as a lockguard process that has ended leaves it. */
function run(root: string, kind: RunKind, lockfile: string): string {
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), lockfile);
  const handle = createRun({ kind, table: readWorkspaceFingerprints(root) });
  exited(handle.dir);
  return handle.record.id;
}

/**
 * A run id stamped `minutesAgo` before now (newRunId never goes back in time), a microsecond before the
 * millisecond: stamped at the millisecond itself, a run newRunId made next in the same millisecond got the same
 * stamp, and the random suffix then decided which was newer (a flaky "newest", once in CI).
 */
function idAgo(minutesAgo: number): string {
  return runIdAt(
    'run',
    (Date.now() - minutesAgo * 60_000) * 1000 - 1,
    createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 6),
  );
}

/** A run folder with an id stamped `minutesAgo` before now and no record (a creation killed half way). */
function recordless(root: string, minutesAgo: number): string {
  const id = idAgo(minutesAgo);
  fs.mkdirSync(join(root, '.lockguard', 'runs', id));
  fs.writeFileSync(join(root, '.lockguard', 'runs', id, 'events.ndjson'), '');
  return id;
}

test('keeps the newest, the newest of each kind, live, quarantined, named and unreadable runs; removes the rest and the copies only they named', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK_A));
  const snapshotOld = run(root, 'snapshot', LOCK_A);
  const stranded = recordless(root, 120);
  const liveRun = run(root, 'run', LOCK_A);
  const quarantined = run(root, 'run', LOCK_A);
  const named = run(root, 'run', LOCK_A);
  const broken = run(root, 'run', LOCK_A);
  const plain = [run(root, 'run', LOCK_A), run(root, 'run', LOCK_A)];
  const snapshotNew = run(root, 'snapshot', LOCK_B);
  const young = recordless(root, 0);
  const newest = [run(root, 'run', LOCK_B), run(root, 'run', LOCK_B)];
  registerLive(root, {
    dir: join(root, '.lockguard', 'runs', liveRun),
    id: liveRun,
    pid: process.pid,
    pidStart: processStart(process.pid),
    policy: 'withhold',
  });
  fs.mkdirSync(join(root, '.lockguard', 'quarantine', quarantined), { recursive: true });
  fs.writeFileSync(join(root, '.lockguard', 'runs', broken, 'run.json'), '{not json');
  const ledger = join(root, '.lockguard');
  const before = fileDigests(ledger);

  const result = pruneLedger(root, { keep: 2, named });
  const reasons = Object.fromEntries(result.kept.map((run) => [run.id, run.reason]));
  assert.deepEqual(reasons, {
    [newest[1] as string]: 'newest',
    [newest[0] as string]: 'newest',
    [young]: 'unreadable',
    [snapshotNew]: 'newest-of-kind',
    [broken]: 'unreadable',
    [named]: 'named',
    [quarantined]: 'quarantine',
    [liveRun]: 'live',
  });
  assert.match(result.kept.find((run) => run.id === broken)?.problem ?? '', /run\.json/);
  assert.deepEqual(
    result.removed.map((run) => [run.id, run.stranded]),
    [
      [plain[1], false],
      [plain[0], false],
      [snapshotOld, false],
      [stranded, true],
    ],
  );
  assert.ok(result.removed.every((run) => run.stranded || run.bytes > 0));
  assert.deepEqual(listRunIds(root).sort(), Object.keys(reasons).sort());
  // The broken record and the young folder name copies no one can know: every lockfile copy is kept, and the reason given.
  assert.equal(result.blobs.removed, 0);
  assert.match(result.blobs.why ?? '', new RegExp(`${young}|${broken}`));
  // Everything kept is byte for byte what it was; nothing else in the ledger changed.
  const after = fileDigests(ledger);
  for (const [path, digest] of after) assert.equal(before.get(path), digest, path);
  const gone = [...before.keys()].filter((path) => !after.has(path));
  const removedIds = new Set(result.removed.map((run) => run.id));
  assert.ok(gone.length > 0);
  for (const path of gone)
    assert.ok(removedIds.has(path.split('/')[1] ?? ''), `only removed runs' files went: ${path}`);
  assert.deepEqual(
    fs.readdirSync(join(ledger, 'runs')).filter((name) => name.startsWith('.')),
    [],
  );

  // Once the broken run is dealt with by hand (and the young folder with no record is gone: a run being
  // created names a copy no one can know yet), the copies are judged.
  fs.rmSync(join(ledger, 'runs', broken), { recursive: true });
  fs.rmSync(join(ledger, 'runs', young), { recursive: true });
  const again = pruneLedger(root, { keep: 2, named });
  assert.equal(again.blobs.why, undefined);
  const blobs = fs.readdirSync(join(ledger, 'blobs')).sort();
  // LOCK_A is still named by the live, quarantined and named runs.
  assert.deepEqual(blobs, [sha(LOCK_A), sha(LOCK_B)].sort());
  fs.rmSync(join(ledger, 'quarantine', quarantined), { recursive: true });
  const third = pruneLedger(root, { keep: 2, named: join(ledger, 'runs', newest[1] as string) });
  assert.deepEqual(
    third.removed.map((run) => run.id),
    [named, quarantined],
  );
  assert.deepEqual(
    fs.readdirSync(join(ledger, 'blobs')).sort(),
    [sha(LOCK_A), sha(LOCK_B)].sort(),
    'the live run still names LOCK_A',
  );
});

test('a run whose recording process still runs here is kept as live, marker or not (it may be starting)', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK_A));
  // Written by this process, which is alive: between its record and its marker, as far as prune can tell.
  const starting = createRun({ kind: 'run', table: readWorkspaceFingerprints(root) }).record.id;
  const ended = run(root, 'run', LOCK_A);
  for (let i = 0; i < 2; i++) run(root, 'run', LOCK_A);
  const result = pruneLedger(root, { keep: 1 });
  assert.equal(result.kept.find((run) => run.id === starting)?.reason, 'live');
  assert.ok(result.removed.some((run) => run.id === ended));
  assert.ok(listRunIds(root).includes(starting));
});

test('a dry run changes nothing and names exactly what the prune then removes', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK_A));
  for (let i = 0; i < 4; i++) run(root, 'run', LOCK_A);
  for (let i = 0; i < 3; i++) run(root, 'run', LOCK_B);
  const ledger = join(root, '.lockguard');
  const before = fileDigests(ledger);
  const dry = pruneLedger(root, { keep: 2, dryRun: true });
  assert.deepEqual(fileDigests(ledger), before);
  assert.equal(dry.dryRun, true);
  assert.equal(dry.removed.length, 5);
  assert.deepEqual(dry.blobs, { removed: 1, bytes: LOCK_A.length, kept: 1 });
  const real = pruneLedger(root, { keep: 2 });
  assert.deepEqual(
    real.removed.map((run) => run.id),
    dry.removed.map((run) => run.id),
  );
  assert.deepEqual(real.blobs, dry.blobs);
  assert.deepEqual(fs.readdirSync(join(ledger, 'blobs')), [sha(LOCK_B)]);
  assert.equal(listRunIds(root).length, 2);
});

test('what a killed prune set aside is finished: its runs deleted, its copies deleted or put back when a run names them', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK_A));
  const kept = run(root, 'run', LOCK_A);
  const ledger = join(root, '.lockguard');
  const asideRun = join(ledger, 'runs', `${PRUNED_PREFIX}${newRunId('run')}`);
  fs.mkdirSync(asideRun);
  fs.writeFileSync(join(asideRun, 'run.json'), '{}');
  // LOCK_A's copy was set aside by a prune killed before it could put it back; an unnamed one too.
  fs.renameSync(join(ledger, 'blobs', sha(LOCK_A)), join(ledger, 'blobs', `${PRUNED_PREFIX}${sha(LOCK_A)}`));
  fs.writeFileSync(join(ledger, 'blobs', `${PRUNED_PREFIX}${sha('other')}`), 'other');
  assert.deepEqual(listRunIds(root), [kept], 'a run set aside is no run');
  const result = pruneLedger(root, { keep: 5 });
  assert.equal(result.finished, 1);
  assert.deepEqual(fs.readdirSync(join(ledger, 'runs')), [kept]);
  assert.deepEqual(fs.readdirSync(join(ledger, 'blobs')), [sha(LOCK_A)]);
  assert.equal(fs.readFileSync(join(ledger, 'blobs', sha(LOCK_A)), 'utf8'), LOCK_A);
  assert.equal(fs.existsSync(join(ledger, 'live')), false, 'the lock is released and live/ gone');
});

test('a run started while the copies are set aside keeps the copy it names', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK_A));
  run(root, 'run', LOCK_A);
  for (let i = 0; i < 2; i++) run(root, 'run', LOCK_B);
  let started: string | undefined;
  const result = pruneLedger(root, {
    keep: 2,
    afterSetAside: () => {
      // LOCK_A is back in the workspace and a run starts with it. Had it looked for the copy a moment
      // earlier, it would have found it and written none: its fresh copy is removed to stand for that, so
      // the only copy is the one set aside, which the prune must put back.
      started = run(root, 'run', LOCK_A);
      fs.rmSync(join(root, '.lockguard', 'blobs', sha(LOCK_A)));
    },
  });
  assert.ok(started !== undefined);
  assert.equal(result.removed.length, 1);
  assert.deepEqual(fs.readdirSync(join(root, '.lockguard', 'blobs')).sort(), [sha(LOCK_A), sha(LOCK_B)].sort());
  assert.equal(fs.readFileSync(join(root, '.lockguard', 'blobs', sha(LOCK_A)), 'utf8'), LOCK_A);
});

test('a run started after the set-aside whose record is not written yet keeps every copy', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK_A));
  run(root, 'run', LOCK_A);
  for (let i = 0; i < 2; i++) run(root, 'run', LOCK_B);
  const result = pruneLedger(root, {
    keep: 2,
    // A folder that never gets its record (its creator is stuck): which copy it will name is unknown.
    afterSetAside: () => fs.mkdirSync(join(root, '.lockguard', 'runs', newRunId('run'))),
  });
  assert.equal(result.removed.length, 1);
  assert.equal(result.blobs.removed, 0);
  assert.deepEqual(fs.readdirSync(join(root, '.lockguard', 'blobs')).sort(), [sha(LOCK_A), sha(LOCK_B)].sort());
});

test('links where the ledger keeps runs or copies: refused before anything is removed, and never followed', async (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK_A));
  const outside = tempWorkspace(t, { 'run.json': 'theirs', 'keep.txt': 'theirs' });
  for (let i = 0; i < 3; i++) run(root, 'run', LOCK_A);
  const ledger = join(root, '.lockguard');
  // A run folder that is a link to a folder outside: kept (unreadable), and the outside untouched.
  const linked = idAgo(180);
  fs.symlinkSync(outside, join(ledger, 'runs', linked));
  const result = pruneLedger(root, { keep: 0 });
  assert.equal(result.kept.find((run) => run.id === linked)?.reason, 'unreadable');
  assert.deepEqual([...fileDigests(outside).keys()].sort(), ['keep.txt', 'run.json']);
  fs.unlinkSync(join(ledger, 'runs', linked));
  // Set-aside names planted as links to the outside: the links go, what they point at stays.
  fs.symlinkSync(outside, join(ledger, 'runs', `${PRUNED_PREFIX}${linked}`));
  fs.symlinkSync(join(outside, 'keep.txt'), join(ledger, 'blobs', `${PRUNED_PREFIX}${sha('x')}`));
  assert.equal(pruneLedger(root, { keep: 0 }).finished, 1);
  assert.deepEqual([...fileDigests(outside).keys()].sort(), ['keep.txt', 'run.json']);
  assert.deepEqual(
    fs.readdirSync(join(ledger, 'runs')).filter((name) => name.startsWith('.')),
    [],
  );
  assert.deepEqual(
    fs.readdirSync(join(ledger, 'blobs')).filter((name) => name.startsWith('.')),
    [],
  );
  // `blobs` a link: refused with the path, and no run removed.
  for (let i = 0; i < 3; i++) run(root, 'run', LOCK_A);
  const runsBefore = listRunIds(root);
  fs.renameSync(join(ledger, 'blobs'), join(outside, 'blobs'));
  fs.symlinkSync(join(outside, 'blobs'), join(ledger, 'blobs'));
  assert.equal(await codeOf(() => pruneLedger(root, { keep: 0 })), 'ERR_LOCKGUARD_UNSAFE_LEDGER');
  assert.deepEqual(listRunIds(root), runsBefore);
  assert.deepEqual(fs.readdirSync(join(outside, 'blobs')), [sha(LOCK_A)]);
  // `runs` a link: refused too.
  fs.unlinkSync(join(ledger, 'blobs'));
  fs.renameSync(join(ledger, 'runs'), join(outside, 'runs'));
  fs.symlinkSync(join(outside, 'runs'), join(ledger, 'runs'));
  assert.equal(await codeOf(() => pruneLedger(root, { keep: 0 })), 'ERR_LOCKGUARD_UNSAFE_LEDGER');
  assert.equal(fs.readdirSync(join(outside, 'runs')).length, runsBefore.length);
});
