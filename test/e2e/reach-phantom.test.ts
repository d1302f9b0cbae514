// Reach under pnpm's default private hoisting (issue 29), end to end with the real pnpm 10.34.8 / 12.4.2 and
// turbo 2.11: project a depends on phantom-x, whose index.js requires tiny-dep without declaring it; project b
// pins tiny-dep 7.0.0. What moves b to tiny-dep 6.0.0 changes what phantom-x resolves (through
// `node_modules/.pnpm/node_modules/tiny-dep`, hoist-pattern `*`) while a's own lockfile slice stays.
// Per pnpm major, one installed scenario serves both halves (test/helpers/reach-arms.ts), each with its
// control (turbo alone replays a stale a#build): withholding mid-run (a#build's install; a#build's save is
// withheld) and sound keys after a pulled bump (a's slice file folds the hoisted pool, so its key moves while
// its own slice line does not). 0 stale replays under lockguard.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { armScenario, soundKeysArm, withholdArm } from '../helpers/reach-arms.js';

const line = (text: string, prefix: string): string | undefined =>
  text.split('\n').find((each) => each.startsWith(prefix));

for (const pnpm of [10, 12] as const) {
  test(`pnpm ${pnpm} defaults (hoist-pattern *): a phantom dependency reached through the private hoist; withheld mid-run, sound keys move a's key (each with a control that replays)`, (t) => {
    const arm = armScenario(t, { pnpm });
    const stderr = withholdArm(arm);
    assert.match(line(stderr, '[lockguard] a task') ?? '', /withheld \(a#build, b#build/, stderr);
    const { before, after } = soundKeysArm(arm);
    assert.match(before, /^reach [0-9a-f]{64}$/m, 'a installs phantom-x: its file folds the hoisted pool');
    assert.equal(line(after, 'slice '), line(before, 'slice '), "a's own slice did not move: only its reach did");
  });
}
