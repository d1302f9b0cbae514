// Reach under pnpm 10's hoisting layouts (issue 29), end to end with the real pnpm 10.34.8 and turbo 2.11: the
// phantom-dependency scenario (test/helpers/reach-arms.ts) with public hoisting (`publicHoistPattern` in
// pnpm-workspace.yaml) and with the hoisted linker (`node-linker=hoisted` in .npmrc), where tiny-dep lives in
// the root node_modules: a's own code requires it, and a installs no package (so only core/slices/layout.ts,
// reading those settings, makes a's slice file fold the pool; a dependency's phantom follows). Per arm, one
// installed scenario serves withholding mid-run and sound keys after a pulled change, each with its control
// that replays a stale a#build: then 0 stale replays under lockguard. Each arm first proves its layout from
// the installed tree.

import assert from 'node:assert/strict';
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { armScenario, soundKeysArm, withholdArm } from '../helpers/reach-arms.js';

test("pnpm 10 public-hoist-pattern: a's own code requires the publicly hoisted tiny-dep; withheld mid-run, sound keys move a", (t) => {
  const arm = armScenario(t, { workspaceYaml: 'publicHoistPattern:\n  - tiny-dep\n', ownPhantom: true });
  assert.ok(existsSync(join(arm.s.root, 'node_modules', 'tiny-dep')), 'tiny-dep is publicly hoisted to the root');
  assert.ok(!existsSync(join(arm.s.root, 'packages', 'a', 'node_modules')), 'a installs no package');
  const stderr = withholdArm(arm);
  assert.match(stderr, /public-hoist-pattern/, 'the whole run is withheld, and the line says why');
  assert.match(soundKeysArm(arm).before, /^reach [0-9a-f]{64}$/m);
});

test("pnpm 10 node-linker=hoisted: a's own code requires tiny-dep from the root node_modules; withheld mid-run, sound keys move a", (t) => {
  const arm = armScenario(t, { npmrc: 'node-linker=hoisted\n', ownPhantom: true });
  const tinyDep = join(arm.s.root, 'node_modules', 'tiny-dep');
  assert.ok(!lstatSync(tinyDep).isSymbolicLink(), 'the hoisted linker copies tiny-dep into the root node_modules');
  assert.ok(!existsSync(join(arm.s.root, 'packages', 'a', 'node_modules')), 'a installs no package');
  const stderr = withholdArm(arm);
  assert.match(stderr, /node-linker=hoisted/, 'the whole run is withheld, and the line says why');
  assert.match(soundKeysArm(arm).before, /^reach [0-9a-f]{64}$/m);
});
