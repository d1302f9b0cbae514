// SIGINT during the withholding pass of a guarded turbo run (the poisoning scenario's install plus thousands of
// stale entries): one signal waits until the pass is done (every stale entry withheld, exit 130); a second one
// stops at the next safe point between entries (none half moved), and the next lockguard command finishes
// the rest. A sha256 inventory of cache + quarantine proves nothing lost, split or duplicated.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliProcess } from '../helpers/cli.js';
import {
  entriesLeft,
  groupGone,
  inventory,
  lockguardJson,
  inventoryDifferences,
  latestRunDir,
  spawnGuard,
  tempOnTmpfs,
  unitsInFlight,
} from '../helpers/crash.js';
import { installOncePerFile, scenario, type Scenario } from '../helpers/runner-scenario.js';

/**
 * Stale entries behind the pass's pause (the test seam, after 300 units). One SIGINT lets the pass finish, so
 * 2,000 prove what 20,000 did (every entry withheld, none lost) for a tenth of the hashing. Two SIGINTs must
 * land while the pass still runs: after the first, the rest of the pass (4,700 units, seconds of renames and
 * journal writes) leaves the test's 20 ms poll a wide margin, and the test asserts the pass stopped early.
 * LOCKGUARD_CRASH_ENTRIES runs both with another count (20,000 before).
 */
const GIVEN = Number(process.env['LOCKGUARD_CRASH_ENTRIES'] ?? '') || undefined;
const ONE_SIGINT_BULK = GIVEN ?? 2_000;
const TWO_SIGINTS_BULK = GIVEN ?? 5_000;
// One install of the scenario for the file, a private copy per test (runner-scenario.ts).
installOncePerFile();
tempOnTmpfs('2g');

function status(s: Scenario, runId: string): { life: { state: string; by?: string } } {
  return lockguardJson<{ life: { state: string; by?: string } }>(['status', '--run', runId], s.root, s.env);
}

async function pausedRun(s: Scenario, bulk: number): Promise<ReturnType<typeof spawnGuard>> {
  writeFileSync(
    join(s.base, 'bulk.json'),
    JSON.stringify({ dir: join(s.root, '.turbo', 'cache'), count: bulk, size: 256 }),
  );
  const guard = spawnGuard(['run', '--', ...s.runnerArgv()], s.root, {
    ...s.env,
    LOCKGUARD_TEST_PAUSE_AFTER_UNITS: '300',
  });
  await guard.waitFor(/test seam: the withholding pass pauses after 300 units/, 180_000);
  return guard;
}

test('one SIGINT during the withholding pass: the pass completes first, then exit 130', async (t) => {
  const s = scenario(t, 'turbo');
  const cacheDir = join(s.root, '.turbo', 'cache');
  const guard = await pausedRun(s, ONE_SIGINT_BULK);
  const before = inventory(cacheDir, s.root);
  assert.ok(before.inCache > ONE_SIGINT_BULK, `paused mid-pass: ${before.inCache} files still in the cache`);
  process.kill(guard.pid, 'SIGINT');
  const end = await guard.exited;
  await groupGone(guard.pid);
  assert.equal(end.code, 130, guard.stderr());
  assert.match(guard.stderr(), /SIGINT: finishing the withholding pass first/);
  const after = inventory(cacheDir, s.root);
  assert.deepEqual(inventoryDifferences(before, after), []);
  // Every stale entry (b's and the bulk) is withheld; a's own save stays: its project's slice did not move.
  assert.deepEqual(entriesLeft(cacheDir), { packages: ['packages/a'], files: 3 });
  assert.equal(after.inCache, 3, `${after.inCache} files left in the cache`);
  assert.deepEqual(unitsInFlight(s.root), []);
  const runId = (latestRunDir(s.root) ?? '').split('/').at(-1) ?? '';
  assert.deepEqual(status(s, runId).life, { state: 'finished', by: 'run' });
});

test('two SIGINTs: the pass stops between two entries; the next command withholds the rest', async (t) => {
  const s = scenario(t, 'turbo');
  const cacheDir = join(s.root, '.turbo', 'cache');
  const guard = await pausedRun(s, TWO_SIGINTS_BULK);
  const before = inventory(cacheDir, s.root);
  process.kill(guard.pid, 'SIGINT');
  await guard.waitFor(/SIGINT: finishing the withholding pass first/);
  process.kill(guard.pid, 'SIGINT');
  const end = await guard.exited;
  await groupGone(guard.pid);
  assert.equal(end.code, 130, guard.stderr());
  assert.match(guard.stderr(), /SIGINT again: stopping after the current entry/);
  const runId = (latestRunDir(s.root) ?? '').split('/').at(-1) ?? '';
  {
    // Stopped at a safe point: some stale entries are still in the cache, none is half moved.
    const stopped = inventory(cacheDir, s.root);
    assert.deepEqual(inventoryDifferences(before, stopped), []);
    assert.ok(stopped.inCache > 0, 'the pass stopped before the end');
    assert.deepEqual(unitsInFlight(s.root), []);
  }
  {
    // The next lockguard command finishes the run: the rest is withheld too.
    const next = cliProcess(['status', '--run', runId], s.root, s.env, 120_000);
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stderr, new RegExp(`run ${runId} did not finish`));
    const after = inventory(cacheDir, s.root);
    assert.deepEqual(inventoryDifferences(before, after), []);
    assert.deepEqual(entriesLeft(cacheDir), { packages: ['packages/a'], files: 3 });
    assert.equal(after.inCache, 3);
    assert.equal(status(s, runId).life.state, 'finished');
  }
  {
    // Back on S0 the runner rebuilds b with what is installed.
    s.goBack();
    const back = cliProcess(['run', '--', ...s.runnerArgv()], s.root, s.env, 120_000);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(s.out(), '7.0.0');
  }
});
