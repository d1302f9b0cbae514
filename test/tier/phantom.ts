// The real-registry tier's phantom-dependency step (issue 29), on the arms that name one (arms.ts `phantom`):
// project a depends on debug 3.2.7, whose src/node.js does `require('supports-color')` without declaring it
// (its package.json lists ms only; read from the registry's tarball), so what a's build loads is the
// supports-color another project installs: b's under pnpm's default hoisting (`node_modules/.pnpm/node_modules`),
// the root's under yarn's node-modules hoisting and PnP's fallback. a's build writes the version it loaded to
// `dist/phantom.json` (packages/a/phantom.cjs). The control (`phantomControl`, before init): turbo alone replays
// a's output built against the bump after going back. On the arm's own install, after the poisoning step:
// - mid-run: a#build installs supports-color 6.1.0 (the arm's bump) and builds with it; a's save, keyed on the
//   old lockfile, is withheld (never kept as "its project's slice did not move"); back on the lockfile, the
//   next guarded run rebuilds a with 5.5.0 (0 stale replays);
// - committed: the bump installed and committed moves a's `.lockguard-slice` (a's own slice does not change:
//   only its reach does), the guarded run rebuilds a with 6.1.0; going back moves it back and a says 5.5.0.
//
// Owns: the step and what it asserts. Invariants: starts and ends on the adopted lockfile and manifests (a's
// source edit taken back), so the way out still compares with the fixture.

import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Arm } from './arms.js';
import type { TierWorkspace } from './workspace.js';

type Result = { status: number | null; stdout: string; stderr: string };

const shown = (result: Result): string =>
  `exit ${result.status}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;

/** The supports-color version a's build loaded through debug, or undefined when a has no output. */
function loaded(w: TierWorkspace): string | null | undefined {
  try {
    const text = readFileSync(join(w.root, 'packages', 'a', 'dist', 'phantom.json'), 'utf8');
    return (JSON.parse(text) as { supportsColor?: string | null }).supportsColor;
  } catch {
    return undefined;
  }
}

function slice(w: TierWorkspace): string {
  return readFileSync(join(w.root, 'packages', 'a', '.lockguard-slice'), 'utf8');
}

function guarded(w: TierWorkspace, arm: Arm, what: string): Result {
  const run = w.lockguard(['run', '--', ...arm.run]);
  assert.equal(run.status, 0, `${what}\n${shown(run)}`);
  return run;
}

/** Back to the adopted lockfile and the bumped manifest, with a frozen install. */
function back(w: TierWorkspace, arm: Arm, manifest: string, from = 'HEAD'): void {
  w.git('checkout', from, '--', arm.lockfile, manifest);
  w.must(arm.frozen);
}

/**
 * Without lockguard (before init, after the arm's control): a#build bumping supports-color mid-run, then back on
 * the lockfile, turbo replays a's output built with 6.1.0 while debug loads 5.5.0: the registry layout's hazard.
 */
export function phantomControl(w: TierWorkspace, arm: Arm): void {
  const phantom = arm.phantom;
  if (phantom === undefined) return;
  try {
    appendFileSync(join(w.root, 'packages', 'a', 'src', 'index.js'), '// phantom control\n');
    w.arm(phantom.bump);
    const run = w.bin(arm.run);
    assert.equal(run.status, 0, `the phantom control\n${shown(run)}`);
    assert.equal(loaded(w), '6.1.0', 'the phantom control: a#build built with the supports-color it installed');
    back(w, arm, phantom.manifest);
    rmSync(join(w.root, 'packages', 'a', 'dist'), { recursive: true, force: true });
    const replay = w.bin(arm.run);
    assert.equal(replay.status, 0, `the phantom control after going back\n${shown(replay)}`);
    assert.equal(loaded(w), '6.1.0', 'the phantom control: turbo replays a stale a#build (without lockguard)');
  } finally {
    rmSync(join(w.base, 'armed'), { force: true });
    w.git('checkout', '--', 'packages/a/src');
    if (w.git('status', '--porcelain', '--', arm.lockfile, phantom.manifest) !== '') back(w, arm, phantom.manifest);
  }
}

export function phantomStep(w: TierWorkspace, arm: Arm): void {
  const phantom = arm.phantom;
  if (phantom === undefined) return;
  try {
    assert.equal(loaded(w), '5.5.0', "a's build loaded the supports-color the other project installs");
    midRun(w, arm, phantom);
    committed(w, arm, phantom);
  } finally {
    rmSync(join(w.base, 'armed'), { force: true });
    w.git('checkout', '--', 'packages/a/src');
    // A failed assertion mid-way leaves the bump installed: back to the lockfile, so the way out still runs.
    if (w.git('status', '--porcelain', '--', arm.lockfile, phantom.manifest) !== '') back(w, arm, phantom.manifest);
  }
}

function midRun(w: TierWorkspace, arm: Arm, phantom: NonNullable<Arm['phantom']>): void {
  appendFileSync(join(w.root, 'packages', 'a', 'src', 'index.js'), '// phantom\n');
  w.arm(phantom.bump);
  const run = guarded(w, arm, 'the run whose a#build bumps supports-color');
  assert.equal(loaded(w), '6.1.0', `a#build built with the supports-color it installed\n${shown(run)}`);
  const lines = `${run.stdout}\n${run.stderr}`.split('\n').filter((line) => line.startsWith('[lockguard]'));
  assert.doesNotMatch(lines.join('\n'), /kept \([^)]*a#build/, `a#build is not kept\n${shown(run)}`);
  const list = w.lockguard(['quarantine', 'list', '--json']).stdout;
  assert.match(list, /a#build/, `a#build's save is withheld\n${list}\n${shown(run)}`);
  back(w, arm, phantom.manifest);
  guarded(w, arm, 'the run after going back');
  assert.equal(loaded(w), '5.5.0', 'a rebuilt against what debug loads now (no stale replay)');
}

function committed(w: TierWorkspace, arm: Arm, phantom: NonNullable<Arm['phantom']>): void {
  w.git('checkout', '--', 'packages/a/src');
  // a's entry for this source on the old lockfile (5.5.0) is in the cache from the ordinary runs.
  const before = slice(w);
  w.must(phantom.bump);
  w.git('add', '-A');
  w.git('commit', '-qm', 'supports-color 6.1.0');
  try {
    assert.notEqual(slice(w), before, "the bump moved a's .lockguard-slice (only a's reach changed)");
    guarded(w, arm, 'the run after the committed bump');
    assert.equal(loaded(w), '6.1.0', 'a rebuilt with the bumped supports-color (its key moved)');
  } finally {
    back(w, arm, phantom.manifest, 'HEAD~1');
    w.git('reset', '-q', 'HEAD~1');
  }
  assert.equal(slice(w), before, "a's slice file back with the lockfile");
  guarded(w, arm, 'the run back on the old lockfile');
  assert.equal(loaded(w), '5.5.0', 'a says what debug loads now (no stale replay)');
}
