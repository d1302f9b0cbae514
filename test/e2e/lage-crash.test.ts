// lage 2.17.0 after the guard is gone, and a withheld save put back (lage-scenario.ts, variant L, one install
// for the file). kill -9 of a guard over `pnpm exec lage build` while its child runs: the orphaned build
// finishes and saves under stale keys, nothing withholds them; the next command (`lockguard run -- true`)
// finishes the dead run through the lage adapter (each entry folder and its log into the dead run's
// quarantine, every byte kept), and back on S0 lage rebuilds b with what is installed. `quarantine restore`
// puts a guarded run's withheld entries back, and lage restores from them again.

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cliProcess } from '../helpers/cli.js';
import {
  fileIncludes,
  groupGone,
  inventory,
  inventoryDifferences,
  latestRunDir,
  lockguardJson,
  spawnGuard,
  until,
} from '../helpers/crash.js';
import {
  cacheKeys as entries,
  lageCache,
  lageInstall,
  lageScenario,
  logKeys as logs,
  quarantinedKeys as quarantined,
  ranAndSkipped,
} from '../helpers/lage-scenario.js';

// Started at load, so its cleanup is the file's (`after` at the top level), not the first test's.
const installing = lageInstall({ after: (fn) => after(fn as () => void) });

test('lage: kill -9 of the guard while its child runs; the next command withholds what the orphaned build saved', async () => {
  const s = lageScenario(await installing, 'L', 'killed');
  const guard = spawnGuard(['run', '--', 'pnpm', 'exec', 'lage', 'build'], s.root, s.env);
  let runDir: string | undefined;
  await until(
    () =>
      (runDir = latestRunDir(s.root)) !== undefined && fileIncludes(join(runDir, 'events.ndjson'), '"type":"child"'),
    'the child to start',
  );
  process.kill(guard.pid, 'SIGKILL');
  await guard.exited;
  await groupGone(guard.pid);
  const deadRun = (runDir ?? '').split('/').at(-1) ?? '';
  // The orphaned build finished: both stale saves are in place, nothing withheld them.
  assert.equal(s.out(), '6.0.0');
  assert.equal(entries(s).length, 2);
  assert.deepEqual(quarantined(s), []);
  const before = inventory(lageCache(s), s.root);
  const next = cliProcess(['run', '--', 'true'], s.root, s.env, 120_000);
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stderr, new RegExp(`\\[lockguard\\] run ${deadRun} did not finish: its guard \\(pid \\d+\\) died`));
  assert.deepEqual(entries(s), [], 'both stale entries left the cache');
  assert.deepEqual(logs(s), [], 'with their logs');
  assert.equal(quarantined(s).length, 2);
  assert.deepEqual(inventoryDifferences(before, inventory(lageCache(s), s.root)), [], 'every byte kept');
  const status = lockguardJson<{ life: { state: string; by: string } }>(['status', '--run', deadRun], s.root, s.env);
  assert.equal(status.life.state, 'finished');
  assert.equal(status.life.by, 'recovery');
  s.goBack();
  assert.deepEqual(ranAndSkipped(s.build()), { ran: 2, skipped: 0 }, 'misses: nothing stale restored');
  assert.equal(s.installed(), '7.0.0');
  assert.equal(s.out(), '7.0.0', 'b rebuilt with what is installed');
});

test('lage, guarded then `quarantine restore`: the withheld entries and their logs go back, and lage restores from them again', async () => {
  const s = lageScenario(await installing, 'L', 'restore');
  const run = s.lockguard(['run', '--', 'pnpm', 'exec', 'lage', 'build']);
  assert.equal(run.status, 0, run.stderr);
  const withheld = quarantined(s);
  assert.equal(withheld.length, 2);
  const runId = (latestRunDir(s.root) ?? '').split('/').at(-1) ?? '';
  const restore = s.lockguard(['quarantine', 'restore', '--run', runId]);
  assert.equal(restore.status, 0, restore.stderr);
  assert.deepEqual(entries(s), withheld, 'every withheld entry is back in the cache');
  assert.deepEqual(logs(s), withheld, 'with its log');
  // 6.0.0 is what is installed now (a's update ran): with the outputs gone, lage restores them from the cache.
  for (const name of ['a', 'b']) rmSync(join(s.root, 'packages', name, 'dist'), { recursive: true, force: true });
  const again = s.build();
  assert.deepEqual(ranAndSkipped(again), { ran: 0, skipped: 2 });
  assert.equal(s.out(), '6.0.0');
});
