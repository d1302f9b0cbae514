// GuardSession's early checks: a file caught mid-write is a suspect, not a move; a difference that holds
// still is a move dated by its first sighting; the final check decides the rest. Real files, a real
// ledger, and `lockguard run` around a writer that truncates and then writes (as npm writes its hidden
// lockfile), which a CI machine once caught between the two.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { GuardSession, SETTLE_MS } from '../../lib/ledger/session.js';
import { readEvents } from '../../lib/ledger/ledger.js';
import { cliProcess } from '../helpers/cli.js';
import { sleep, tempWorkspace, waitFor } from '../helpers/workspace.js';

const HIDDEN = 'node_modules/.package-lock.json';
const LOCK = `${JSON.stringify({ name: 'root', lockfileVersion: 3, requires: true, packages: { '': { name: 'root' } } }, null, 2)}\n`;
const HIDDEN_BYTES = `${JSON.stringify({ name: 'root', lockfileVersion: 3, requires: true, packages: {} }, null, 2)}\n`;

/** An npm workspace whose install is in step with its lockfile. */
function npmWorkspace(t: Parameters<typeof tempWorkspace>[0]): string {
  return tempWorkspace(t, {
    'package.json': '{"name":"root","private":true}\n',
    'package-lock.json': LOCK,
    node_modules: { '.package-lock.json': HIDDEN_BYTES },
  });
}

/** The session's move, read through a call (so an earlier `assert.equal(move, undefined)` narrows nothing). */
const moveOf = (guard: GuardSession) => guard.move;

function session(t: { after(fn: () => void): void }, root: string): GuardSession {
  const guard = new GuardSession(readWorkspaceFingerprints(root), 'withhold', ['test']);
  t.after(() => guard.close());
  return guard;
}

test('a marker caught empty mid-write, then holding its old bytes again, is no move; a gate refuses only meanwhile', async (t) => {
  const root = npmWorkspace(t);
  const guard = session(t, root);
  const path = join(root, HIDDEN);
  fs.truncateSync(path, 0);
  guard.check('fs-event', Date.now());
  assert.equal(guard.move, undefined, 'an empty file seen once is a suspect');
  assert.equal(guard.admits(), false, 'a request while it may be mid-write is refused');
  fs.writeFileSync(path, HIDDEN_BYTES);
  await sleep(SETTLE_MS + 50);
  assert.equal(guard.admits(), true);
  assert.equal(guard.finish(), undefined);
  assert.deepEqual(
    readEvents(guard.run.dir).filter((event) => event.type === 'moved'),
    [],
  );
});

test('a lockfile that holds other bytes is a move once it held still, dated by the first sighting, before the command ends', async (t) => {
  const root = npmWorkspace(t);
  const guard = session(t, root);
  fs.appendFileSync(join(root, 'package-lock.json'), ' ');
  const first = Date.now();
  guard.check('fs-event', first);
  assert.equal(guard.move, undefined);
  // The session looks again by itself once the file could have held still.
  await waitFor(() => guard.move !== undefined, 5_000, 'the confirmation');
  const move = moveOf(guard);
  assert.deepEqual(
    move?.files.map((file) => [file.path, file.kind]),
    [['package-lock.json', 'rewritten']],
  );
  assert.equal(move?.evidence, 'fs-event');
  assert.ok((move?.at ?? Infinity) <= first, 'the moment is the first sighting (or the write before it)');
  // Written back: still moved (every key taken meanwhile folded the other bytes).
  fs.writeFileSync(join(root, 'package-lock.json'), LOCK);
  assert.equal(guard.finish()?.files.length, 1);
  assert.equal(guard.admits(), false);
});

test('a file still changing at every look is left to the final check, which counts it', (t) => {
  const root = npmWorkspace(t);
  const guard = session(t, root);
  const path = join(root, 'package-lock.json');
  for (let i = 0; i < 3; i++) {
    fs.appendFileSync(path, ' '.repeat(i + 1));
    guard.check('fs-event', Date.now());
    assert.equal(guard.move, undefined);
  }
  guard.stop();
  const move = guard.finish();
  assert.deepEqual(
    move?.files.map((file) => file.path),
    ['package-lock.json'],
  );
  assert.equal(move?.evidence, 'exit');
});

/** A child that rewrites `file` three times, truncating first and writing `bytes` 60 ms later. */
function slowWriter(file: string, bytes: string): string[] {
  const script = `const fs = require('fs'); const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
for (let i = 0; i < 3; i++) { const fd = fs.openSync(${JSON.stringify(file)}, 'w'); pause(60); fs.writeSync(fd, ${JSON.stringify(bytes)}); fs.closeSync(fd); pause(80); }`;
  return ['run', '--', process.execPath, '-e', script];
}

test('lockguard run: a writer that truncates and then writes the same bytes reports nothing; other bytes are reported', (t) => {
  const root = npmWorkspace(t);
  const same = cliProcess(slowWriter(HIDDEN, HIDDEN_BYTES), root, undefined, 30_000);
  assert.equal(same.code, 0, same.stderr);
  assert.equal(same.stderr, '', 'nothing changed: nothing said');
  // The hidden lockfile in other bytes that still agree with package-lock.json: an install, no move.
  const other = cliProcess(slowWriter(HIDDEN, HIDDEN_BYTES.replace('root', 'moved')), root, undefined, 30_000);
  assert.equal(other.code, 0, other.stderr);
  assert.ok(
    other.stderr
      .split('\n')
      .includes(
        '[lockguard] installed: node_modules/.package-lock.json rewritten; no input changed, so nothing was withheld or refused',
      ),
    other.stderr,
  );
  // The lockfile itself, written the same way in other bytes: a move.
  const lock = cliProcess(slowWriter('package-lock.json', LOCK.replace('root', 'moved')), root, undefined, 30_000);
  assert.equal(lock.code, 0, lock.stderr);
  assert.match(lock.stderr, /\[lockguard\] a task rewrote package-lock\.json during the run, which every key folds: /);
});

test('judged on inputs: a marker rewritten by an install that leaves the lockfile as it was is no move; the gate admits; the final check says what it did', async (t) => {
  const root = npmWorkspace(t);
  const guard = new GuardSession(readWorkspaceFingerprints(root), 'withhold', ['test'], { judged: 'inputs' });
  t.after(() => guard.close());
  let detected = 0;
  guard.onDetect(() => detected++);
  fs.writeFileSync(join(root, HIDDEN), HIDDEN_BYTES.replace('root', 'moved'));
  guard.check('fs-event', Date.now());
  await sleep(SETTLE_MS + 50);
  assert.equal(guard.admits(), true, 'an install marker is no reason to refuse a request');
  assert.equal(guard.finish(), undefined);
  assert.equal(detected, 0);
  assert.deepEqual(
    guard.installed.map((file) => [file.path, file.kind]),
    [[HIDDEN, 'rewritten']],
  );
  assert.deepEqual(
    readEvents(guard.run.dir)
      .map((event) => event.type)
      .filter((type) => type === 'moved' || type === 'installed'),
    ['installed'],
  );
});

test('judged on inputs: a marker gone at the end leaves a tree that does not hold the lockfile: a move, with why', (t) => {
  const root = npmWorkspace(t);
  const guard = new GuardSession(readWorkspaceFingerprints(root), 'withhold', ['test'], { judged: 'inputs' });
  t.after(() => guard.close());
  fs.rmSync(join(root, HIDDEN));
  const move = guard.finish();
  assert.deepEqual(
    move?.files.map((file) => [file.path, file.kind]),
    [[HIDDEN, 'went']],
  );
  assert.equal(move?.tree?.lockfile, 'package-lock.json');
});

test('judged on inputs: a lockfile move seen while the command runs is said once, through onDetect', async (t) => {
  const root = npmWorkspace(t);
  const guard = new GuardSession(readWorkspaceFingerprints(root), 'withhold', ['test'], { judged: 'inputs' });
  t.after(() => guard.close());
  const seen: string[][] = [];
  guard.onDetect((move) => seen.push(move.files.map((file) => file.path)));
  fs.appendFileSync(join(root, 'package-lock.json'), ' ');
  guard.check('fs-event', Date.now());
  await waitFor(() => guard.move !== undefined, 5_000, 'the confirmation');
  fs.appendFileSync(join(root, 'package-lock.json'), ' ');
  guard.check('fs-event', Date.now());
  guard.finish();
  assert.deepEqual(seen, [['package-lock.json']]);
});
