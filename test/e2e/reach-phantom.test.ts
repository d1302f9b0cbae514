// Reach under pnpm's default private hoisting (issue 29), end to end with the real pnpm 10.34.8 / 12.4.2 and
// turbo 2.11: project a depends on phantom-x, whose index.js requires tiny-dep without declaring it; project b
// pins tiny-dep 7.0.0. a#build runs `pnpm --filter b add tiny-dep@6.0.0`, then records what phantom-x
// resolves: 6.0.0, through `node_modules/.pnpm/node_modules/tiny-dep` (hoist-pattern `*`). a's own lockfile
// slice does not move; what it reaches does.
// Per pnpm major, one installed scenario serves both arms: the control (no lockguard: back at the old
// lockfile, turbo replays a#build, which says 6.0.0 while a resolves 7.0.0) and the guarded run (a#build's
// save is withheld: back at the old lockfile it is rebuilt, 0 stale replays).

import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import { scenario, type Scenario } from '../helpers/runner-scenario.js';

/** What a's build recorded phantom-x resolving, or undefined. */
function recorded(s: Scenario): string | undefined {
  try {
    return (
      JSON.parse(readFileSync(join(s.root, 'packages', 'a', 'dist', 'phantom.json'), 'utf8')) as { tinyDep: string }
    ).tinyDep;
  } catch {
    return undefined;
  }
}

/** What phantom-x resolves now, asked from a's folder. */
function resolvesNow(s: Scenario): string {
  const result = s.sh([
    'node',
    '-p',
    "require(require.resolve('phantom-x', { paths: [process.cwd() + '/packages/a'] }))",
  ]);
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim();
}

/** Back at the old lockfile, a plain turbo build: whether a#build was replayed, and what it says then. */
function backAndBuild(s: Scenario): { aHit: boolean; says: string | undefined; resolves: string } {
  s.goBack();
  rmSync(join(s.root, 'packages', 'a', 'dist'), { recursive: true, force: true });
  const next = s.sh(['turbo', 'run', 'build', '--output-logs=hash-only']);
  assert.equal(next.status, 0, `${next.stdout}\n${next.stderr}`);
  return { aHit: /a:build: cache hit/.test(next.stdout), says: recorded(s), resolves: resolvesNow(s) };
}

for (const pnpm of [10, 12] as const) {
  test(`pnpm ${pnpm} defaults (hoist-pattern *): a phantom dependency reached through the private hoist; the control replays a stale a#build, lockguard run withholds it`, (t) => {
    const s = scenario(t, 'turbo', { phantom: true, pnpm });
    assert.equal(resolvesNow(s), '7.0.0', 'phantom-x resolves the hoisted tiny-dep');
    {
      // The control, no lockguard: a#build is saved with 6.0.0 under a key the move did not change.
      const run = s.sh(['turbo', 'run', 'build']);
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
      assert.equal(recorded(s), '6.0.0');
      const back = backAndBuild(s);
      assert.deepEqual(back, { aHit: true, says: '6.0.0', resolves: '7.0.0' }, 'the control replays a stale a#build');
    }
    rmSync(join(s.root, '.turbo'), { recursive: true, force: true });
    s.arm();
    {
      const run = s.sh([process.execPath, BIN, 'run', '--', 'turbo', 'run', 'build', '--summarize']);
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
      const line = run.stderr.split('\n').find((each) => each.startsWith('[lockguard] a task')) ?? '';
      assert.match(line, /withheld \(a#build, b#build/, run.stderr);
      assert.doesNotMatch(line, /kept \(a#build/, line);
      const back = backAndBuild(s);
      assert.deepEqual(back, { aHit: false, says: '7.0.0', resolves: '7.0.0' }, '0 stale replays');
    }
  });
}
