// Sound keys under pnpm's default private hoisting (issue 29), end to end with the real pnpm 10.34.8 / 12.4.2
// and turbo 2.11: project a depends on phantom-x, whose index.js requires tiny-dep without declaring it;
// project b pins tiny-dep 7.0.0. A change that moves b to tiny-dep 6.0.0 (pulled and installed, as a
// committed bump is) changes what phantom-x resolves for a, while a's own lockfile slice stays as it was.
// Per pnpm major, one installed scenario serves both arms: the control (turbo alone: a#build is replayed
// saying 7.0.0 while a resolves 6.0.0) and sound keys (`lockguard init`, whose slice files fold the hoisted
// pool: a's key moves, a#build is rebuilt, 0 stale replays).

import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import { scenario, type Scenario } from '../helpers/runner-scenario.js';

function recorded(s: Scenario): string | undefined {
  try {
    return (
      JSON.parse(readFileSync(join(s.root, 'packages', 'a', 'dist', 'phantom.json'), 'utf8')) as { tinyDep: string }
    ).tinyDep;
  } catch {
    return undefined;
  }
}

function resolvesNow(s: Scenario): string {
  const result = s.sh([
    'node',
    '-p',
    "require(require.resolve('phantom-x', { paths: [process.cwd() + '/packages/a'] }))",
  ]);
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim();
}

/** A build (guarded or not) from a clean dist: whether a#build was replayed, what it says, what a resolves. */
function build(s: Scenario, guarded: boolean): { aHit: boolean; says: string | undefined; resolves: string } {
  rmSync(join(s.root, 'packages', 'a', 'dist'), { recursive: true, force: true });
  const turbo = ['turbo', 'run', 'build', '--output-logs=hash-only'];
  const run = s.sh(guarded ? [process.execPath, BIN, 'run', '--', ...turbo] : turbo);
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  return { aHit: /a:build: cache hit/.test(run.stdout), says: recorded(s), resolves: resolvesNow(s) };
}

/** The bump as a pulled commit brings it: b moves to tiny-dep 6.0.0, installed (nothing of a changes). */
function bump(s: Scenario): void {
  const add = s.sh(['pnpm', '--filter', 'b', 'add', 'tiny-dep@file:../../vendor/tiny-dep-6.0.0.tgz']);
  assert.equal(add.status, 0, add.stderr);
}

for (const pnpm of [10, 12] as const) {
  test(`pnpm ${pnpm} defaults (hoist-pattern *): a bump of b moves what a's phantom dependency resolves; turbo alone replays a stale a#build, with sound keys a's key moves`, (t) => {
    const s = scenario(t, 'turbo', { phantom: true, pnpm });
    rmSync(join(s.base, 'armed'), { force: true });
    {
      // The control: turbo's own key for a#build folds nothing of b's tiny-dep.
      assert.deepEqual(build(s, false), { aHit: false, says: '7.0.0', resolves: '7.0.0' });
      bump(s);
      assert.deepEqual(build(s, false), { aHit: true, says: '7.0.0', resolves: '6.0.0' }, 'the control replays');
    }
    s.goBack();
    rmSync(join(s.root, '.turbo'), { recursive: true, force: true });
    {
      const init = s.sh([process.execPath, BIN, 'init', '--no-pnpmfile']);
      assert.equal(init.status, 0, `${init.stdout}\n${init.stderr}`);
      assert.match(init.stdout, /\.lockguard-slice/);
      assert.deepEqual(build(s, true), { aHit: false, says: '7.0.0', resolves: '7.0.0' });
      const before = readFileSync(join(s.root, 'packages', 'a', '.lockguard-slice'), 'utf8');
      assert.match(before, /^reach [0-9a-f]{64}$/m, 'a installs phantom-x: its file folds the hoisted pool');
      bump(s);
      assert.deepEqual(build(s, true), { aHit: false, says: '6.0.0', resolves: '6.0.0' }, '0 stale replays');
      const after = readFileSync(join(s.root, 'packages', 'a', '.lockguard-slice'), 'utf8');
      assert.notEqual(after, before, "a's slice file moved with the hoisted pool");
      assert.equal(
        after.split('\n').find((line) => line.startsWith('slice ')),
        before.split('\n').find((line) => line.startsWith('slice ')),
        "a's own slice did not move: only its reach did",
      );
    }
  });
}
