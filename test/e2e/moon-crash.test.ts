// kill -9 of a guard over `moon run :build` (scenario L, moon-scenario.ts), while its child runs and after the
// child exited (before the final check): the orphaned build finishes and saves under stale keys, nothing
// withholds them; the next command (`lockguard run -- true`) finishes the dead run through the moon adapter
// (lastRun states off, archives and hash manifests into the dead run's quarantine, every byte kept), and back on
// S0 with the outputs in place moon rebuilds b with what is installed.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliProcess } from '../helpers/cli.js';
import { fileIncludes, groupGone, latestRunDir, lockguardJson, spawnGuard, until } from '../helpers/crash.js';
import {
  archiveKeys,
  lastRunHash,
  moonFile,
  type MoonScenario,
  moonScenario,
  quarantinedKeys,
} from '../helpers/moon-scenario.js';

moonFile();

const GUARDED = ['run', '--', 'moon', 'run', ':build'];

const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** key → the digests of its archive and hash manifest, wherever they are: the cache, or any quarantine. */
function entryBytes(s: MoonScenario, where: 'cache' | 'quarantine'): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const of = (dir: string, key: string): string[] =>
    [join(dir, 'outputs', `${key}.tar.gz`), join(dir, 'hashes', `${key}.json`)].map((path) =>
      existsSync(path) ? digest(path) : 'absent',
    );
  if (where === 'cache') {
    for (const key of archiveKeys(s)) out[key] = of(join(s.root, '.moon', 'cache'), key);
    return out;
  }
  const quarantine = join(s.root, '.lockguard', 'quarantine');
  for (const run of readdirSync(quarantine))
    for (const key of readdirSync(join(quarantine, run, 'entries', 'moon')))
      out[key] = of(join(quarantine, run, 'entries', 'moon', key), key);
  return out;
}

async function finishAndRebuild(s: MoonScenario, deadRun: string): Promise<void> {
  // The orphaned build finished: both stale saves and their lastRun states are in place, nothing withheld them.
  assert.equal(s.out(), '6.0.0');
  assert.equal(archiveKeys(s).length, 2);
  assert.deepEqual(quarantinedKeys(s), []);
  assert.ok(lastRunHash(s, 'b') !== undefined);
  const before = entryBytes(s, 'cache');
  const next = cliProcess(['run', '--', 'true'], s.root, s.env, 120_000);
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stderr, new RegExp(`\\[lockguard\\] run ${deadRun} did not finish: its guard \\(pid \\d+\\) died`));
  assert.deepEqual(archiveKeys(s), [], 'both stale entries left the cache');
  assert.deepEqual(entryBytes(s, 'quarantine'), before, 'every byte of them is in the dead run’s quarantine');
  assert.equal(lastRunHash(s, 'a') ?? lastRunHash(s, 'b'), undefined, 'their lastRun states are gone');
  const status = lockguardJson<{ life: { state: string; by: string } }>(['status', '--run', deadRun], s.root, s.env);
  assert.equal(status.life.state, 'finished');
  assert.equal(status.life.by, 'recovery');
  s.goBack();
  s.build();
  assert.equal(s.installed(), '7.0.0');
  assert.equal(s.out(), '7.0.0', 'b rebuilt with what is installed (outputs were kept: not reused, not restored)');
}

test('moon: kill -9 of the guard while its child runs; the next command withholds what the orphaned build saved', async (t) => {
  const s = await moonScenario(t, 'L');
  const guard = spawnGuard(GUARDED, s.root, s.env);
  let runDir: string | undefined;
  await until(
    () =>
      (runDir = latestRunDir(s.root)) !== undefined && fileIncludes(join(runDir, 'events.ndjson'), '"type":"child"'),
    'the child to start',
  );
  process.kill(guard.pid, 'SIGKILL');
  await guard.exited;
  await groupGone(guard.pid);
  await finishAndRebuild(s, (runDir ?? '').split('/').at(-1) ?? '');
});

test('moon: kill -9 of the guard after its child exited, before the final check', async (t) => {
  const s = await moonScenario(t, 'L');
  const guard = spawnGuard(GUARDED, s.root, { ...s.env, LOCKGUARD_TEST_PAUSE_AFTER_CHILD: '1' });
  await guard.waitFor(/test seam: paused after the child exited/, 120_000);
  process.kill(guard.pid, 'SIGKILL');
  await guard.exited;
  await groupGone(guard.pid);
  await finishAndRebuild(s, (latestRunDir(s.root) ?? '').split('/').at(-1) ?? '');
});
