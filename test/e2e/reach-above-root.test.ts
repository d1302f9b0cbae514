// Reach from a `node_modules` above the workspace root (issue 29), end to end with the real pnpm 10, npm 11
// and turbo 2.11: Node resolves a name a project's own node_modules lacks from every ancestor's node_modules,
// so a's own code (a declares nothing) resolves tiny-dep from one that npm installed above the root. A move
// there is no file of the workspace: lockguard watches that folder's install markers (core/entries.ts
// `ancestor-marker`), folds them into no table key, and `doctor` says so. Mid-run: the control replays a stale
// a#build; under `lockguard run` the whole run's saves are withheld, and the line says why. Between runs (a change
// up there, installed): the control replays; where the slice files are gitignored (init's default) each folds
// the markers (its `above` line), so a's key moves: 0 stale replays.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import { armScenario, soundKeysArm, withholdArm } from '../helpers/reach-arms.js';

test("a node_modules above the root: a's own code resolves tiny-dep from it; doctor says so; withheld mid-run", (t) => {
  const arm = armScenario(t, { above: true });
  const { s } = arm;
  assert.ok(existsSync(join(s.base, 'node_modules', 'tiny-dep')), 'npm installed tiny-dep above the root');
  assert.ok(!existsSync(join(s.root, 'node_modules', 'tiny-dep')), 'the workspace root holds no tiny-dep');
  assert.ok(!existsSync(join(s.root, 'packages', 'a', 'node_modules', 'tiny-dep')), 'a installs no tiny-dep');

  const doctor = s.sh([process.execPath, BIN, 'doctor']);
  const above = doctor.stdout.split('\n').filter((line) => line.includes('above the workspace root'));
  assert.equal(above.length, 1, doctor.stdout);
  assert.match(above[0] ?? '', new RegExp(`${join(s.base, 'node_modules')} is a node_modules above`));
  assert.match(above[0] ?? '', /watches \.\.\/node_modules\/\.package-lock\.json/);
  assert.match(above[0] ?? '', /no key folds it/);

  const stderr = withholdArm(arm);
  assert.match(
    stderr,
    /\.\.\/node_modules\/\.package-lock\.json moved: a node_modules above the workspace root/,
    'every save after the move is withheld, and the line says why',
  );
  assert.match(stderr, /a node_modules above the workspace root, which every project resolves from: /);

  // Sound keys after a change up there between runs: turbo alone replays; gitignored slice files fold it.
  const { before, after } = soundKeysArm(arm);
  assert.match(before, /^above [0-9a-f]{64}$/m, "a's file folds the markers above the root");
  const line = (text: string, prefix: string) => text.split('\n').find((each) => each.startsWith(prefix));
  assert.equal(line(after, 'slice '), line(before, 'slice '), "a's own slice did not move");
  const folded = s.sh([process.execPath, BIN, 'doctor']);
  assert.match(folded.stdout, /each project's \.lockguard-slice folds it/, folded.stdout);
});
