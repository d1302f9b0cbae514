// Reach under npm's and yarn 4's node-modules layouts (issue 29), end to end with the real npm 11.19.1, yarn
// 4.18.1 and turbo 2.11: the phantom-dependency scenario (test/helpers/reach-arms.ts). npm: a's own code
// requires tiny-dep without declaring it, and a installs no package (what npm's root node_modules lets every
// project do); yarn `nodeLinker: node-modules`: a's phantom-x requires it. Per arm, one installed scenario
// serves withholding mid-run and sound keys after a pulled change, each with its control that replays a
// stale a#build: then 0 stale replays under lockguard. Each arm first proves its layout from the tree.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { armScenario, soundKeysArm, withholdArm } from '../helpers/reach-arms.js';

test("npm: a's own code requires tiny-dep from the root node_modules; withheld mid-run, sound keys move a", (t) => {
  const arm = armScenario(t, { manager: 'npm', ownPhantom: true });
  assert.ok(existsSync(join(arm.s.root, 'node_modules', 'tiny-dep')), 'npm hoists tiny-dep to the root');
  assert.ok(!existsSync(join(arm.s.root, 'packages', 'a', 'node_modules')), 'a installs no package');
  const stderr = withholdArm(arm);
  assert.match(stderr, /npm hoists packages/, 'the whole run is withheld, and the line says why');
  assert.match(soundKeysArm(arm).before, /^reach [0-9a-f]{64}$/m, "a's file folds the hoisted pool");
});

test('yarn 4 nodeLinker: node-modules: phantom-x resolves tiny-dep from the root node_modules; withheld mid-run, sound keys move a', (t) => {
  const arm = armScenario(t, { manager: 'yarn', yarnrc: 'nodeLinker: node-modules\n' });
  assert.ok(existsSync(join(arm.s.root, 'node_modules', 'tiny-dep')), 'yarn hoists tiny-dep to the root');
  withholdArm(arm);
  assert.match(soundKeysArm(arm).before, /^reach [0-9a-f]{64}$/m);
});
