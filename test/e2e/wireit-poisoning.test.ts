// wireit 0.14.13 under `npm run` in a pnpm workspace (issue 32): a's build rewrites what b resolves (M: `pnpm
// --filter b add is-number@6.0.0`, L: `pnpm --filter b update is-number@6.0.0 --no-save`), b's build keys
// after a's but folds no pnpm lockfile (npm's default `packageLocks` is package-lock.json). Without lockguard
// the next run after going back replays 6.0.0 while 7.0.0 is installed: from the cache (outputs removed), or
// as "fresh" (outputs kept, the fingerprint stamp naming the stale save). Under `lockguard run -- npm run
// build` both saves are withheld (entry folders quarantined, their stamps removed) and the next run rebuilds
// b with what is installed, and restores nothing stale. `quarantine restore` puts them back; under `pnpm run`
// (not poisoned: wireit folds pnpm-lock.yaml there) a guarded run works the same way.

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { latestRunDir } from '../helpers/crash.js';
import { check } from '../helpers/tool-shims.js';
import {
  cacheKeys as entries,
  hasStamp,
  quarantinedKeys as quarantined,
  wireitScenario,
  type WireitVariant,
  installWireitOncePerFile,
} from '../helpers/wireit-scenario.js';

// One install per variant for the file, a private copy per test (wireit-scenario.ts).
installWireitOncePerFile();

const CASES: ReadonlyArray<readonly [WireitVariant, boolean]> = [
  ['M', false],
  ['L', true],
];

for (const [variant, removeOutputs] of CASES) {
  const how = removeOutputs ? 'from its cache (outputs removed)' : 'as fresh (outputs kept)';
  test(`wireit ${variant}, control without lockguard: after going back the stale 6.0.0 is replayed ${how}`, async (t) => {
    const s = await wireitScenario(t, variant);
    s.build();
    assert.equal(s.out(), '6.0.0', 'a rewrote what b resolves before b built');
    assert.equal(entries(s).length, 2, 'a and b saved');
    s.goBack({ removeOutputs });
    assert.equal(s.installed(), '7.0.0');
    const back = s.build();
    assert.match(back.stdout + back.stderr, /Ran 0 scripts/, 'wireit ran nothing');
    assert.equal(s.out(), '6.0.0', 'stale: 6.0.0 while 7.0.0 is installed');
  });

  test(`wireit ${variant}, guarded: both saves withheld, and the next run rebuilds b with what is installed (${removeOutputs ? 'outputs removed' : 'outputs kept'})`, async (t) => {
    const s = await wireitScenario(t, variant);
    const run = s.lockguard(['run', '--', 'npm', 'run', 'build']);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(s.out(), '6.0.0');
    assert.match(run.stderr, /pnpm-lock\.yaml changed at .* saves from now on will be withheld/);
    assert.match(run.stderr, /2 cache saves .*withheld/);
    assert.doesNotMatch(run.stderr, /not guarded/);
    assert.deepEqual(entries(s), [], 'both entries left the cache');
    assert.equal(quarantined(s).length, 2, 'both are in quarantine, restorable');
    for (const name of ['a', 'b'])
      assert.equal(hasStamp(s, name), false, `${name}'s fingerprint stamp naming the withheld save is gone`);
    s.goBack({ removeOutputs });
    assert.equal(s.installed(), '7.0.0');
    const back = s.build();
    assert.match(back.stdout + back.stderr, /Ran 2 scripts/, 'a and b ran: misses, nothing restored');
    assert.equal(s.out(), '7.0.0', 'b rebuilt with what is installed');
  });
}

test('wireit, guarded then `quarantine restore`: the withheld entries go back into their package caches, and wireit restores from them again', async (t) => {
  const s = await wireitScenario(t, 'M');
  const run = s.lockguard(['run', '--', 'npm', 'run', 'build']);
  assert.equal(run.status, 0, run.stderr);
  const withheld = quarantined(s);
  assert.equal(withheld.length, 2);
  const runId = (latestRunDir(s.root) ?? '').split('/').at(-1) ?? '';
  const restore = s.lockguard(['quarantine', 'restore', '--run', runId]);
  assert.equal(restore.status, 0, restore.stderr);
  assert.deepEqual(entries(s), withheld, 'every withheld entry is back in its package cache');
  // 6.0.0 is what is installed now (a's install ran): with the outputs gone, wireit restores them from the cache.
  for (const name of ['a', 'b']) rmSync(join(s.root, 'packages', name, 'dist'), { recursive: true, force: true });
  const again = s.build();
  assert.match(again.stdout + again.stderr, /Ran 0 scripts/);
  assert.equal(s.out(), '6.0.0');
});

test('wireit under `pnpm run` (keys fold pnpm-lock.yaml, taken after a ran): guarded, the saves after the move are withheld and the next run rebuilds', async (t) => {
  const s = await wireitScenario(t, 'M');
  const run = s.lockguard(['run', '--', 'pnpm', 'run', 'build']);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(s.out(), '6.0.0');
  assert.doesNotMatch(run.stderr, /not guarded/);
  assert.deepEqual(entries(s), []);
  assert.equal(quarantined(s).length, 2);
  s.goBack();
  const back = check(s.sh(['pnpm', 'run', 'build']), 'pnpm run build');
  assert.match(back.stdout + back.stderr, /Ran 2 scripts/);
  assert.equal(s.out(), '7.0.0');
});
