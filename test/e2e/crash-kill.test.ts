// kill -9 of the guard at each stage of a guarded turbo run with a mutation (the poisoning scenario:
// a#build runs `pnpm add`, b#build saves its output under a key that folded the old lockfile):
// while the child runs, after it exited (before the final check), and in the middle of a withholding pass
// over 2,000 entries, on one file system and with the cache on a tmpfs (copies across file systems).
// After each: a sha256 inventory of cache + quarantine proves no entry lost and none split or duplicated;
// the next guarded run finishes the dead one (withholds what it left, says why), and after going back to
// S0 the runner rebuilds b with what is installed (7.0.0), never replaying the stale 6.0.0.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { cliProcess } from '../helpers/cli.js';
import {
  childStarted,
  lockguardJson,
  tempOnTmpfs,
  inventory,
  inventoryDifferences,
  latestRunDir,
  mountTmpfs,
  spawnGuard,
  unitsInFlight,
  type Inventory,
} from '../helpers/crash.js';
import { installOncePerFile, scenario, type Scenario } from '../helpers/runner-scenario.js';

/**
 * Stale entries the mid-pass kill finds: the pass pauses (the test seam) after 300 units, so 2,000 leave it
 * well inside the pass (asserted: entries in quarantine and more than BULK files still in the cache when
 * it is killed). 20,000 proved nothing more and cost a minute of hashing inventories;
 * `LOCKGUARD_CRASH_ENTRIES=20000 node --test dist/test/e2e/crash-kill.test.js` runs that volume.
 */
const BULK = Number(process.env['LOCKGUARD_CRASH_ENTRIES'] ?? '') || 2_000;
// One install of the scenario for the file, a private copy per test (runner-scenario.ts).
installOncePerFile();
tempOnTmpfs('3g');

function turboArgv(s: Scenario): string[] {
  return ['run', '--', ...s.runnerArgv()];
}

/** b#build's key in the dead run, from turbo's own summary of it. */
function bKey(s: Scenario): string {
  const runs = join(s.root, '.turbo', 'runs');
  for (const name of readdirSync(runs).sort().reverse()) {
    const summary = JSON.parse(readFileSync(join(runs, name), 'utf8')) as { tasks: { taskId: string; hash: string }[] };
    const task = summary.tasks.find((candidate) => candidate.taskId === 'b#build');
    if (task !== undefined) return task.hash;
  }
  throw new Error('no turbo summary names b#build');
}

function quarantinedKeys(s: Scenario, runId: string): string[] {
  const home = join(s.root, '.lockguard', 'quarantine', runId, 'entries', 'turbo');
  try {
    return readdirSync(home);
  } catch {
    return [];
  }
}

/** The next guarded run finishes the dead one; back on S0 the runner rebuilds b with what is installed. */
async function finishAndRebuild(s: Scenario, deadRun: string, before: Inventory, cacheDir: string): Promise<void> {
  {
    // The next guarded run finishes the dead one before its own command starts (its command saves nothing).
    const next = cliProcess(['run', '--', 'true'], s.root, s.env, 120_000);
    assert.equal(next.code, 0, next.stderr);
    assert.match(
      next.stderr,
      new RegExp(`\\[lockguard\\] run ${deadRun} did not finish: its guard \\(pid \\d+\\) died before its final check`),
    );
    // Every byte the dead run left is where it belongs, once: none lost, none split, no stage copy.
    assert.deepEqual(inventoryDifferences(before, inventory(cacheDir, s.root)), []);
    assert.deepEqual(unitsInFlight(s.root), []);
    assert.ok(quarantinedKeys(s, deadRun).includes(bKey(s)), `b's stale entry is withheld under ${deadRun}`);
    assert.deepEqual(
      readdirSync(join(s.root, '.lockguard')).includes('live') ? readdirSync(join(s.root, '.lockguard', 'live')) : [],
      [],
      'no marker, no lock left',
    );
  }
  {
    // The dead run is finished, and says how.
    const status = lockguardJson<{ life: { state: string; by: string } }>(['status', '--run', deadRun], s.root, s.env);
    assert.equal(status.life.state, 'finished');
    assert.equal(status.life.by, 'recovery');
  }
  {
    // Back on S0 (7.0.0 installed): b misses and rebuilds with what is installed.
    s.goBack();
    const back = cliProcess(turboArgv(s), s.root, s.env, 120_000);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(s.installed(), '7.0.0');
    assert.equal(s.out(), '7.0.0');
  }
}

test('kill -9 of the guard while its child runs: the next guarded run withholds the saves it never checked', async (t) => {
  const s = scenario(t, 'turbo');
  const cacheDir = join(s.root, '.turbo', 'cache');
  const guard = spawnGuard(turboArgv(s), s.root, s.env);
  const run = await childStarted(s.root);
  await guard.kill9();
  // The orphaned turbo finished the build: the stale entry is in the cache, nothing withheld it.
  assert.equal(s.out(), '6.0.0');
  const before = inventory(cacheDir, s.root);
  assert.equal(before.inQuarantine, 0);
  await finishAndRebuild(s, run, before, cacheDir);
});

test('kill -9 of the guard after its child exited, before the final check', async (t) => {
  const s = scenario(t, 'turbo');
  const cacheDir = join(s.root, '.turbo', 'cache');
  const guard = spawnGuard(turboArgv(s), s.root, { ...s.env, LOCKGUARD_TEST_PAUSE_AFTER_CHILD: '1' });
  await guard.waitFor(/test seam: paused after the child exited/, 120_000);
  await guard.kill9();
  const before = inventory(cacheDir, s.root);
  assert.equal(before.inQuarantine, 0);
  const runDir = latestRunDir(s.root) ?? '';
  await finishAndRebuild(s, runDir.split('/').at(-1) ?? '', before, cacheDir);
});

async function midPass(t: TestContext, crossFs: boolean): Promise<void> {
  const s = scenario(t, 'turbo');
  let cacheDir = join(s.root, '.turbo', 'cache');
  const env: Record<string, string> = { ...s.env, LOCKGUARD_TEST_PAUSE_AFTER_UNITS: '300' };
  let unmount = (): void => {};
  if (crossFs) {
    const mount = join(s.base, 'tmpfs');
    unmount = mountTmpfs(t, mount, 'size=256m');
    cacheDir = join(mount, 'cache');
    env['TURBO_CACHE_DIR'] = cacheDir;
    s.env['TURBO_CACHE_DIR'] = cacheDir;
  }
  try {
    await killMidPass(s, env, cacheDir);
  } finally {
    unmount();
  }
}

async function killMidPass(s: Scenario, env: Record<string, string>, cacheDir: string): Promise<void> {
  writeFileSync(join(s.base, 'bulk.json'), JSON.stringify({ dir: cacheDir, count: BULK, size: 512 }));
  const guard = spawnGuard(turboArgv(s), s.root, env);
  await guard.waitFor(/test seam: the withholding pass pauses after 300 units/, 180_000);
  const before = inventory(cacheDir, s.root);
  assert.ok(
    before.inQuarantine > 0 && before.inCache > BULK,
    `a pass in the middle: ${before.inQuarantine} files in quarantine, ${before.inCache} in the cache`,
  );
  await guard.kill9();
  {
    // Killed mid-pass: every byte is still somewhere (a unit may be split, or a copy staged; nothing lost).
    const torn = inventory(cacheDir, s.root);
    const lost = inventoryDifferences(before, torn).filter(
      (problem) => problem.endsWith(': lost') || problem.endsWith(': bytes changed'),
    );
    assert.deepEqual(lost, []);
    // The journal names the units the pass had announced and not finished: repair has work to do.
    assert.ok(unitsInFlight(s.root).length > 0, 'units in flight after the kill');
  }
  const runDir = latestRunDir(s.root) ?? '';
  await finishAndRebuild(s, runDir.split('/').at(-1) ?? '', before, cacheDir);
  // Every stale entry ended in quarantine (restorable), not just the ones the dead pass reached.
  assert.ok(quarantinedKeys(s, runDir.split('/').at(-1) ?? '').length >= BULK);
}

test(`kill -9 in the middle of a withholding pass over ${BULK.toLocaleString('en')} entries (same file system)`, async (t) => {
  await midPass(t, false);
});

test(`kill -9 in the middle of a withholding pass over ${BULK.toLocaleString('en')} entries, the cache on a tmpfs (copies across file systems)`, async (t) => {
  await midPass(t, true);
});
