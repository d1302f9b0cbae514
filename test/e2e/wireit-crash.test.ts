// kill -9 of a guard over `npm run build` with wireit (scenario M, wireit-scenario.ts), while its child runs
// and after the child exited (before the final check): the orphaned build finishes and saves under stale
// keys, nothing withholds them; the next command (`lockguard run -- true`) finishes the dead run through the
// wireit adapter (stamps off, entries into the dead run's quarantine, every byte kept), and back on S0 with
// the outputs in place wireit rebuilds b with what is installed.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { cliProcess } from '../helpers/cli.js';
import { childStarted, latestRunDir, lockguardJson, spawnGuard } from '../helpers/crash.js';
import {
  cacheKeys,
  hasStamp,
  quarantinedKeys,
  wireitScenario,
  type WireitScenario,
  installWireitOncePerFile,
} from '../helpers/wireit-scenario.js';

// One install per variant for the file, a private copy per test (wireit-scenario.ts).
installWireitOncePerFile();

const GUARDED = ['run', '--', 'npm', 'run', 'build'];

/** Every file under `dir`, relative to it, with its sha256. */
function digests(dir: string, out = new Map<string, string>(), top = dir): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) digests(path, out, top);
    else out.set(relative(top, path), createHash('sha256').update(readFileSync(path)).digest('hex'));
  }
  return out;
}

/** key → the digests of its entry's files, wherever the entries are: each package's cache, or quarantine. */
function entryBytes(s: WireitScenario, where: 'cache' | 'quarantine'): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  if (where === 'cache') {
    for (const name of ['a', 'b']) {
      const data = join(s.root, 'packages', name, '.wireit');
      for (const script of readdirSync(data))
        for (const key of readdirSync(join(data, script, 'cache')))
          out[key] = Object.fromEntries(digests(join(data, script, 'cache', key)));
    }
    return out;
  }
  const quarantine = join(s.root, '.lockguard', 'quarantine');
  for (const run of readdirSync(quarantine))
    for (const key of readdirSync(join(quarantine, run, 'entries', 'wireit'))) {
      // The entry's files under its cache-relative path (packages/<name>/.wireit/<hex>/cache/<key>/…).
      const home = join(quarantine, run, 'entries', 'wireit', key);
      const files = [...digests(home)].map(([path, digest]) => [
        path.slice(path.indexOf(`${key}/`) + key.length + 1),
        digest,
      ]);
      out[key] = Object.fromEntries(files);
    }
  return out;
}

async function finishAndRebuild(s: WireitScenario, deadRun: string): Promise<void> {
  // The orphaned build finished: both stale saves and their stamps are in place, nothing withheld them.
  assert.equal(s.out(), '6.0.0');
  assert.equal(cacheKeys(s).length, 2);
  assert.deepEqual(quarantinedKeys(s), []);
  assert.ok(hasStamp(s, 'b'));
  const before = entryBytes(s, 'cache');
  const next = cliProcess(['run', '--', 'true'], s.root, s.env, 120_000);
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stderr, new RegExp(`\\[lockguard\\] run ${deadRun} did not finish: its guard \\(pid \\d+\\) died`));
  assert.deepEqual(cacheKeys(s), [], 'both stale entries left the cache');
  assert.deepEqual(entryBytes(s, 'quarantine'), before, 'every byte of them is in the dead run’s quarantine');
  assert.equal(hasStamp(s, 'a') || hasStamp(s, 'b'), false, 'their stamps are gone');
  const status = lockguardJson<{ life: { state: string; by: string } }>(['status', '--run', deadRun], s.root, s.env);
  assert.equal(status.life.state, 'finished');
  assert.equal(status.life.by, 'recovery');
  s.goBack();
  s.build();
  assert.equal(s.installed(), '7.0.0');
  assert.equal(s.out(), '7.0.0', 'b rebuilt with what is installed (outputs were kept: not fresh, not restored)');
}

test('wireit: kill -9 of the guard while its child runs; the next command withholds what the orphaned build saved', async (t) => {
  const s = await wireitScenario(t, 'M');
  const guard = spawnGuard(GUARDED, s.root, s.env);
  const run = await childStarted(s.root);
  await guard.kill9();
  await finishAndRebuild(s, run);
});

test('wireit: kill -9 of the guard after its child exited, before the final check', async (t) => {
  const s = await wireitScenario(t, 'M');
  const guard = spawnGuard(GUARDED, s.root, { ...s.env, LOCKGUARD_TEST_PAUSE_AFTER_CHILD: '1' });
  await guard.waitFor(/test seam: paused after the child exited/, 120_000);
  await guard.kill9();
  await finishAndRebuild(s, (latestRunDir(s.root) ?? '').split('/').at(-1) ?? '');
});
