// Finishing runs whose guard died, through the commands (in-process): the evidence and the policy decide
// what is said and withheld; a run whose command still runs, or that another live process is finishing,
// stays unfinished and `status` says so; a marker that names no guarded run is dropped.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { writeGuard } from '../../lib/ledger/guard-record.js';
import { appendEvent, createRun, type Policy, type RunHandle } from '../../lib/ledger/ledger.js';
import { processStart, registerLive } from '../../lib/ledger/live.js';
import { machineStamp } from '../../lib/ledger/trust.js';
import { cli } from '../helpers/cli.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';
import { turboEntry } from '../helpers/runner-caches.js';

function deadPid(): number {
  return Number(spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim());
}

interface Dead {
  readonly root: string;
  readonly run: RunHandle;
  readonly cache: string;
}

/** A guarded run whose guard is gone: its record, what it guarded (a turbo cache), a dead live marker. */
function deadRun(t: Parameters<typeof tempWorkspace>[0], policy: Policy, options: { guard?: boolean } = {}): Dead {
  const root = tempWorkspace(t, pnpmTree());
  const run = createRun({
    kind: 'run',
    table: readWorkspaceFingerprints(root),
    policy,
    command: ['turbo', 'run', 'build'],
  });
  const cache = join(root, '.turbo', 'cache');
  mkdirSync(cache, { recursive: true });
  if (options.guard !== false) {
    writeGuard(run.dir, {
      version: 1,
      runStartedAt: Date.now() - 1000,
      caches: [
        {
          runner: 'turbo',
          root,
          dir: cache,
          source: 'default',
          started: true,
          before: { dir: cache, exists: true, takenAt: Date.now() - 1000, entries: [] },
        },
      ],
    });
  }
  registerLive(root, { dir: run.dir, id: run.record.id, pid: deadPid(), pidStart: 1, policy });
  // The dead guard's command saved two entries (the table never moved: no evidence either way).
  turboEntry(cache, 'aaaa000000000001');
  turboEntry(cache, 'bbbb000000000002');
  return { root, run, cache };
}

interface Status {
  life: { state: string; by?: string; recovery?: { withheld: number; evidence: string; childRunning?: number } };
}

test('no evidence either way: the saves since the run started are withheld, restorably, and the run is finished', async (t) => {
  const { root, run, cache } = deadRun(t, 'withhold');
  const status = await cli(['status', '--run', run.record.id, '--json'], root);
  assert.equal(status.code, 0, status.stderr);
  assert.match(
    status.stderr,
    new RegExp(
      `run ${run.record.id} did not finish: its guard \\(pid \\d+\\) died before its final check, and nothing shows whether its saves were sound: 2 cache saves it made since it started were withheld`,
    ),
  );
  assert.deepEqual(readdirSync(cache), []);
  const data = JSON.parse(status.stdout) as Status;
  assert.equal(data.life.state, 'finished');
  assert.equal(data.life.by, 'recovery');
  assert.equal(data.life.recovery?.withheld, 2);
  assert.equal(data.life.recovery?.evidence, 'none');
  assert.equal(existsSync(join(root, '.lockguard', 'live')), false, 'its marker is gone');
  {
    // Restorable: the two entries come back byte for byte.
    const back = await cli(['quarantine', 'restore', '--run', run.record.id], root);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(readdirSync(cache).length, 6);
  }
  {
    // Nothing more to finish: the next command says nothing about it.
    const again = await cli(['status'], root);
    assert.doesNotMatch(again.stderr, /did not finish/);
  }
});

test('a table that no longer holds what the run read is recorded as a move: verify --run refuses its saves', async (t) => {
  const { root, run } = deadRun(t, 'withhold');
  writeFileSync(join(root, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n# rewritten by a task\n");
  const verify = await cli(['verify', '--run', run.record.id], root);
  assert.match(verify.stderr, /the table no longer holds what it read \(pnpm-lock\.yaml\)/);
  assert.equal(verify.code, 1);
});

test('under policy flag nothing is withheld; without a guard record there is nothing to withhold: both finished, and said', async (t) => {
  {
    const { root, run, cache } = deadRun(t, 'flag');
    const status = await cli(['status', '--run', run.record.id], root);
    assert.match(status.stderr, /its policy was flag, so nothing was withheld/);
    assert.equal(readdirSync(cache).length, 6);
    assert.match(status.stdout, /^life {5}finished for its dead guard by a later lockguard command:$/m);
  }
  {
    const { root, run } = deadRun(t, 'withhold', { guard: false });
    const status = await cli(['status', '--run', run.record.id], root);
    assert.match(status.stderr, /nothing was withheld \(it recorded no guarded caches/);
  }
});

test('its command still runs (an orphan of the dead guard): saves so far are withheld, the run stays unfinished', async (t) => {
  const { root, run, cache } = deadRun(t, 'withhold');
  appendEvent(run, { type: 'child', pid: process.pid, pidStart: processStart(process.pid) });
  const first = await cli(['status', '--run', run.record.id, '--json'], root);
  assert.match(first.stderr, new RegExp(`its command \\(pid ${process.pid}\\) still runs`));
  assert.deepEqual(readdirSync(cache), []);
  const data = JSON.parse(first.stdout) as Status;
  assert.equal(data.life.state, 'dead-unfinished');
  assert.equal(data.life.recovery?.childRunning, process.pid);
  {
    // It saves once more, then ends: the next command withholds that save too and finishes the run.
    turboEntry(cache, 'cccc000000000003');
    appendEvent(run, { type: 'child', pid: deadPid(), pidStart: 1 });
    const next = await cli(['status', '--run', run.record.id, '--json'], root);
    assert.deepEqual(readdirSync(cache), []);
    assert.equal((JSON.parse(next.stdout) as Status).life.state, 'finished');
  }
});

test('a dead run another live process is finishing is left to it, and status shows it dead and unfinished', async (t) => {
  const { root, run, cache } = deadRun(t, 'withhold');
  writeFileSync(
    join(root, '.lockguard', 'live', `.lock-finish-${run.record.id}`),
    JSON.stringify({ pid: process.pid, pidStart: processStart(process.pid), t: Date.now(), ...machineStamp() }),
  );
  const status = await cli(['status', '--run', run.record.id], root);
  assert.equal(status.code, 0);
  assert.match(status.stdout, /^life {5}dead, unfinished: its guard \(pid \d+\) died before its final check/m);
  assert.equal(readdirSync(cache).length, 6, 'left to the process that holds the lock');
});

test('a marker whose run is no guarded run of this workspace is dropped, and said', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const snapshot = createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root, { scope: 'inputs' }) });
  registerLive(root, { dir: snapshot.dir, id: snapshot.record.id, pid: deadPid(), pidStart: 1, policy: 'withhold' });
  const status = await cli(['status'], root);
  assert.match(status.stderr, /removed the live marker .* which names no guarded run/);
  assert.equal(existsSync(join(root, '.lockguard', 'live')), false);
});

test('locks dead processes left that need no repair are released (the idle fast path comes back); planted names are left alone', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root, { scope: 'inputs' }) });
  const live = join(root, '.lockguard', 'live');
  mkdirSync(live);
  const dead = JSON.stringify({ pid: deadPid(), pidStart: 1, t: Date.now() - 60_000, ...machineStamp() });
  // A killed prune, and a finish killed after its run's marker went.
  for (const name of ['prune', 'finish-20261201T000000000000Z-run-abcdef'])
    writeFileSync(join(live, `.lock-${name}`), dead);
  const status = await cli(['status'], root);
  assert.equal(status.code, 0, status.stderr);
  assert.equal(existsSync(live), false, 'live/ is gone: the next command is one failed readdir again');
  // Names no lockguard process takes: no command fails on them, and they stay for a human to look at.
  mkdirSync(live);
  for (const name of ['quarantine-..', 'a b', '.hidden']) writeFileSync(join(live, `.lock-${name}`), dead);
  const again = await cli(['status'], root);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(readdirSync(live).sort(), ['.lock-.hidden', '.lock-a b', '.lock-quarantine-..']);
});
