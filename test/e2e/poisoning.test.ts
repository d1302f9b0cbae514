// The poisoning scenario (test/helpers/runner-scenario.ts) WITHOUT lockguard, with the real runners: proof that the poisoning is real.
// a#build rewrites the lockfile (adds tiny-dep 6.0.0 to b); b#build, keyed up front on S0, saves 6.0.0.
// Back on S0 with 7.0.0 really installed, the runner replays 6.0.0 from its cache.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { scenario } from '../helpers/runner-scenario.js';
import type { ScenarioManager, Tool } from '../helpers/scenario-workspace.js';

const CASES: readonly (readonly [Tool, ScenarioManager])[] = [
  ['turbo', 'pnpm'],
  ['nx', 'pnpm'],
  ['pnpm-pipeline', 'pnpm'],
  ['turbo', 'yarn'],
  ['turbo', 'bun'],
];

for (const [tool, manager] of CASES) {
  test(`${tool}${manager === 'pnpm' ? '' : ` over a ${manager} workspace`}: a lockfile rewritten mid-run is replayed stale after going back`, (t) => {
    const s = scenario(t, tool, { manager });
    const s0 = readFileSync(s.lockfile);
    {
      // Run 1: a installs tiny-dep 6.0.0 into b, b builds against it.
      s.runner();
      assert.notDeepEqual(readFileSync(s.lockfile), s0);
      assert.equal(s.out(), '6.0.0');
    }
    {
      // Back to S0: 7.0.0 is what is installed.
      s.goBack();
      assert.deepEqual(readFileSync(s.lockfile), s0);
      assert.equal(s.installed(), '7.0.0');
      assert.equal(s.out(), undefined);
    }
    {
      // Run 2: the runner restores b from the entry saved under S0's key: stale 6.0.0.
      s.runner();
      assert.equal(s.installed(), '7.0.0');
      assert.equal(s.out(), '6.0.0');
    }
  });
}
