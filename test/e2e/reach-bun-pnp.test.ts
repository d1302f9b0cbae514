// Reach under bun 1.4 and yarn 4 PnP's fallback pool (issue 29), end to end with the real bun 1.4.5, yarn
// 4.18.1 and turbo 2.11: the phantom-dependency scenario (test/helpers/reach-arms.ts). bun (its default
// linker for a workspace, isolated since bun 1.3): a's phantom-x requires tiny-dep, which bun links into its
// private pool, node_modules/.bun/node_modules, where phantom-x resolves it. yarn
// PnP (`pnpFallbackMode: dependencies-only`, the default): phantom-x is not a workspace, so an undeclared
// require falls back to the top-level workspace's dependencies; the root depends on tiny-dep and the move
// is the root's. Per arm, one installed scenario serves withholding mid-run and sound keys after a pulled
// change, each with its control that replays a stale a#build: then 0 stale replays under lockguard.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { armScenario, soundKeysArm, withholdArm } from '../helpers/reach-arms.js';

test("bun: phantom-x resolves b's tiny-dep where bun hoists it; withheld mid-run, sound keys move a", (t) => {
  const arm = armScenario(t, { manager: 'bun' });
  const pool = join(arm.s.root, 'node_modules', '.bun', 'node_modules', 'tiny-dep');
  assert.ok(existsSync(pool), "bun 1.4 installs the workspace isolated: tiny-dep is in bun's private pool");
  assert.ok(!existsSync(join(arm.s.root, 'node_modules', 'tiny-dep')), 'and not in the root node_modules');
  withholdArm(arm);
  assert.match(soundKeysArm(arm).before, /^reach [0-9a-f]{64}$/m);
});

test('bun linker = "hoisted": a\'s own code requires tiny-dep from the root node_modules; withheld mid-run, sound keys move a', (t) => {
  const arm = armScenario(t, { manager: 'bun', bunfig: '[install]\nlinker = "hoisted"\n', ownPhantom: true });
  assert.ok(existsSync(join(arm.s.root, 'node_modules', 'tiny-dep')), 'bun hoists tiny-dep to the root');
  assert.ok(!existsSync(join(arm.s.root, 'packages', 'a', 'node_modules')), 'a installs no package');
  withholdArm(arm);
  assert.match(soundKeysArm(arm).before, /^reach [0-9a-f]{64}$/m, "a's file folds the hoisted pool");
});

test("yarn 4 PnP fallback: phantom-x resolves the root's tiny-dep through pnpFallbackMode; withheld mid-run, sound keys move a", (t) => {
  const arm = armScenario(t, { manager: 'yarn', yarnrc: '', rootDependency: true });
  withholdArm(arm);
  assert.match(soundKeysArm(arm).before, /^root [0-9a-f]{64}$/m, "a's file folds the root's slice");
});
