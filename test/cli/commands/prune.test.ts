// `lockguard prune` as a real process: what it says, the flags it refuses, the commands that still work
// after it, and a prune killed (-9) in the middle of thousands of runs: nothing kept is lost, nothing is
// stranded, nothing outside the ledger's runs and copies is touched, and the next prune finishes.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { listRunIds } from '../../../lib/ledger/ledger.js';
import { BIN, cliProcess } from '../../helpers/cli.js';
import { scrubbedEnv } from '../../helpers/env.js';
import { assertSetupError } from '../../helpers/errors.js';
import { cloneRuns } from '../../helpers/ledger-runs.js';
import { fileDigests, pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";
const installed = () => ({ ...pnpmTree(LOCK), node_modules: { '.pnpm': { 'lock.yaml': LOCK } } });

test('prune says what it removed and kept; verify and status still answer from the runs it kept', (t) => {
  const root = tempWorkspace(t, installed());
  assert.equal(cliProcess(['snapshot'], root).code, 0);
  for (let i = 0; i < 4; i++) assert.equal(cliProcess(['run', '--', 'true'], root).code, 0);
  const dry = cliProcess(['prune', '--keep', '1', '--dry-run'], root);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(
    dry.stdout,
    /^lockguard: would remove 3 runs \([\d.]+ KB\); kept 2 runs: the newest run, the newest snapshot\n$/,
  );
  assert.equal(listRunIds(root).length, 5);
  const real = cliProcess(['prune', '--keep', '1'], root);
  assert.equal(real.code, 0, real.stderr);
  assert.match(real.stdout, /^lockguard: removed 3 runs/);
  assert.equal(listRunIds(root).length, 2);
  const again = cliProcess(['prune', '--keep', '1', '--json'], root);
  const parsed = JSON.parse(again.stdout) as { removed: unknown[]; kept: { reason: string }[] };
  assert.deepEqual(parsed.removed, []);
  assert.deepEqual(
    parsed.kept.map((run) => run.reason),
    ['newest', 'newest-of-kind'],
  );
  assert.match(cliProcess(['prune'], root).stdout, /^lockguard: nothing to prune; kept 2 runs: the newest 2\n$/);
  assert.equal(cliProcess(['verify'], root).code, 0);
  assert.equal(cliProcess(['status'], root).code, 0);
  assert.equal(
    cliProcess(['verify', '--run', listRunIds(root).at(-1) ?? ''], root).code,
    0,
    'the snapshot is still there',
  );
});

test('bad flags exit 2 with the fix; no ledger is nothing to prune; outside a workspace exit 2', (t) => {
  const root = tempWorkspace(t, installed());
  for (const keep of ['-1', '1.5', 'many', '', '1e3']) {
    const result = cliProcess(['prune', `--keep=${keep}`], root);
    assert.equal(result.code, 2, `--keep ${keep}: ${result.stderr}`);
    assert.match(result.stderr, /--keep/);
    assert.doesNotMatch(result.stderr, /^ {4}at /m);
  }
  const unknown = cliProcess(['prune', '--all'], root);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /--all.*lockguard prune --help/s);
  const none = cliProcess(['prune'], root);
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stdout, /nothing to prune/);
  assert.equal(fs.existsSync(join(root, '.lockguard')), false, 'prune creates no ledger');
  const outside = tempWorkspace(t, {});
  assert.equal(cliProcess(['prune'], outside).code, 2);
  const help = cliProcess(['prune', '--help'], root);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--keep <n>/);
  assert.match(cliProcess(['--help'], root).stdout, /^ {2}prune {7}/m);
});

test('kill -9 in the middle of a prune: every run is whole or gone, nothing kept is lost, nothing else is touched; the next prune finishes', {
  timeout: 120_000,
}, async (t) => {
  const root = tempWorkspace(t, installed());
  const ids = cloneRuns(root, 3000);
  const ledger = join(root, '.lockguard');
  const keep = 10;
  const newest = ids.slice(-keep);
  const before = fileDigests(ledger);
  const outside = fileDigests(root, ['.lockguard/runs', '.lockguard/blobs', '.lockguard/live']);
  const runs = join(ledger, 'runs');
  let midway = false;
  for (let attempt = 0; attempt < 5 && !midway; attempt++) {
    const child = spawn(process.execPath, [BIN, 'prune', '--keep', String(keep)], {
      cwd: root,
      env: scrubbedEnv(),
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const start = fs.readdirSync(runs).length;
    // Kill it once it has begun removing (fewer folders than at its start), at once.
    for (;;) {
      const now = fs.readdirSync(runs).length;
      if (now < start - 20 || child.exitCode !== null) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    child.kill('SIGKILL');
    await exited;
    const left = listRunIds(root).length;
    midway = left > keep && left < start;
  }
  assert.ok(midway, 'a kill landed in the middle of a prune');
  // Every run folder left is whole (byte for byte what it was); the newest are all there.
  const after = fileDigests(ledger);
  for (const [path, digest] of after) {
    if (path.startsWith('runs/.pruned-') || path.startsWith('live/')) continue;
    assert.equal(before.get(path), digest, `${path} is what it was`);
  }
  for (const id of newest) assert.ok(fs.existsSync(join(runs, id, 'run.json')), `kept ${id}`);
  assert.deepEqual(
    fileDigests(root, ['.lockguard/runs', '.lockguard/blobs', '.lockguard/live']),
    outside,
    'nothing outside was touched',
  );
  // The next prune finishes: only the newest are left, nothing set aside, no lock, no live/.
  const finish = cliProcess(['prune', '--keep', String(keep)], root, scrubbedEnv(), 60_000);
  assert.equal(finish.code, 0, finish.stderr);
  assert.deepEqual(listRunIds(root).sort(), [...newest].sort());
  assert.deepEqual(
    fs.readdirSync(runs).filter((name) => !newest.includes(name)),
    [],
  );
  assert.equal(fs.existsSync(join(ledger, 'live')), false);
  for (const id of newest)
    for (const file of ['run.json', 'events.ndjson'])
      assert.equal(after.get(`runs/${id}/${file}`), before.get(`runs/${id}/${file}`));
});

test('a garbage record is kept and named in a warning, never printed', (t) => {
  const root = tempWorkspace(t, installed());
  const ids = cloneRuns(root, 3);
  const secret = 'npm_Zq9SECRETtokenDoNotLeak0123456789';
  fs.writeFileSync(join(root, '.lockguard', 'runs', ids[0] ?? '', 'run.json'), `{"token":"${secret}"`);
  const result = cliProcess(['prune', '--keep', '0'], root);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, new RegExp(`^lockguard: warning: kept run ${ids[0]}: .*run\\.json`, 'm'));
  assert.match(result.stderr, /^lockguard: warning: kept every lockfile copy/m);
  assert.ok(!`${result.stdout}${result.stderr}`.includes(secret));
  assert.deepEqual(listRunIds(root).sort(), [ids[0], ids[2]].sort());
});

test("a file where the lock's folder belongs: exit 2 naming it, nothing removed", (t) => {
  const root = tempWorkspace(t, installed());
  cloneRuns(root, 3);
  // A file where live/ (the lock's folder) belongs.
  fs.writeFileSync(join(root, '.lockguard', 'live'), 'not a folder');
  assertSetupError(cliProcess(['prune', '--keep', '0'], root), join(root, '.lockguard', 'live'));
  assert.equal(listRunIds(root).length, 3);
});
