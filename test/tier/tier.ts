// The real-registry tier's arm, as a team adopting lockguard would go: the workspace installed from the npm
// registry (its committed lockfile), lockguard added from its packed tarball (its bin and its library, ESM and
// CommonJS, as this package manager installed them), a control without lockguard
// that replays a stale output, then `init`, the install it asks for, `doctor`, five ordinary guarded runs, the
// poisoning scenario guarded, and the way out.
//
// Owns: the steps and what each asserts; the known-gap reversal (a step listed in known-gaps.ts must fail,
// any other must pass); the per-step wall times, reported as the test's diagnostic.
// Invariants: every install after the adoption commit is frozen except the ones a user types (the install
// `init` asks for, the poisoning's `add`, the way out's `remove`); the control runs before `init`, so its stale
// entry is keyed without lockguard's slice files and cannot meet the guarded runs.

import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { TestContext } from 'node:test';
import { ARMS, type Arm, type ArmId, YARN_PLUGIN } from './arms.js';
import { knownGap, type Step } from './known-gaps.js';
import { phantomControl, phantomStep } from './phantom.js';
import { sharedRun } from './shared.js';
import { type TierWorkspace, tierWorkspace } from './workspace.js';

const BEFORE = 'the version b was built with, which S0 installs';

function must(result: { status: number | null; stdout: string; stderr: string }, what: string): void {
  if (result.status !== 0) throw new Error(`${what} failed\n${shown(result)}`);
}

/** Output a guarded run prints only when something moved or was withheld. */
function lockguardLines(result: { stdout: string; stderr: string }): string[] {
  return `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => line.startsWith('[lockguard]'));
}

function shown(result: { status: number | null; stdout: string; stderr: string }): string {
  return `exit ${result.status}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

/** Back to the adopted lockfile and b's manifest (S0), with a frozen install; b's output removed. */
function goBack(w: TierWorkspace, arm: Arm): void {
  w.git('checkout', '--', arm.lockfile, 'packages/b/package.json');
  w.must(arm.frozen);
}

function edit(w: TierWorkspace, project: 'a' | 'b', note: string): void {
  appendFileSync(join(w.root, 'packages', project, 'src', 'index.js'), `// ${note}\n`);
}

/**
 * Adopt: lockguard added to the root's devDependencies from its tarball (`file:`, sorted in as the tools
 * write it), then the install (the committed lockfile keeps every other version); commit.
 */
function adopt(w: TierWorkspace, arm: Arm): void {
  const manifest = join(w.root, 'package.json');
  const json = JSON.parse(readFileSync(manifest, 'utf8')) as { devDependencies: Record<string, string> };
  const tarball = relative(w.root, join(w.base, 'lockguard.tgz'));
  json.devDependencies = Object.fromEntries(
    Object.entries({ ...json.devDependencies, lockguard: `file:${tarball}` }).sort(([a], [b]) => a.localeCompare(b)),
  );
  writeFileSync(manifest, `${JSON.stringify(json, null, 2)}\n`);
  w.must(arm.install);
  w.git('add', '-A');
  w.git('commit', '-qm', 'lockguard added from its tarball');
}

/** The exports a user's code reaches first, as `Object.keys` lists them, sorted. */
const SOME_EXPORTS = ['FingerprintWatch', 'guardedRun', 'readWorkspaceFingerprints'];
const LISTED = `Object.keys(m).filter((k) => ${JSON.stringify(SOME_EXPORTS)}.includes(k)).sort().join()`;

/**
 * lockguard as its tarball installed it with this package manager: the bin's help, and the library imported
 * (ESM) and required (CommonJS, through require(esm) on the Node the suite runs) from the workspace root.
 */
function installedPackage(w: TierWorkspace): void {
  const help = w.lockguard(['--help']);
  assert.equal(help.status, 0, `lockguard --help\n${shown(help)}`);
  assert.match(help.stdout, /^Usage: lockguard /m, `lockguard --help\n${shown(help)}`);
  const esm = w.bin([
    'node',
    '--input-type=module',
    '-e',
    `const m = await import('lockguard'); console.log(${LISTED})`,
  ]);
  const cjs = w.bin(['node', '-e', `const m = require('lockguard'); console.log(${LISTED})`]);
  for (const [what, result] of [
    ['import', esm],
    ['require', cjs],
  ] as const) {
    assert.equal(result.status, 0, `${what}('lockguard')\n${shown(result)}`);
    assert.equal(result.stdout.trim(), SOME_EXPORTS.join(), `${what}('lockguard')\n${shown(result)}`);
  }
}

/** Without lockguard: a's install mid-run poisons b's entry, and after going back turbo replays it. */
function control(w: TierWorkspace, arm: Arm): void {
  edit(w, 'a', 'control');
  w.arm();
  must(w.bin(arm.run), 'the control');
  assert.equal(w.out(), '6.0.0', 'the control: b built against the is-number a#build installed');
  goBack(w, arm);
  rmSync(join(w.root, 'packages', 'b', 'dist'), { recursive: true, force: true });
  must(w.bin(arm.run), 'the control after going back');
  assert.equal(w.out(), '6.0.0', 'the control: turbo replays the stale output (without lockguard)');
  w.git('checkout', '--', 'packages/a/src');
}

/** init, the README's hooks, the install init asks for, committed; each command checked once all have run. */
function init(w: TierWorkspace, arm: Arm): void {
  const ran = w.lockguard(arm.init);
  const steps: [string, ReturnType<TierWorkspace['sh']>][] = [[`lockguard ${arm.init.join(' ')}`, ran]];
  // The README: yarn berry imports the plugin from the path init prints (under PnP, the unplugged folder).
  const printed = /(?:yarn unplug lockguard && )?yarn plugin import (?:"\$\(.*\)"|\S+)/.exec(
    `${ran.stdout}\n${ran.stderr}`,
  )?.[0];
  for (const given of arm.hooks) {
    const hook = given === YARN_PLUGIN && printed !== undefined ? ['sh', '-c', printed] : given;
    steps.push([`${hook.join(' ')} (the README's hook)`, w.sh(hook)]);
  }
  steps.push([`${arm.install.join(' ')} after init`, w.sh(arm.install)]);
  w.git('add', '-A');
  w.git('commit', '-qm', 'lockguard init', '--allow-empty');
  for (const [what, result] of steps) assert.equal(result.status, 0, `${what}\n${shown(result)}`);
}

/** The lockfile after init's install is the adopted one, but for pnpm's record of the pnpmfile's checksum. */
function hooksKeepLockfile(w: TierWorkspace, arm: Arm, adoptedCommit: string): void {
  const strip = (text: string): string => text.replace(/^pnpmfileChecksum: .*\n\n/m, '');
  const adopted = w.git('show', `${adoptedCommit}:${arm.lockfile}`);
  const now = readFileSync(join(w.root, arm.lockfile), 'utf8');
  assert.equal(strip(now), strip(adopted), `${arm.lockfile} changed by lockguard's hooks`);
}

function doctor(w: TierWorkspace): void {
  const result = w.lockguard(['doctor']);
  const notOk = result.stdout.split('\n').filter((line) => /^\S/.test(line) && !line.startsWith('ok '));
  assert.deepEqual(notOk, [], `lockguard doctor after init\n${shown(result)}`);
  assert.equal(result.status, 0, `lockguard doctor\n${shown(result)}`);
}

interface OrdinaryRun {
  readonly what: string;
  readonly before?: (w: TierWorkspace, arm: Arm) => void;
  readonly env?: Record<string, string>;
}

const reinstall = (w: TierWorkspace, arm: Arm): void => {
  for (const dir of ['node_modules', 'packages/a/node_modules', 'packages/b/node_modules'])
    rmSync(join(w.root, dir), { recursive: true, force: true });
  w.must(arm.frozen);
};

/**
 * The ordinary runs, five that together show every state an ordinary run meets: the first with the hooks
 * (cold), a cache hit (warm), a rebuild through a's dependents (a source edit in a), the first run on a fresh
 * frozen install under CI=true (nothing changed since the last run: a hit on a new install, as a CI job's
 * first run is), and b's own rebuild under CI=true (a source edit in b: CI on a miss). There were seven
 * (ten before that): the reinstall and b's edit ran once without CI and CI=true ran alone on a hit and on a's
 * edit; each of those states is still run once, now two to a run, and every run asserts what each did (exit
 * 0, no lockguard line, b sees 7.0.0; nothing in quarantine after them). About 3 s of turbo and lockguard a
 * run, per arm.
 */
const RUNS: readonly OrdinaryRun[] = [
  { what: 'cold, right after init' },
  { what: 'warm' },
  { what: 'after a source edit in a', before: (w) => edit(w, 'a', 'edit 1') },
  { what: 'CI=true after a frozen reinstall', before: reinstall, env: { CI: 'true' } },
  { what: 'CI=true after a source edit in b', before: (w) => edit(w, 'b', 'edit 2'), env: { CI: 'true' } },
];

/** The ordinary guarded runs: each exits 0, prints no lockguard line, withholds nothing. */
function ordinaryRuns(w: TierWorkspace, arm: Arm): void {
  try {
    everyRun(w, arm);
  } finally {
    w.git('checkout', '--', 'packages/a/src', 'packages/b/src');
  }
}

function everyRun(w: TierWorkspace, arm: Arm): void {
  for (const [i, run] of RUNS.entries()) {
    run.before?.(w, arm);
    const result = w.lockguard(['run', '--', ...arm.run], run.env);
    const what = `guarded run ${i + 1} of ${RUNS.length} (${run.what})`;
    assert.equal(result.status, 0, `${what}\n${shown(result)}`);
    assert.deepEqual(lockguardLines(result), [], `${what} said something\n${shown(result)}`);
    assert.equal(w.out(), '7.0.0', `${what}: ${BEFORE}`);
  }
  const quarantine = w.lockguard(['quarantine', 'list', '--json']);
  assert.deepEqual(JSON.parse(quarantine.stdout), [], `nothing withheld by ordinary runs\n${shown(quarantine)}`);
}

/** Guarded: the run withholds b's entry saved under the old key, and after going back b rebuilds. */
function poisoning(w: TierWorkspace, arm: Arm): void {
  try {
    poisoned(w, arm);
  } finally {
    rmSync(join(w.base, 'armed'), { force: true });
    w.git('checkout', '--', 'packages/a/src', 'packages/b/package.json', arm.lockfile);
  }
}

function poisoned(w: TierWorkspace, arm: Arm): void {
  edit(w, 'a', 'guarded');
  w.arm();
  const run = w.lockguard(['run', '--', ...arm.run]);
  assert.equal(run.status, 0, `the poisoned run\n${shown(run)}`);
  assert.equal(w.out(), '6.0.0', `the poisoned run: b built against a#build's install\n${shown(run)}`);
  // The line's count is a claim: it must be what went into quarantine (ordinary runs withheld nothing, above).
  const said = /(\d+) cache saves? made after it (?:was|were) withheld/.exec(lockguardLines(run).join('\n'));
  assert.ok(said !== null, `the poisoned run says how many saves made after the move it withheld\n${shown(run)}`);
  const list = JSON.parse(w.lockguard(['quarantine', 'list', '--json']).stdout) as { entries: unknown[] }[];
  assert.equal(
    list.reduce((sum, r) => sum + r.entries.length, 0),
    Number(said[1]),
    `the poisoned run withheld what its line says: ${JSON.stringify(list)}`,
  );
  goBack(w, arm);
  const next = w.lockguard(['run', '--', ...arm.run]);
  assert.equal(next.status, 0, `the run after going back\n${shown(next)}`);
  assert.equal(w.out(), '7.0.0', `the run after going back rebuilds b (no stale replay)\n${shown(next)}`);
}

/** `lockguard uninstall` where the CLI has it, else the README's steps; then the repository is the fixture. */
function wayOut(w: TierWorkspace, arm: Arm, fixtureCommit: string): void {
  const help = w.lockguard(['--help']);
  if (/^\s+uninstall\b/m.test(help.stdout)) {
    // The poisoning's withheld entries first, as `uninstall --help` says (it keeps a ledger that holds some).
    const list = JSON.parse(w.lockguard(['quarantine', 'list', '--json']).stdout) as { run: string }[];
    for (const { run } of list) {
      const drop = w.lockguard(['quarantine', 'drop', '--run', run]);
      assert.equal(drop.status, 0, `lockguard quarantine drop --run ${run}\n${shown(drop)}`);
    }
    const result = w.lockguard(['uninstall']);
    assert.equal(result.status, 0, `lockguard uninstall\n${shown(result)}`);
  } else {
    for (const file of arm.hookFiles) rmSync(join(w.root, file), { force: true });
  }
  const remove = w.sh(arm.remove);
  assert.equal(remove.status, 0, `${arm.remove.join(' ')}\n${shown(remove)}`);
  rmSync(join(w.root, '.lockguard'), { recursive: true, force: true });
  // HEAD and the index back to the fixture's commit, the working tree as the way out left it.
  w.git('reset', '-q', fixtureCommit);
  const status = w.git('status', '--porcelain', '--untracked-files=all');
  assert.equal(status, '', `after the way out, git status against the fixture:\n${status}\n${w.git('diff', 'HEAD')}`);
}

/** What an arm collects as it goes: each step's wall time, and each step that did not do what it must. */
interface Ledger {
  readonly times: string[];
  readonly failures: string[];
}

/** The first lines of an error: enough to see what failed without the whole diff. */
function headOf(error: unknown, lines = 40): string {
  return String(error instanceof Error ? error.message : error)
    .split('\n')
    .slice(0, lines)
    .join('\n');
}

/**
 * Run one step; a step listed in known-gaps.ts must fail (reported as a diagnostic), any other must pass.
 * A step that does not is recorded and the arm goes on, so one run shows every step of the arm (later steps
 * may fail because an earlier one did: read the first failure first).
 */
function step(t: TestContext, arm: Arm, name: Step, ledger: Ledger, body: () => void): void {
  const started = Date.now();
  const gap = knownGap(arm.id, name);
  let failure: unknown;
  try {
    body();
  } catch (error) {
    failure = error ?? new Error('undefined thrown');
  }
  ledger.times.push(`${name} ${((Date.now() - started) / 1000).toFixed(1)}s`);
  if (gap === undefined && failure !== undefined) ledger.failures.push(`${name}: ${headOf(failure)}`);
  if (gap !== undefined && failure === undefined)
    ledger.failures.push(
      `${name}: known gap no longer reproduces (${gap.bullet}; lane ${gap.lane}): remove it from test/tier/known-gaps.ts`,
    );
  if (gap !== undefined && failure !== undefined)
    t.diagnostic(`known gap ${arm.id} ${name} (lane ${gap.lane}): ${headOf(failure, 1)}`);
}

/**
 * CPU seconds this process and the children it waited for used so far (Linux: /proc/self/stat's utime,
 * stime, cutime, cstime, in clock ticks of 1/100 s): the arm's cost whatever else loads the machine.
 */
function cpuSeconds(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0) / 100;
}

/** The whole arm, steps in order; the wall time of each is the test's diagnostic. */
export function tierArm(t: TestContext, id: ArmId): void {
  const arm = ARMS[id];
  const started = Date.now();
  const cpu = cpuSeconds();
  const ledger: Ledger = { times: [], failures: [] };
  const timed = (name: string, body: () => void): void => {
    const at = Date.now();
    body();
    ledger.times.push(`${name} ${((Date.now() - at) / 1000).toFixed(1)}s`);
  };
  try {
    const shared = sharedRun(t);
    const w = tierWorkspace(t, arm, shared);
    const fixtureCommit = w.git('rev-parse', 'HEAD').trim();
    timed('adopt', () => adopt(w, arm));
    const adoptedCommit = w.git('rev-parse', 'HEAD').trim();
    step(t, arm, 'package', ledger, () => installedPackage(w));
    timed('control', () => control(w, arm));
    if (arm.phantom !== undefined) timed('phantom-control', () => phantomControl(w, arm));
    step(t, arm, 'init', ledger, () => init(w, arm));
    step(t, arm, 'hooks-keep-lockfile', ledger, () => hooksKeepLockfile(w, arm, adoptedCommit));
    step(t, arm, 'doctor', ledger, () => doctor(w));
    step(t, arm, 'runs', ledger, () => ordinaryRuns(w, arm));
    step(t, arm, 'poisoning', ledger, () => poisoning(w, arm));
    if (arm.phantom !== undefined) step(t, arm, 'phantom', ledger, () => phantomStep(w, arm));
    step(t, arm, 'way-out', ledger, () => wayOut(w, arm, fixtureCommit));
  } finally {
    const wall = ((Date.now() - started) / 1000).toFixed(1);
    const used = (cpuSeconds() - cpu).toFixed(1);
    t.diagnostic(`${id}: ${wall}s wall, ${used}s CPU (${ledger.times.join(', ')})`);
  }
  assert.deepEqual(ledger.failures, [], `${id}: steps that did not do what they must\n${ledger.failures.join('\n\n')}`);
}
