// The phantom-dependency scenario (issue 29) as arms over the poisoning scenario (runner-scenario.ts), one per
// package manager and layout: project a installs a package whose code requires tiny-dep without declaring it
// (phantom-x, or an injected workspace package), b pins tiny-dep 7.0.0, and what moves b to 6.0.0 (a#build's
// install mid-run, or a pulled bump) changes what a's dependency resolves while a's own slice stays.
// Each arm proves both halves on one installed scenario, each with its control (turbo alone):
// - withholding (`withholdArm`): a#build installs mid-run; the control, back at the old lockfile, replays
//   a#build saying 6.0.0 while a resolves 7.0.0; under `lockguard run` a#build is withheld (0 stale replays);
// - sound keys (`soundKeysArm`): a pulled bump; turbo alone replays a#build saying 7.0.0 while a resolves
//   6.0.0; after `lockguard init` a's key moves with its slice file (0 stale replays).
//
// Owns: the arms' layouts (`armScenario`: pnpm settings, yarn's linker, bun's, npm, and packages of their own)
// and the two halves. Invariants: everything runs in the scenario's temp folder with its env; what a resolves
// is asked from packages/a through Node (yarn PnP: through `yarn node`), never inferred from the lockfile.

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { BIN } from './cli.js';
import { scenario, type Scenario } from './runner-scenario.js';
import {
  scenarioWorkspace,
  type ScenarioManager,
  type ScenarioOptions,
  type ScenarioWorkspace,
} from './scenario-workspace.js';
import { check, packTarball, shellIn } from './tool-shims.js';
import { writeTree } from './workspace.js';

/** One arm: how its workspace differs from the default phantom scenario, and how a bump of b is installed. */
export interface ArmOptions {
  /** The workspace's package manager: the scenario's, or npm (built here from the pnpm scenario's files). */
  readonly manager?: ScenarioManager | 'npm';
  /** The pnpm major of a pnpm arm (default 10). */
  readonly pnpm?: 10 | 12;
  /** The workspace's `.npmrc` (pnpm settings). */
  readonly npmrc?: string;
  /** Lines appended to `pnpm-workspace.yaml` (pnpm settings there: `publicHoistPattern`, `nodeLinker`). */
  readonly workspaceYaml?: string;
  /** Lines appended to `.yarnrc.yml` (yarn: `nodeLinker: node-modules`). */
  readonly yarnrc?: string;
  /** The workspace's `bunfig.toml`. */
  readonly bunfig?: string;
  /** phantom-x requires this name instead of tiny-dep (b: a workspace package reached through the hoist). */
  readonly phantomRequires?: string;
  /** phantom-x is a workspace package (packages/phantom-x) that a depends on injected (pnpm `dependenciesMeta`). */
  readonly injected?: boolean;
  /**
   * a's own code requires tiny-dep (a phantom dependency of the project itself) and a installs no package:
   * its build records what a resolves, not what phantom-x does.
   */
  readonly ownPhantom?: boolean;
  /** The root depends on tiny-dep and the move is the root's (yarn PnP's fallback pool: the top-level dependencies). */
  readonly rootDependency?: boolean;
  /**
   * tiny-dep is installed by npm in a `node_modules` above the workspace root (the scenario's base folder) and
   * nowhere a's code resolves inside the workspace; a's own code requires it (implies `ownPhantom`), and the
   * move is an npm install up there.
   */
  readonly above?: boolean;
}

/** The npm install above the workspace root that puts tiny-dep `version` there (run from the workspace root). */
function aboveInstall(version: string): string {
  return `cd {root}/.. && npm install --no-audit --no-fund --offline tiny-dep@file:ws/vendor/tiny-dep-${version}.tgz`;
}

const SIX = 'tiny-dep@file:../../vendor/tiny-dep-6.0.0.tgz';

/** The install that moves tiny-dep to 6.0.0 (a#build's mid-run, and the pulled bump), from the workspace root. */
function bumpArgv(arm: ArmOptions): string[] {
  const manager = arm.manager ?? 'pnpm';
  if (arm.rootDependency === true) return ['yarn', 'add', 'tiny-dep@file:./vendor/tiny-dep-6.0.0.tgz'];
  if (arm.above === true) return ['sh', '-c', aboveInstall('6.0.0')];
  if (manager === 'yarn') return ['yarn', 'workspace', 'b', 'add', SIX];
  // npm 11 nests an in-place `npm install -w b tiny-dep@6` under b (a's require then fails loudly, not
  // stale): the move is the lockfile of a fresh resolution, pulled (saved by npmScenario) and installed.
  if (manager === 'npm')
    return [
      'sh',
      '-c',
      'cd {root} && cp ../saved/s1-lock.json package-lock.json && cp ../saved/s1-b.json packages/b/package.json && npm ci',
    ];
  if (manager === 'bun') return ['sh', '-c', 'cd packages/b && bun add ../../vendor/tiny-dep-6.0.0.tgz'];
  return ['pnpm', '--filter', 'b', 'add', SIX];
}

/** The arm's edits to the written workspace, before its install. */
function prepare(arm: ArmOptions, ws: ScenarioWorkspace): void {
  const { root, base } = ws;
  if (arm.yarnrc !== undefined) writeFileSync(join(root, '.yarnrc.yml'), arm.yarnrc, { flag: 'a' });
  if (arm.workspaceYaml !== undefined)
    writeFileSync(join(root, 'pnpm-workspace.yaml'), arm.workspaceYaml, { flag: 'a' });
  if (arm.bunfig !== undefined) writeFileSync(join(root, 'bunfig.toml'), arm.bunfig);
  if (arm.phantomRequires !== undefined)
    packTarball(
      join(root, 'vendor', 'phantom-x-1.0.0.tgz'),
      join(base, 'src-phantom-2'),
      { name: 'phantom-x', version: '1.0.0' },
      `module.exports = require(${JSON.stringify(arm.phantomRequires)});\n`,
    );
  if (arm.phantomRequires === 'b') {
    // b is reached as a package: its main requires its own tiny-dep.
    const manifest = join(root, 'packages', 'b', 'package.json');
    writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, 'utf8')), main: 'index.js' }));
    writeFileSync(join(root, 'packages', 'b', 'index.js'), "module.exports = require('tiny-dep');\n");
  }
  if (arm.injected === true) {
    writeTree(join(root, 'packages', 'phantom-x'), {
      'package.json': JSON.stringify({ name: 'phantom-x', version: '1.0.0', private: true, main: 'index.js' }),
      'index.js': "module.exports = require('tiny-dep');\n",
    });
    const manifest = join(root, 'packages', 'a', 'package.json');
    const a = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      manifest,
      JSON.stringify({
        ...a,
        dependencies: { 'phantom-x': 'workspace:*' },
        dependenciesMeta: { 'phantom-x': { injected: true } },
      }),
    );
  }
  if (arm.ownPhantom === true || arm.above === true) editJson(join(root, 'packages', 'a', 'package.json'), ownPhantom);
  if (arm.above === true) {
    writeFileSync(join(base, 'package.json'), JSON.stringify({ name: 'above', private: true }));
    check(shellIn(root, ws.env, 90_000)(['sh', '-c', aboveInstall('7.0.0').replaceAll('{root}', root)]), 'npm above');
  }
  if (arm.manager === 'npm') npmWorkspace(root);
  if (arm.rootDependency === true) {
    const manifest = join(root, 'package.json');
    const rootManifest = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      manifest,
      JSON.stringify({ ...rootManifest, dependencies: { 'tiny-dep': 'file:./vendor/tiny-dep-7.0.0.tgz' } }),
    );
    copyFileSync(manifest, join(base, 'root-package.json'));
  }
}

function editJson(file: string, edit: (json: Record<string, unknown>) => Record<string, unknown>): void {
  writeFileSync(file, JSON.stringify(edit(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)));
}

/** a without dependencies, its build recording what a's own code resolves for tiny-dep. */
function ownPhantom(a: Record<string, unknown>): Record<string, unknown> {
  const { dependencies: _, ...rest } = a;
  const scripts = rest['scripts'] as Record<string, string>;
  return { ...rest, scripts: { ...scripts, build: (scripts['build'] ?? '').replace("'phantom-x'", "'tiny-dep'") } };
}

/** The pnpm scenario's files as an npm workspace: workspaces in the root manifest, no workspace: protocol. */
function npmWorkspace(root: string): void {
  rmSync(join(root, 'pnpm-workspace.yaml'));
  editJson(join(root, 'package.json'), (json) => ({
    ...json,
    workspaces: ['packages/*'],
    packageManager: 'npm@11.19.1',
  }));
  editJson(join(root, 'packages', 'b', 'package.json'), (b) => ({
    ...b,
    dependencies: { ...(b['dependencies'] as object), a: '*' },
  }));
}

/** An arm's scenario, installed (S0: tiny-dep 7.0.0) with a#build armed to run the arm's bump. */
export interface Arm {
  readonly s: Scenario;
  readonly options: ArmOptions;
}

export function armScenario(t: Pick<TestContext, 'after'>, arm: ArmOptions): Arm {
  if (arm.manager === 'npm') return npmScenario(t, arm);
  const manager = arm.manager ?? 'pnpm';
  const options: ScenarioOptions = {
    phantom: true,
    ...(manager === 'pnpm' ? { pnpm: arm.pnpm ?? 10 } : { manager }),
    ...(arm.npmrc === undefined ? {} : { npmrc: arm.npmrc }),
    ...(arm.rootDependency === true ? { install: ['sh', '-c', `cd {root} && ${bumpArgv(arm).join(' ')}`] } : {}),
    ...(arm.above === true ? { install: bumpArgv(arm) } : {}),
  };
  const s = scenario(t, 'turbo', options, (ws) => prepare(arm, ws));
  return { s, options: arm };
}

/** The npm arm: the scenario's files as an npm workspace, installed with npm (S0), a#build armed. */
function npmScenario(t: Pick<TestContext, 'after'>, arm: ArmOptions): Arm {
  const ws = scenarioWorkspace(t, 'turbo', { phantom: true, pnpm: 10, install: bumpArgv(arm) });
  prepare(arm, ws);
  const { base, root, env } = ws;
  const sh = shellIn(root, env, 90_000);
  const saved = join(base, 'saved');
  mkdirSync(saved);
  // S1 first, resolved fresh (tiny-dep 6.0.0 hoisted to the root): what the move pulls.
  const bManifest = join(root, 'packages', 'b', 'package.json');
  const seven = readFileSync(bManifest, 'utf8');
  writeFileSync(bManifest, seven.replace('tiny-dep-7.0.0.tgz', 'tiny-dep-6.0.0.tgz'));
  check(sh(['npm', 'install']), 'npm install (S1)');
  copyFileSync(join(root, 'package-lock.json'), join(saved, 's1-lock.json'));
  copyFileSync(bManifest, join(saved, 's1-b.json'));
  for (const path of ['node_modules', 'package-lock.json', 'packages/a/node_modules', 'packages/b/node_modules'])
    rmSync(join(root, path), { recursive: true, force: true });
  writeFileSync(bManifest, seven);
  check(sh(['npm', 'install']), 'npm install');
  copyFileSync(join(root, 'package-lock.json'), join(saved, 'package-lock.json'));
  copyFileSync(join(root, 'packages', 'b', 'package.json'), join(saved, 'b-package.json'));
  const arming = (): void => writeFileSync(join(base, 'armed'), '');
  arming();
  const s: Scenario = {
    tool: 'turbo',
    manager: 'pnpm',
    base,
    root,
    env,
    lockfile: join(root, 'package-lock.json'),
    sh,
    runnerArgv: () => ['turbo', 'run', 'build', '--summarize'],
    runner: () => check(sh(['turbo', 'run', 'build', '--summarize']), 'turbo'),
    arm: arming,
    goBack() {
      copyFileSync(join(saved, 'package-lock.json'), join(root, 'package-lock.json'));
      copyFileSync(join(saved, 'b-package.json'), join(root, 'packages', 'b', 'package.json'));
      check(sh(['npm', 'ci']), 'npm ci');
      for (const name of ['a', 'b']) rmSync(join(root, 'packages', name, 'dist'), { recursive: true, force: true });
    },
    out: () => undefined,
    installed: () => '',
  };
  return { s, options: arm };
}

/** Back to S0 (the root manifest too, where the arm moves the root), then a frozen install. */
function goBack(arm: Arm): void {
  if (arm.options.rootDependency === true)
    copyFileSync(join(arm.s.base, 'root-package.json'), join(arm.s.root, 'package.json'));
  if (arm.options.above === true)
    check(arm.s.sh(['sh', '-c', aboveInstall('7.0.0').replaceAll('{root}', arm.s.root)]), 'npm above (back)');
  arm.s.goBack();
}

/** What a's build recorded phantom-x resolving, or undefined. */
export function recorded(s: Scenario): string | undefined {
  try {
    return (
      JSON.parse(readFileSync(join(s.root, 'packages', 'a', 'dist', 'phantom.json'), 'utf8')) as { tinyDep: string }
    ).tinyDep;
  } catch {
    return undefined;
  }
}

/** What phantom-x resolves now, asked from a's folder (yarn PnP: through yarn's runtime). */
export function resolvesNow(arm: Arm): string {
  const pnp = arm.options.manager === 'yarn' && !(arm.options.yarnrc ?? '').includes('node-modules');
  const node = pnp ? 'yarn node' : 'node';
  const name = arm.options.ownPhantom === true || arm.options.above === true ? 'tiny-dep' : 'phantom-x';
  const result = arm.s.sh(['sh', '-c', `cd packages/a && ${node} -p "require('${name}')"`]);
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim();
}

interface Build {
  readonly aHit: boolean;
  readonly says: string | undefined;
  readonly resolves: string;
}

/**
 * A turbo build of a from a clean dist (guarded: under `lockguard run`): whether a#build was replayed, what it
 * says. `--filter=a`: these builds read only a#build (its hash does not depend on the filter: b depends on a,
 * not a on b), so b#build, a pnpm-started task no assertion here reads, is not run.
 */
function build(arm: Arm, guarded: boolean): Build {
  const { s } = arm;
  rmSync(join(s.root, 'packages', 'a', 'dist'), { recursive: true, force: true });
  const turbo = ['turbo', 'run', 'build', '--filter=a', '--output-logs=hash-only'];
  const run = s.sh(guarded ? [process.execPath, BIN, 'run', '--', ...turbo] : turbo);
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  return { aHit: /a:build: cache hit/.test(run.stdout), says: recorded(s), resolves: resolvesNow(arm) };
}

/** Withholding mid-run: the control replays a stale a#build; `lockguard run` withholds it. Returns run's stderr. */
export function withholdArm(arm: Arm): string {
  const { s } = arm;
  assert.equal(resolvesNow(arm), '7.0.0', "a's dependency resolves b's tiny-dep (the layout under test)");
  {
    const run = s.sh(['turbo', 'run', 'build']);
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(recorded(s), '6.0.0', 'a#build saw the install it ran');
    goBack(arm);
    const back = build(arm, false);
    assert.deepEqual(back, { aHit: true, says: '6.0.0', resolves: '7.0.0' }, 'the control replays a stale a#build');
  }
  rmSync(join(s.root, '.turbo'), { recursive: true, force: true });
  s.arm();
  const run = s.sh([process.execPath, BIN, 'run', '--', 'turbo', 'run', 'build', '--summarize']);
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.equal(recorded(s), '6.0.0');
  const line = run.stderr.split('\n').find((each) => each.startsWith('[lockguard] a task')) ?? '';
  assert.doesNotMatch(line, /kept \([^)]*a#build/, run.stderr);
  goBack(arm);
  assert.deepEqual(build(arm, false), { aHit: false, says: '7.0.0', resolves: '7.0.0' }, '0 stale replays');
  return run.stderr;
}

/**
 * Sound keys after a pulled change (a bump of b, installed; then back, as a checkout of the older commit is):
 * turbo alone replays a stale a#build; after `lockguard init` a's key moves both ways. Starts where
 * `withholdArm` ends: S0, with a#build saved saying 7.0.0.
 */
export function soundKeysArm(arm: Arm): { before: string; after: string } {
  const { s } = arm;
  rmSync(join(s.base, 'armed'), { force: true });
  const argv = bumpArgv(arm.options).map((word) => word.replaceAll('{root}', s.root));
  const bump = (): void => void check(s.sh(argv), argv.join(' '));
  bump();
  assert.deepEqual(build(arm, false), { aHit: true, says: '7.0.0', resolves: '6.0.0' }, 'the control replays');
  rmSync(join(s.root, '.turbo'), { recursive: true, force: true });
  const pnpmfile = (arm.options.manager ?? 'pnpm') === 'pnpm' ? ['--no-pnpmfile'] : [];
  const init = s.sh([process.execPath, BIN, 'init', ...pnpmfile]);
  assert.equal(init.status, 0, `${init.stdout}\n${init.stderr}`);
  assert.deepEqual(build(arm, true), { aHit: false, says: '6.0.0', resolves: '6.0.0' });
  const file = join(s.root, 'packages', 'a', '.lockguard-slice');
  const before = readFileSync(file, 'utf8');
  goBack(arm);
  assert.deepEqual(build(arm, true), { aHit: false, says: '7.0.0', resolves: '7.0.0' }, '0 stale replays');
  const after = readFileSync(file, 'utf8');
  assert.notEqual(after, before, "a's slice file moved with what a reaches");
  return { before, after };
}
