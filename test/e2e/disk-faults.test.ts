// Disk and permission faults in the ledger are setup errors: a full disk (a small tmpfs), a read-only ledger
// (a read-only bind mount), no permission (an unprivileged user). Each: exit 2 with the path and the fix,
// never 70, never a stack trace; `verify` still answers (and exits by its verdict) with a one-line warning
// when it cannot record; a pass a full disk stops mid-quarantine loses nothing, and the next command
// finishes it once there is room.

import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { createRun } from '../../lib/ledger/ledger.js';
import { cliProcess, type CliResult } from '../helpers/cli.js';
import { scrubbedEnv } from '../helpers/env.js';
import { assertSetupError, codeOf } from '../helpers/errors.js';
import {
  entriesLeft,
  inventory,
  inventoryDifferences,
  mountReadOnly,
  mountTmpfs,
  resizeTmpfs,
  unitsInFlight,
} from '../helpers/crash.js';
import { installOncePerFile, scenario } from '../helpers/runner-scenario.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

const DIST = fileURLToPath(new URL('../../', import.meta.url));

// One install per scenario for the file, a private copy per test (runner-scenario.ts).
installOncePerFile();

function fill(dir: string): void {
  try {
    writeFileSync(join(dir, 'fill'), Buffer.alloc(64 << 20));
  } catch {
    // ENOSPC: the disk is full now, which is the point.
  }
}

test('ENOSPC in the ledger: snapshot and run exit 2 naming it (ERR_LOCKGUARD_DISK); nothing half written is taken for a run', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const ledger = join(root, '.lockguard');
  const unmount = mountTmpfs(t, ledger, 'size=256k');
  try {
    fill(ledger);
    assertSetupError(cliProcess(['snapshot'], root), ledger);
    assertSetupError(cliProcess(['run', '--no-pre-check', '--', 'true'], root), ledger);
    assert.equal(
      await codeOf(() => createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root, { scope: 'inputs' }) })),
      'ERR_LOCKGUARD_DISK',
    );
    // verify finds no run (a failed snapshot left none), and says so plainly.
    assert.equal(cliProcess(['verify'], root).code, 2);
  } finally {
    unmount();
  }
});

test('a read-only ledger: verify still answers by its verdict with a warning; snapshot, run and prune exit 2 (ERR_LOCKGUARD_DISK)', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  assert.equal(cliProcess(['snapshot'], root).code, 0);
  const ledger = join(root, '.lockguard');
  const unmount = mountReadOnly(t, ledger);
  try {
    {
      const ok = cliProcess(['verify'], root);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /nothing moved/);
      assert.match(ok.stderr, /^lockguard: warning: the verdict was not recorded .*read-only/m);
    }
    {
      writeFileSync(join(root, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n# edited\n");
      const moved = cliProcess(['verify', '--json'], root);
      assert.equal(moved.code, 1, moved.stderr);
      assert.equal((JSON.parse(moved.stdout) as { save: boolean }).save, false);
      assert.equal(moved.stderr.split('\n').filter((line) => line.includes('warning')).length, 1);
    }
    assert.equal(cliProcess(['status'], root).code, 0);
    assertSetupError(cliProcess(['snapshot'], root), ledger);
    assertSetupError(cliProcess(['run', '--no-pre-check', '--', 'true'], root), ledger);
    // prune can remove nothing from a read-only ledger: it says so with the path, and the run stays.
    const runs = readdirSync(join(ledger, 'runs'));
    assertSetupError(cliProcess(['prune', '--keep', '0'], root), ledger);
    assert.match(cliProcess(['prune', '--keep', '0'], root).stderr, /read-only/);
    assert.deepEqual(readdirSync(join(ledger, 'runs')), runs);
    assert.equal(
      await codeOf(() => createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root, { scope: 'inputs' }) })),
      'ERR_LOCKGUARD_DISK',
    );
  } finally {
    unmount();
  }
});

test('EACCES as an unprivileged user: snapshot, run, prune and verify exit 2 naming the ledger (ERR_LOCKGUARD_ACCESS; the run record is 0600, its owner only)', (t) => {
  const root = tempWorkspace(t, pnpmTree());
  assert.equal(cliProcess(['snapshot'], root).code, 0);
  // The ledger is root's; the user may read the workspace but not write the ledger.
  for (let dir = root; dir !== dirname(dir); dir = dirname(dir)) {
    if (dir.startsWith('/tmp/') || dir === root) chmodSync(dir, 0o755);
  }
  // What ships, in a folder the unprivileged user can reach (a checkout in a 0700 folder may not be).
  const shipped = tempWorkspace(t, {}, 'lockguard-shipped-');
  chmodSync(shipped, 0o755);
  copyFileSync(join(DIST, 'lockguard.cjs'), join(shipped, 'lockguard.cjs'));
  cpSync(join(DIST, 'cli'), join(shipped, 'cli'), { recursive: true });
  cpSync(join(DIST, 'lib'), join(shipped, 'lib'), { recursive: true });
  writeFileSync(join(shipped, 'package.json'), '{"type":"module"}\n');
  const asUser = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
  const spawn = (args: readonly string[]): SpawnSyncReturns<string> => {
    const [command = process.execPath, ...rest] = [...asUser, process.execPath, ...args];
    return spawnSync(command, rest, {
      cwd: root,
      env: { ...scrubbedEnv(), HOME: shipped },
      encoding: 'utf8',
      timeout: 20_000,
    });
  };
  const cli = (args: readonly string[]): CliResult => {
    const result = spawn([join(shipped, 'lockguard.cjs'), ...args]);
    assert.equal(result.signal, null, 'returned in time');
    return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  };
  const ledger = join(root, '.lockguard');
  assertSetupError(cli(['snapshot']), ledger);
  assertSetupError(cli(['run', '--no-pre-check', '--', 'true']), ledger);
  {
    const runs = readdirSync(join(ledger, 'runs'));
    const prune = cli(['prune', '--keep', '0']);
    assertSetupError(prune, ledger);
    assert.match(prune.stderr, /permission denied|EACCES/i);
    assert.deepEqual(readdirSync(join(ledger, 'runs')), runs, 'nothing removed');
  }
  // The record holds the command (redacted, still the owner's): mode 0600, so another user cannot read it.
  const verify = cli(['verify']);
  assertSetupError(verify, join(ledger, 'runs'));
  assert.match(verify.stderr, /run\.json": permission denied \(EACCES\)/);
  const script = `import { readWorkspaceFingerprints } from ${JSON.stringify(join(shipped, 'lib', 'core', 'fingerprints.js'))};
import { createRun } from ${JSON.stringify(join(shipped, 'lib', 'ledger', 'ledger.js'))};
try { createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(process.cwd(), { scope: 'inputs' }) }); console.log('no error'); } catch (e) { console.log(e.code); }`;
  const library = spawn(['--input-type=module', '-e', script]);
  assert.equal(library.stdout.trim(), 'ERR_LOCKGUARD_ACCESS', library.stderr);
});

test('ENOSPC in the middle of the withholding pass: exit 2 with the path and the fix, nothing lost; the next command finishes it once there is room', async (t) => {
  const s = scenario(t, 'turbo');
  const cacheDir = join(s.root, '.turbo', 'cache');
  const quarantineDir = join(s.root, '.lockguard', 'quarantine');
  mkdirSync(quarantineDir, { recursive: true });
  const unmount = mountTmpfs(t, quarantineDir, 'size=1m');
  try {
    // 400 stale entries of 8 KB: about 3 MB to copy into a 1 MB file system (a copy across file systems).
    writeFileSync(join(s.base, 'bulk.json'), JSON.stringify({ dir: cacheDir, count: 400, size: 8192 }));
    const guarded = cliProcess(['run', '--', ...s.runnerArgv()], s.root, s.env, 120_000);
    assertSetupError(guarded, quarantineDir);
    assert.match(guarded.stderr, /file system is full/);
    assert.match(guarded.stderr, /the next lockguard command in this workspace withholds them/);
    const stopped = inventory(cacheDir, s.root);
    assert.ok(stopped.inCache > 0, 'the pass stopped before the end');
    // The status line says what happened: the pass failed, how many saves it withheld, how many stay.
    const line =
      /^\[lockguard\] a task rewrote pnpm-lock\.yaml\S* .*during the run, which every key folds: the withholding pass failed: the file system under \.lockguard is full: (\d+) cache saves? withheld, (\d+) stale cache saves? stays? in the cache; fix that \(see below\) and the next lockguard command in this workspace withholds them \(lockguard status --run \S+ for details\)$/m.exec(
        guarded.stderr,
      );
    assert.ok(line !== null, guarded.stderr);
    assert.doesNotMatch(guarded.stderr, /nothing was withheld/);
    assert.ok(Number(line[1]) > 0 && Number(line[2]) > 0, 'the pass stopped part way');
    assert.deepEqual(stopped.stages, [], 'a copy that hit the full disk is removed, never left as an entry');
    {
      // Room again: the next command finishes the run; every entry is where it belongs, once.
      resizeTmpfs(quarantineDir, '64m');
      const next = cliProcess(['status'], s.root, s.env, 120_000);
      assert.equal(next.code, 0, next.stderr);
      assert.match(next.stderr, /did not finish/);
      // What the line said stays in the cache is what the next command withholds.
      assert.match(
        next.stderr,
        new RegExp(`: ${line[2]} cache saves it made since the move it recorded were withheld`),
      );
      const after = inventory(cacheDir, s.root);
      assert.deepEqual(inventoryDifferences(stopped, after), []);
      // a's own save stays: its project's slice did not move (per-project withholding).
      assert.deepEqual(entriesLeft(cacheDir), { packages: ['packages/a'], files: 3 });
      assert.equal(after.inCache, 3);
      assert.deepEqual(unitsInFlight(s.root), []);
    }
  } finally {
    unmount();
  }
});

test('a read-only quarantine/: the status line says the pass failed and how many stale saves stay in the cache, never "nothing was withheld"', async (t) => {
  const s = scenario(t, 'turbo');
  const cacheDir = join(s.root, '.turbo', 'cache');
  const quarantineDir = join(s.root, '.lockguard', 'quarantine');
  mkdirSync(quarantineDir, { recursive: true });
  const unmount = mountReadOnly(t, quarantineDir);
  try {
    // 200 bulk entries, plus b's save after the move: 201 stale saves (a's own save is kept: its slice did not move).
    writeFileSync(join(s.base, 'bulk.json'), JSON.stringify({ dir: cacheDir, count: 200, size: 64 }));
    const guarded = cliProcess(['run', '--', ...s.runnerArgv()], s.root, s.env, 120_000);
    assertSetupError(guarded, quarantineDir);
    assert.match(
      guarded.stderr,
      /^\[lockguard\] a task rewrote \S.* during the run, which every key folds: the withholding pass failed: the file system under \.lockguard is read-only: 0 cache saves withheld, 201 stale cache saves stay in the cache; fix that \(see below\) and the next lockguard command in this workspace withholds them \(lockguard status --run \S+ for details\)$/m,
    );
    assert.doesNotMatch(guarded.stderr, /nothing was withheld|holds no save/);
    assert.equal(inventory(cacheDir, s.root).inQuarantine, 0);
  } finally {
    unmount();
  }
  // Writable again: the next command withholds exactly the 201 the line said stay.
  const next = cliProcess(['status'], s.root, s.env, 120_000);
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stderr, /: 201 cache saves it made since the move it recorded were withheld/);
});

test('a run that cannot write its report still prints its verdict and exits as its policy says', (t) => {
  const root = tempWorkspace(t, pnpmTree());
  // The command moves the lockfile and puts a non-empty folder where the run's report.json goes.
  const child = 'mkdir -p "$LOCKGUARD_RUN/report.json/in-the-way" && printf "# rewritten\\n" >> pnpm-lock.yaml';
  const result = cliProcess(['run', '--no-pre-check', '--fail-on-move', 'always', '--', 'sh', '-c', child], root);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /^\[lockguard\] a task rewrote pnpm-lock\.yaml/m);
  assert.match(result.stderr, /^lockguard: warning: the run's report was not written \(Cannot write ".*report\.json"/m);
  assert.doesNotMatch(result.stderr, /^ {4}at /m);
});
