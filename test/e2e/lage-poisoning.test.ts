// lage 2.17.0 in a pnpm workspace (issue 32): a's build rewrites what b resolves (M: `pnpm --filter b add
// is-number@6.0.0`, L: `pnpm --filter b update is-number@6.0.0 --no-save`). lage parses the lockfile once, when
// the run starts, and hashes a package's files when its target starts. Without lockguard, L replays the stale
// 6.0.0 after going back (b's key folded the lockfile as it was before a ran); M does not (b's package.json
// changed too, so b's key differs from S0's: measured, as FIELD-NOTES says), but its save is keyed on a
// lockfile parse that was already stale. Under `lockguard run` (directly and through the root script) both
// saves are withheld (each `cache/<hash[:4]>/<hash>/` folder with its log) and the next run after going back
// is a miss that rebuilds b with what is installed. One install for the file, copied per test
// (lage-scenario.ts); `quarantine restore` and a killed guard are lage-crash.test.ts.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  cacheKeys as entries,
  type LageInstall,
  lageInstall,
  lageScenario,
  logKeys as logs,
  quarantinedKeys as quarantined,
  ranAndSkipped,
} from '../helpers/lage-scenario.js';

// Started at load, so its cleanup is the file's (`after` at the top level), not the first test's.
const installing = lageInstall({ after: (fn) => after(fn as () => void) });
const install = (): Promise<LageInstall> => installing;

test('lage L, control without lockguard: after going back the stale 6.0.0 is replayed from its cache', async () => {
  const s = lageScenario(await install(), 'L', 'control-l');
  s.build();
  assert.equal(s.out(), '6.0.0', 'a rewrote what b resolves before b built');
  assert.equal(entries(s).length, 2, 'a and b saved');
  s.goBack();
  assert.equal(s.installed(), '7.0.0');
  const back = ranAndSkipped(s.build());
  assert.deepEqual(back, { ran: 0, skipped: 2 }, 'lage ran nothing: both hits');
  assert.equal(s.out(), '6.0.0', 'stale: 6.0.0 while 7.0.0 is installed');
});

test("lage M, control without lockguard: b's manifest changed too, so going back is a miss for b (not poisoned)", async () => {
  const s = lageScenario(await install(), 'M', 'control-m');
  s.build();
  assert.equal(s.out(), '6.0.0');
  assert.equal(entries(s).length, 2);
  s.goBack();
  const back = ranAndSkipped(s.build());
  assert.deepEqual(back, { ran: 1, skipped: 1 }, 'a restored, b rebuilt');
  assert.equal(s.out(), '7.0.0');
});

for (const [variant, how] of [
  ['L', ['pnpm', 'exec', 'lage', 'build']],
  ['M', ['pnpm', 'build']],
] as const) {
  test(`lage ${variant}, guarded (lockguard run -- ${how.join(' ')}): both saves withheld, and the next run rebuilds b with what is installed`, async () => {
    const s = lageScenario(await install(), variant, `guarded-${variant}`);
    const run = s.lockguard(['run', '--', ...how]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(s.out(), '6.0.0');
    assert.match(run.stderr, /pnpm-lock\.yaml changed at .* saves from now on will be withheld/);
    assert.match(run.stderr, /2 cache saves .*withheld/);
    assert.doesNotMatch(run.stderr, /not guarded/);
    assert.deepEqual(entries(s), [], 'both entries left the cache');
    assert.equal(quarantined(s).length, 2, 'both are in quarantine, restorable');
    assert.deepEqual(logs(s), [], 'their logs went with them');
    s.goBack();
    assert.equal(s.installed(), '7.0.0');
    const back = ranAndSkipped(s.build());
    assert.deepEqual(back, { ran: 2, skipped: 0 }, 'a and b ran: misses, nothing restored');
    assert.equal(s.out(), '7.0.0', 'b rebuilt with what is installed');
  });
}

test("lockguard plan -- lage build: lage's own target graph (lage info); a target whose script installs is a writer and the targets after it unstable", async () => {
  const s = lageScenario(await install(), 'L', 'plan');
  const quiet = s.lockguard(['plan', '--json', '--', 'lage', 'build']);
  assert.equal(quiet.status, 0, quiet.stderr);
  const none = JSON.parse(quiet.stdout) as { runner: string; writers: string[]; unstable: string[] };
  assert.deepEqual([none.runner, none.writers, none.unstable], ['lage', [], []]);
  // a's build script now runs an install lockguard can read (the scenario's own hides it in a .cjs file).
  const manifest = join(s.root, 'packages', 'a', 'package.json');
  const a = JSON.parse(readFileSync(manifest, 'utf8')) as { scripts: Record<string, string> };
  a.scripts['build'] = `pnpm --filter b add is-number@6.0.0 && ${a.scripts['build']}`;
  writeFileSync(manifest, JSON.stringify(a));
  const plan = s.lockguard(['plan', '--json', '--', 'lage', 'build']);
  assert.equal(plan.status, 1, plan.stderr);
  const data = JSON.parse(plan.stdout) as { runner: string; writers: string[]; unstable: string[] };
  assert.deepEqual([data.runner, data.writers, data.unstable], ['lage', ['a#build'], ['b#build']]);
  assert.deepEqual(entries(s), [], 'nothing ran: no cache entry');
});
