// Reach under pnpm 10 through workspace packages (issue 29), end to end with the real pnpm 10.34.8 and turbo
// 2.11: the phantom-dependency scenario (test/helpers/reach-arms.ts) where phantom-x requires workspace package
// b, reached through the private hoist (`hoist-workspace-packages`), and where phantom-x is itself a workspace
// package that a depends on injected (`dependenciesMeta.injected`, with `dedupe-injected-deps=false`: pnpm
// 10 links an injected package back to its folder when its dependencies resolve alike; the copy in the
// virtual store resolves tiny-dep from the private hoist, the folder would not). Per arm, one installed
// scenario serves withholding mid-run and sound keys after a pulled change, each with its control that
// replays a stale a#build: then 0 stale replays under lockguard.

import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { armScenario, soundKeysArm, withholdArm } from '../helpers/reach-arms.js';

test('pnpm 10 hoist-workspace-packages: phantom-x requires workspace package b through the private hoist; withheld mid-run, sound keys move a', (t) => {
  const arm = armScenario(t, { npmrc: 'hoist-workspace-packages=true\n', phantomRequires: 'b' });
  assert.equal(
    realpathSync(join(arm.s.root, 'node_modules', '.pnpm', 'node_modules', 'b')),
    realpathSync(join(arm.s.root, 'packages', 'b')),
    'b is hoisted into the private pool',
  );
  withholdArm(arm);
  assert.match(soundKeysArm(arm).before, /^reach [0-9a-f]{64}$/m);
});

test('pnpm 10 injected workspace dependency: the injected copy resolves tiny-dep from the private hoist; withheld mid-run, sound keys move a', (t) => {
  const arm = armScenario(t, { injected: true, npmrc: 'dedupe-injected-deps=false\n' });
  const copy = realpathSync(join(arm.s.root, 'packages', 'a', 'node_modules', 'phantom-x'));
  assert.match(copy, /node_modules[/]\.pnpm[/]/, 'a installs a copy of phantom-x, in the virtual store');
  withholdArm(arm);
  assert.match(soundKeysArm(arm).before, /^reach [0-9a-f]{64}$/m);
});
