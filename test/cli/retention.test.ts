// The ledger keeps itself bounded (ledger/retention.ts, cli/retention-step.ts): after a guarded run or a snapshot,
// once the runs pass the retention plus its slack, lockguard prunes down to the retention, keeping what
// `lockguard prune` keeps; "all" and a busy ledger prune nothing; status says the count and the setting.

import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXIT } from '../../lib/cli/exit-codes.js';
import { acquireLock } from '../../lib/ledger/ledger-lock.js';
import { RUN_ID } from '../../lib/ledger/run-record.js';
import { retentionSlack } from '../../lib/ledger/retention.js';
import { cli } from '../helpers/cli.js';
import { cloneRuns } from '../helpers/ledger-runs.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

function runsIn(root: string): string[] {
  return readdirSync(join(root, '.lockguard', 'runs'))
    .filter((name) => RUN_ID.test(name))
    .sort();
}

function workspace(t: Parameters<typeof tempWorkspace>[0], lockguard?: object): string {
  const tree = pnpmTree();
  return tempWorkspace(t, {
    ...tree,
    'package.json': JSON.stringify({ name: 'root', private: true, ...(lockguard === undefined ? {} : { lockguard }) }),
  });
}

test('the slack: a tenth of the retention, at least 10 runs', () => {
  assert.deepEqual([1, 10, 100, 101, 1000].map(retentionSlack), [10, 10, 10, 11, 100]);
});

test('a snapshot past keepRuns plus the slack prunes down to keepRuns, newest kept; at the threshold nothing goes', async (t) => {
  const root = workspace(t, { keepRuns: 10 });
  const old = cloneRuns(root, 19);
  const at = await cli(['snapshot'], root);
  assert.equal(at.code, EXIT.ok, at.stderr);
  assert.equal(runsIn(root).length, 20, 'exactly keepRuns + slack: not pruned yet');
  const past = await cli(['snapshot'], root);
  assert.equal(past.code, EXIT.ok, past.stderr);
  assert.doesNotMatch(past.stderr, /warning/);
  const left = runsIn(root);
  assert.equal(left.length, 10);
  assert.deepEqual(
    left.filter((id) => old.includes(id)),
    old.slice(-8),
    'the newest of the old runs stay, with the two snapshots',
  );
  const status = await cli(['status'], root);
  assert.equal(status.code, EXIT.ok, status.stderr);
  assert.match(
    status.stdout,
    /^ledger {3}10 runs \(the newest 10 kept, older ones pruned after a run once 20 pile up: keepRuns in package\.json\)$/m,
  );
  const json = await cli(['status', '--json'], root);
  assert.equal(json.code, EXIT.ok, json.stderr);
  assert.deepEqual((JSON.parse(json.stdout) as { ledger: unknown }).ledger, {
    runs: 10,
    keep: 10,
    from: 'package.json',
  });
});

test('a guarded run prunes too; the run a named gate names (LOCKGUARD_RUN_<NAME>) is kept; the environment overrides the field', async (t) => {
  const root = workspace(t, { keepRuns: 50 });
  const old = cloneRuns(root, 30);
  const named = old[0] ?? '';
  const result = await cli(['run', '--runner', 'none', '--no-pre-check', '--', 'true'], root, {
    LOCKGUARD_KEEP_RUNS: '5',
    LOCKGUARD_RUN_STORE: named,
  });
  assert.equal(result.code, EXIT.ok, result.stderr);
  const left = runsIn(root);
  assert.equal(left.length, 6, left.join('\n'));
  assert.ok(left.includes(named), 'the named run stays');
});

test('"all" never prunes by itself; a busy ledger is left for the next command, silently', async (t) => {
  {
    const root = workspace(t, { keepRuns: 'all' });
    cloneRuns(root, 40);
    const result = await cli(['snapshot'], root);
    assert.equal(result.code, EXIT.ok, result.stderr);
    assert.equal(runsIn(root).length, 41);
    const status = await cli(['status'], root);
    assert.match(status.stdout, /^ledger {3}41 runs \(none pruned by itself: keepRuns in package\.json\)$/m);
  }
  {
    const root = workspace(t);
    cloneRuns(root, 120);
    const lock = acquireLock(root, 'prune');
    try {
      const result = await cli(['snapshot'], root);
      assert.equal(result.code, EXIT.ok, result.stderr);
      assert.doesNotMatch(result.stderr, /warning/);
      assert.equal(runsIn(root).length, 121, 'another prune holds the ledger: nothing removed');
    } finally {
      lock.release();
    }
    const next = await cli(['snapshot'], root);
    assert.equal(next.code, EXIT.ok, next.stderr);
    assert.equal(runsIn(root).length, 100, 'the default retention, once the ledger is free');
  }
});

test('a bad keepRuns is exit 2 naming the file; a bad LOCKGUARD_KEEP_RUNS is a warning after a snapshot and exit 2 for status', async (t) => {
  for (const value of [0, -1, 2.5, '10', true]) {
    const root = workspace(t, { keepRuns: value });
    const result = await cli(['snapshot'], root);
    assert.equal(result.code, EXIT.usage, `keepRuns ${JSON.stringify(value)}`);
    assert.ok(result.stderr.includes(join(root, 'package.json')), result.stderr);
    assert.match(result.stderr, /keepRuns/);
    assert.match(result.stderr, /"all"/);
  }
  const root = workspace(t);
  const snapshot = await cli(['snapshot'], root, { LOCKGUARD_KEEP_RUNS: 'lots' });
  assert.equal(snapshot.code, EXIT.ok, snapshot.stderr);
  assert.match(snapshot.stderr, /warning: the ledger was not pruned: LOCKGUARD_KEEP_RUNS is not a whole number/);
  assert.doesNotMatch(snapshot.stderr, /lots/, 'the value is not echoed');
  for (const argv of [['status'], ['status', '--json']]) {
    // The JSON form says the retention too, so it refuses the same setting (it once answered 0).
    const status = await cli(argv, root, { LOCKGUARD_KEEP_RUNS: 'lots' });
    assert.equal(status.code, EXIT.usage, status.stderr);
    assert.match(status.stderr, /LOCKGUARD_KEEP_RUNS/);
  }
});
