// A pull request that commits a `.lockguard/`: forged quarantine journals, locks and dead runs, on a fresh git
// clone, through the real built CLI. A victim folder outside the workspace (files, a symlink, a FIFO, a
// socket, a numeric folder) is inventoried by sha256 and inode before and after every command: nothing there
// is deleted, moved or written, and the ledger is reported as foreign with what to do. The same journals
// with a lock that *is* tied to this machine (an attacker who knew the boot id) still touch nothing: repair
// acts only in the caches the workspace is configured for now (ledger/trust.ts).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { writeGuard } from '../../lib/ledger/guard-record.js';
import { createRun } from '../../lib/ledger/ledger.js';
import { unitId, type IntentLine } from '../../lib/ledger/quarantine/journal.js';
import { recordTree } from '../../lib/ledger/quarantine/move.js';
import { machineStamp } from '../../lib/ledger/trust.js';
import { cliProcess, type CliResult } from '../helpers/cli.js';
import { homeEnv, scrubbedEnv } from '../helpers/env.js';
import { fileDigests, pnpmTree, tempWorkspace, writeTree } from '../helpers/workspace.js';

const FOREIGN =
  /\.lockguard\/ holds (a record|\d+ records) not made on this machine \(live\/[^)]*\): lockguard repairs and recovers nothing from it; if you did not copy or commit it, remove \.lockguard\//;
const QUARANTINE_IDS = [
  '20261201T000000000001Z-run-aaaaa1',
  '20261201T000000000002Z-run-aaaaa2',
  '20261201T000000000003Z-run-aaaaa3',
  '20261201T000000000004Z-run-aaaaa4',
  '20261201T000000000005Z-run-aaaaa5',
];

function sh(argv: readonly string[], cwd: string): void {
  const [command = 'true', ...rest] = argv;
  const result = spawnSync(command, rest, { cwd, encoding: 'utf8', timeout: 30_000 });
  assert.equal(result.status, 0, `${argv.join(' ')}: ${result.stderr}`);
}

/** Files and a link an attacker names (it knows the bytes: the strongest case). */
function plantFiles(dir: string): void {
  writeTree(dir, {
    'secret.txt': "the machine owner's bytes\n",
    '123': { 'out.txt': 'nx-shaped folder\n' },
    'aaaa000000000001.tar.zst': 'turbo-shaped\n',
  });
  symlinkSync('/etc/hostname', join(dir, 'link'));
}

/** What an attacker names by path only, too: a FIFO, a socket. */
function plant(dir: string): void {
  plantFiles(dir);
  sh(['mkfifo', join(dir, 'fifo')], dir);
  sh(['python3', '-c', 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])', join(dir, 'sock')], dir);
}

interface Forged {
  readonly base: string;
  readonly victim: string;
  readonly checkout: string;
  readonly env: Record<string, string>;
}

/** The units a forged journal claims, each backed by the same nodes in its quarantine (so a naive repair sees "ours" on both sides). */
function forgeQuarantine(
  ledger: string,
  id: string,
  cacheDir: string,
  source: string,
  units: readonly { runner: string; key: string; path: string }[],
  stamp: Record<string, unknown>,
): void {
  const dir = join(ledger, 'quarantine', id);
  const lines: IntentLine[] = [];
  for (const unit of units) {
    const home = join(dir, 'entries', unit.runner, unit.key);
    mkdirSync(home, { recursive: true });
    // The quarantine side: the same nodes as the victim's (bytes for files, targets for links, kinds for the rest).
    sh(['cp', '-a', join(source, unit.path), join(home, unit.path)], home);
    lines.push({
      op: 'intent',
      unit: unitId(unit.runner, unit.key),
      t: Date.now() - 60_000,
      runner: unit.runner,
      key: unit.key,
      cacheDir,
      paths: [unit.path],
      files: recordTree(source, unit.path),
      size: 1,
      reason: 'forged',
      ...stamp,
    });
  }
  writeFileSync(join(dir, 'journal.ndjson'), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
}

function deadPid(): number {
  return Number(spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim());
}

const VICTIM_UNITS = [
  { runner: 'turbo', key: 'secret', path: 'secret.txt' },
  { runner: 'turbo', key: 'link', path: 'link' },
  { runner: 'turbo', key: 'fifo', path: 'fifo' },
  { runner: 'turbo', key: 'sock', path: 'sock' },
  { runner: 'nx', key: '123', path: '123' },
  { runner: 'turbo', key: 'aaaa000000000001', path: 'aaaa000000000001.tar.zst' },
];

/**
 * An upstream repo that committed a forged `.lockguard/`, cloned fresh. Its journals name: the victim outside
 * (absolute), a committed `.turbo/cache` link to the victim, the workspace root itself, a folder inside the
 * workspace that is no cache, and `..` paths; each with a lock naming a dead pid (no host; this host with
 * another boot id). `lockStamp` overrides every lock's host and boot (a lock tied to this machine).
 */
function forgedClone(t: TestContext, lockStamp?: Record<string, unknown>): Forged {
  const base = tempWorkspace(t, {}, 'lockguard-committed-');
  const victim = join(base, 'victim');
  mkdirSync(victim);
  plant(victim);
  const upstream = join(base, 'upstream');
  const checkout = join(base, 'checkout');
  writeTree(upstream, { ...pnpmTree(), 'turbo.json': '{"tasks":{"build":{}}}\n', 'nx.json': '{}\n', src: {} });
  plantFiles(join(upstream, 'src'));
  mkdirSync(join(upstream, '.turbo'));
  symlinkSync(victim, join(upstream, '.turbo', 'cache'));
  const ledger = join(upstream, '.lockguard');
  const other = { host: hostname(), boot: randomUUID() };
  const [q1 = '', q2 = '', q3 = '', q4 = '', q5 = ''] = QUARANTINE_IDS;
  forgeQuarantine(ledger, q1, victim, victim, VICTIM_UNITS, {});
  forgeQuarantine(ledger, q2, join(checkout, '.turbo', 'cache'), victim, VICTIM_UNITS, other);
  forgeQuarantine(ledger, q3, checkout, upstream, [{ runner: 'turbo', key: 'src', path: 'src' }], other);
  forgeQuarantine(
    ledger,
    q4,
    join(checkout, 'src'),
    join(upstream, 'src'),
    [{ runner: 'turbo', key: 'secret', path: 'secret.txt' }],
    other,
  );
  {
    // `..` ways out: a cache dir that is not normalized, and paths that climb; both are refused when read.
    const dir = join(ledger, 'quarantine', q5);
    mkdirSync(dir, { recursive: true });
    const files = recordTree(victim, 'secret.txt');
    const lines = [
      {
        op: 'intent',
        unit: 'turbo/secret',
        t: 1,
        runner: 'turbo',
        key: 'secret',
        cacheDir: `${checkout}/src/../../victim`,
        paths: ['secret.txt'],
        files,
        size: 1,
        reason: 'x',
        ...other,
      },
      {
        op: 'intent',
        unit: 'turbo/x',
        t: 1,
        runner: 'turbo',
        key: 'x',
        cacheDir: join(checkout, 'src'),
        paths: ['../../victim/secret.txt'],
        files,
        size: 1,
        reason: 'x',
        ...other,
      },
    ];
    writeFileSync(join(dir, 'journal.ndjson'), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  }
  mkdirSync(join(ledger, 'live'), { recursive: true });
  QUARANTINE_IDS.forEach((id, i) => {
    const stamp = lockStamp ?? (i === 0 ? {} : other);
    writeFileSync(
      join(ledger, 'live', `.lock-quarantine-${id}`),
      JSON.stringify({ pid: deadPid(), pidStart: 1, t: Date.now() - 60_000, ...stamp }),
    );
  });
  sh(['git', 'init', '-q', '.'], upstream);
  sh(['git', 'add', '-A', '-f'], upstream);
  sh(
    ['git', '-c', 'user.name=pr', '-c', 'user.email=pr@example.invalid', 'commit', '-q', '-m', 'a pull request'],
    upstream,
  );
  sh(['git', 'clone', '-q', upstream, checkout], base);
  assert.ok(
    existsSync(join(checkout, '.lockguard', 'live', `.lock-quarantine-${q1}`)),
    'the clone brought the forged ledger along',
  );
  return { base, victim, checkout, env: scrubbedEnv(homeEnv(join(base, 'home'))) };
}

/** Victim and workspace (outside its ledger): every node, by digest and inode. */
function snapshotOf(f: Forged): { victim: Map<string, string>; workspace: Map<string, string> } {
  return {
    victim: fileDigests(f.victim, [], { dirs: true }),
    workspace: fileDigests(f.checkout, ['.lockguard', '.git'], { dirs: true }),
  };
}

function assertUntouched(f: Forged, before: ReturnType<typeof snapshotOf>, after: string): void {
  const now = snapshotOf(f);
  assert.deepEqual(now.victim, before.victim, `nothing outside the workspace touched (after ${after})`);
  assert.deepEqual(now.workspace, before.workspace, `nothing in the workspace touched (after ${after})`);
}

function run(f: Forged, argv: readonly string[]): CliResult {
  const result = cliProcess(argv, f.checkout, f.env, 60_000);
  assert.doesNotMatch(result.stderr, /^ {4}at /m, 'no stack trace');
  assert.notEqual(result.code, 70, result.stderr);
  return result;
}

test('a committed .lockguard/ on a fresh clone: snapshot first, then every command; nothing outside is touched, the ledger is reported foreign', (t) => {
  const f = forgedClone(t);
  const before = snapshotOf(f);
  {
    const snapshot = run(f, ['snapshot']);
    assertUntouched(f, before, 'snapshot');
    assert.equal(snapshot.code, 0, snapshot.stderr);
    assert.match(snapshot.stderr, FOREIGN);
  }
  for (const argv of [
    ['status'],
    ['run', '--no-pre-check', '--', 'true'],
    ['verify'],
    ['quarantine', 'list'],
    ['prune', '--keep', '0'],
  ]) {
    const result = run(f, argv);
    assertUntouched(f, before, argv.join(' '));
    assert.match(result.stderr, FOREIGN, argv.join(' '));
  }
  {
    const doctor = run(f, ['doctor']);
    assert.match(doctor.stdout, FOREIGN);
    assert.match(doctor.stdout, /Remove .*\.lockguard/);
    assertUntouched(f, before, 'doctor');
  }
  for (const id of QUARANTINE_IDS) {
    for (const action of ['restore', 'drop']) {
      const result = run(f, ['quarantine', action, '--run', id]);
      assertUntouched(f, before, `quarantine ${action} --run ${id}`);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /was not made on this machine since it last booted/);
    }
  }
  // The forged locks are still there (evidence, and the refusal stands until a human removes them).
  for (const id of QUARANTINE_IDS)
    assert.ok(existsSync(join(f.checkout, '.lockguard', 'live', `.lock-quarantine-${id}`)));
});

test('the same journals under locks tied to this machine (dead pid): repaired only inside configured caches, so nothing is touched', (t) => {
  const f = forgedClone(t, machineStamp());
  const before = snapshotOf(f);
  const snapshot = run(f, ['snapshot']);
  assert.equal(snapshot.code, 0, snapshot.stderr);
  assertUntouched(f, before, 'snapshot');
  for (const id of QUARANTINE_IDS)
    assert.equal(
      existsSync(join(f.checkout, '.lockguard', 'live', `.lock-quarantine-${id}`)),
      false,
      'the dead locks were taken over (journals repaired where they may be)',
    );
  for (const id of QUARANTINE_IDS) {
    // The journals could be taken over (tied locks): their units stay in flight, none settled.
    const restore = run(f, ['quarantine', 'restore', '--run', id]);
    assertUntouched(f, before, `quarantine restore --run ${id}`);
    assert.doesNotMatch(restore.stdout, /^restored /m);
  }
  for (const id of QUARANTINE_IDS) {
    const drop = run(f, ['quarantine', 'drop', '--run', id]);
    assert.equal(drop.code, 0, drop.stderr);
    assertUntouched(f, before, `quarantine drop --run ${id}`);
  }
  const prune = run(f, ['prune', '--keep', '0']);
  assert.equal(prune.code, 0, prune.stderr);
  assertUntouched(f, before, 'prune');
});

/** A dead guarded run whose guard.json names the victim as nx's cache (and whose numeric folder looks new). */
function forgedDeadRun(t: TestContext, stamp: 'foreign' | 'tied'): Forged & { id: string } {
  const base = tempWorkspace(t, {}, 'lockguard-deadrun-');
  const victim = join(base, 'victim');
  mkdirSync(victim);
  plant(victim);
  const checkout = join(base, 'checkout');
  writeTree(checkout, { ...pnpmTree(), 'nx.json': '{}\n' });
  const runHandle = createRun({
    kind: 'run',
    table: readWorkspaceFingerprints(checkout),
    policy: 'withhold',
    command: ['nx', 'run-many', '-t', 'build'],
  });
  const id = runHandle.record.id;
  const started = Date.now() - 60_000;
  writeGuard(runHandle.dir, {
    version: 1,
    runStartedAt: started,
    caches: [
      {
        runner: 'nx',
        root: checkout,
        dir: victim,
        source: 'NX_CACHE_DIRECTORY',
        started: true,
        before: { dir: victim, exists: true, takenAt: started, entries: [] },
      },
    ],
  });
  const live = join(checkout, '.lockguard', 'live');
  mkdirSync(live, { recursive: true });
  const marker = { dir: runHandle.dir, id, pid: deadPid(), pidStart: 1, policy: 'withhold' };
  const boot = stamp === 'tied' ? machineStamp() : { host: hostname(), boot: randomUUID() };
  writeFileSync(join(live, id), JSON.stringify({ ...marker, ...boot }));
  if (stamp === 'foreign') {
    // A run record and guard record made on another boot: nothing ties them to this machine now.
    for (const name of ['run.json', 'guard.json']) {
      const path = join(runHandle.dir, name);
      writeFileSync(path, JSON.stringify({ ...(JSON.parse(readFileSync(path, 'utf8')) as object), ...boot }));
    }
  }
  return { base, victim, checkout, env: scrubbedEnv(homeEnv(join(base, 'home'))), id };
}

test('a forged dead run whose guard.json names an outside folder as nx cache: status moves nothing (another boot: foreign)', (t) => {
  const f = forgedDeadRun(t, 'foreign');
  const before = snapshotOf(f);
  const status = run(f, ['status']);
  assertUntouched(f, before, 'status');
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stderr, FOREIGN);
  assert.doesNotMatch(status.stderr, /did not finish/);
  assert.ok(existsSync(join(f.checkout, '.lockguard', 'live', f.id)), 'the foreign marker is left as it is');
  assert.equal(existsSync(join(f.checkout, '.lockguard', 'quarantine')), false);
});

test('a dead run tied to this machine whose guard.json names a folder that is not a cache now: finished, that folder left alone and said', (t) => {
  const f = forgedDeadRun(t, 'tied');
  const before = snapshotOf(f);
  const status = run(f, ['status', '--run', f.id, '--json']);
  assertUntouched(f, before, 'status');
  assert.equal(status.code, 0, status.stderr);
  assert.doesNotMatch(status.stderr, FOREIGN);
  assert.match(
    status.stderr,
    new RegExp(`run ${f.id} did not finish: .*0 cache saves it made since it started were withheld`),
  );
  const data = JSON.parse(status.stdout) as { life: { state: string; recovery?: { notes: string[] } } };
  assert.equal(data.life.state, 'finished');
  assert.match(
    data.life.recovery?.notes.join('\n') ?? '',
    /nx: ".*victim" is not a nx cache this workspace is configured for now, so it was left alone/,
  );
});
