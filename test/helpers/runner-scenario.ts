// The poisoning scenario (lib/README.md) as a real workspace, for turbo, nx and pnpm pipeline.
//
// `a#build` runs `pnpm --filter b add tiny-dep@<6.0.0 tarball>` (once: only while the `armed` file next to
// the workspace exists, so a later rebuild does not install again); `b#build` depends on a and writes the
// installed tiny-dep version to `packages/b/dist/out.json`. S0 has tiny-dep 7.0.0. The tarballs are made
// here (tar), HOME/XDG/store live in the temp dir, nothing touches the network.
// turbo and nx run with pnpm 10 (turbo wants `packageManager`, which pnpm 12 would turn into a two-document
// lockfile); the pipeline is pnpm 12's own. turbo also runs over a yarn 4 workspace (PnP, its default) and a
// bun 1.4 workspace (`manager`): a#build runs `yarn workspace b add` / `bun add` instead. Inside turbo's
// strict env mode YARN_* and BUN_* do not reach the tasks, so yarn's offline settings go in .yarnrc.yml
// and both tools keep their caches under the temp HOME.

import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { homeEnv, isolatedEnv } from './env.js';
import { nxInstallation } from './runner-versions.js';
import { check, commitS0, packTarball, shellIn, toolBin } from './tool-shims.js';
import { tempWorkspace, writeTree } from './workspace.js';

export type Tool = 'turbo' | 'nx' | 'pnpm-pipeline';
/** The package manager of the scenario's workspace (yarn and bun with turbo only). */
export type ScenarioManager = 'pnpm' | 'yarn' | 'bun';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(REPO, 'node_modules', '.bin');
/** One setup step or runner invocation (an install, a turbo or nx run) may take this long before it fails the test. */
const STEP_TIMEOUT_MS = 90_000;

export interface Scenario {
  readonly tool: Tool;
  readonly manager: ScenarioManager;
  /** The temp folder holding home/, bin/, the arm file and the workspace. */
  readonly base: string;
  readonly root: string;
  readonly env: Record<string, string>;
  readonly lockfile: string;
  /** Run a command in the workspace (timeout-guarded). */
  sh(argv: readonly string[]): SpawnSyncReturns<string>;
  /** The runner's build over the whole graph. */
  runnerArgv(): string[];
  runner(): SpawnSyncReturns<string>;
  /** Make a#build install once more on its next real run. */
  arm(): void;
  /** Back to S0's lockfile and b/package.json, then a frozen install (tiny-dep 7.0.0 installed). */
  goBack(): void;
  /** tiny-dep's version as b's build wrote it, or undefined. */
  out(): string | undefined;
  installed(): string;
}

function tarball(base: string, version: string): void {
  const file = join(base, 'ws', 'vendor', `tiny-dep-${version}.tgz`);
  packTarball(file, join(base, `src-${version}`), { name: 'tiny-dep', version }, `module.exports = '${version}';\n`);
}

const INSTALL_SIX: Record<ScenarioManager, string> = {
  pnpm: `cp.execFileSync('pnpm', ['--filter', 'b', 'add', 'tiny-dep@file:../../vendor/tiny-dep-6.0.0.tgz'], { stdio: 'inherit' });`,
  yarn: `cp.execFileSync('yarn', ['workspace', 'b', 'add', 'tiny-dep@file:../../vendor/tiny-dep-6.0.0.tgz'], { stdio: 'inherit' });`,
  bun: `cp.execFileSync('bun', ['add', '../../vendor/tiny-dep-6.0.0.tgz'], { stdio: 'inherit', cwd: path.join('..', 'b') });`,
};

const aBuild = (
  manager: ScenarioManager,
  install?: readonly string[],
): string => `const fs = require('fs'), path = require('path'), cp = require('child_process');
// With a wait-for file ("<dir> <count>"), wait (at most 30 s) until <dir> holds <count> files: c's upload.
const waitFor = path.join(__dirname, 'wait-for');
if (fs.existsSync(waitFor)) {
  const [dir, count] = fs.readFileSync(waitFor, 'utf8').trim().split(' ');
  const files = (d) => { try { return fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? files(path.join(d, e.name)) : e.name.endsWith('.part') ? [] : [e.name]); } catch { return []; } };
  const until = Date.now() + 30000;
  while (files(dir).length < Number(count) && Date.now() < until) cp.execFileSync('sleep', ['0.1']);
}
if (process.argv.includes('--wait-only')) process.exit(0);
const armed = path.join(__dirname, 'armed');
if (fs.existsSync(armed)) {
  fs.unlinkSync(armed);
  ${install === undefined ? INSTALL_SIX[manager] : `cp.execFileSync(${JSON.stringify(install[0])}, ${JSON.stringify(install.slice(1))}, { stdio: 'inherit' });`}
}
// Crash tests: after the install, save many more turbo-layout entries (written after the move: all stale).
const bulk = path.join(__dirname, 'bulk.json');
if (fs.existsSync(bulk)) {
  const { dir, count, size } = JSON.parse(fs.readFileSync(bulk, 'utf8'));
  fs.unlinkSync(bulk);
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    const hash = 'f' + i.toString(16).padStart(15, '0');
    const body = ('entry ' + i + ' ').repeat(Math.ceil(size / 8)).slice(0, size);
    fs.writeFileSync(path.join(dir, hash + '.tar.zst'), body);
    fs.writeFileSync(path.join(dir, hash + '-meta.json'), JSON.stringify({ hash, i }));
    fs.writeFileSync(path.join(dir, hash + '-manifest.json'), JSON.stringify({ files: [i] }));
  }
}
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/a.txt', 'a');
`;

const LOCKFILE: Record<ScenarioManager, string> = { pnpm: 'pnpm-lock.yaml', yarn: 'yarn.lock', bun: 'bun.lock' };
const INSTALL: Record<ScenarioManager, { install: string[]; frozen: string[] }> = {
  pnpm: { install: ['pnpm', 'install'], frozen: ['pnpm', 'install', '--frozen-lockfile'] },
  yarn: { install: ['yarn', 'install'], frozen: ['yarn', 'install', '--immutable'] },
  bun: { install: ['bun', 'install'], frozen: ['bun', 'install', '--frozen-lockfile'] },
};

const B_BUILD = `node -e "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/out.json',JSON.stringify({tinyDep:require('tiny-dep')}))"`;

const C_BUILD = `node -e "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/c.txt','c');require('fs').appendFileSync('../../../c-ran','x')"`;
// c's build that starts at once but saves only after a's install rewrote the lockfile (at most 60 s): its save is after the move.
const C_AFTER_MOVE_BUILD = `node -e "const fs=require('fs'),cp=require('child_process');const until=Date.now()+60000;while(!fs.readFileSync('../../pnpm-lock.yaml','utf8').includes('tiny-dep-6.0.0')&&Date.now()<until)cp.execFileSync('sleep',['0.1']);fs.mkdirSync('dist',{recursive:true});fs.writeFileSync('dist/c.txt','c');fs.appendFileSync('../../../c-ran','x')"`;
const D_BUILD = `node -e "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/d.txt','d')"`;
// The install in plain sight (the plan sees it); it runs on every real build of a, so nothing is armed.
const VISIBLE_A_BUILD =
  'node ../../../a-build.cjs --wait-only && pnpm --filter b add tiny-dep@file:../../vendor/tiny-dep-6.0.0.tgz && node ../../../a-build.cjs';

export interface ScenarioOptions {
  /** nx shares its cache under ~/.nx/<id>/ only when HOME is not under /tmp. */
  readonly homeOutsideTmp?: boolean;
  /** The package manager of the workspace (default pnpm; yarn and bun are built for turbo only). */
  readonly manager?: ScenarioManager;
  /** The pnpm the workspace pins and puts on PATH (default: 10 for turbo and nx, 12 for the pipeline). */
  readonly pnpm?: 10 | 12;
  /** Root package.json scripts (how people start their runner: `"build": "turbo run build"`). */
  readonly rootScripts?: Readonly<Record<string, string>>;
  /** Add package `c`, which depends on nothing (its build appends to `<base>/c-ran` whenever it really runs). */
  readonly withC?: boolean;
  /** a's install in its package script (where `lockguard plan` sees it), not hidden in a-build.cjs. */
  readonly visibleInstall?: boolean;
  /** With `withC`: this many more leaves like c (`c1`..`cN`), for parallel uploads before the move. */
  readonly moreLeaves?: number;
  /** The pipeline with pnpm 12.21.0 (remote task cache) instead of 12.4.2. */
  readonly pnpm1221?: boolean;
  /** With `withC`: c's build saves only after a's install rewrote the lockfile (pnpm workspaces). */
  readonly cAfterMove?: boolean;
  /** Add package `d`, which depends on b (a workspace dependency): its slice holds b's. */
  readonly withDependent?: boolean;
  /** What a#build runs in place of `pnpm --filter b add tiny-dep@6` (argv; `{root}` is the workspace root). */
  readonly install?: readonly string[];
  /** The workspace's `.npmrc` (e.g. `node-linker=hoisted\n`). */
  readonly npmrc?: string;
  /** The nx the workspace installs: a folder of this repo's node_modules (`nx22` = the `npm:nx@22.6.3` alias; default `nx`). */
  readonly nxPackage?: string;
  /** The turbo on PATH: a folder of this repo's node_modules (`turbo20` = the `npm:turbo@2.0.14` alias; default `turbo`). */
  readonly turboPackage?: string;
}

/** Build the scenario workspace, install it (S0) and arm a#build. */
export function scenario(t: Pick<TestContext, 'after'>, tool: Tool, options: ScenarioOptions = {}): Scenario {
  const manager = options.manager ?? 'pnpm';
  if (manager !== 'pnpm' && tool !== 'turbo') throw new Error(`the ${manager} scenario is built for turbo only`);
  const base = tempWorkspace(t, {}, `lockguard-${tool}-${manager}-`);
  const root = join(base, 'ws');
  // nx shares its cache under ~/.nx/<id>/ only when HOME is not under /tmp (and the repo has an identity).
  const home =
    options.homeOutsideTmp === true ? realpathSync(mkdtempSync('/var/tmp/lockguard-home-')) : join(base, 'home');
  if (options.homeOutsideTmp === true) t.after(() => rmSync(home, { recursive: true, force: true }));
  mkdirSync(join(root, 'vendor'), { recursive: true });
  mkdirSync(home, { recursive: true });
  tarball(base, '6.0.0');
  tarball(base, '7.0.0');
  const pnpmMajor = options.pnpm ?? (tool === 'pnpm-pipeline' ? 12 : 10);
  const nxPackage =
    options.nxPackage === undefined || options.nxPackage === 'nx'
      ? join(REPO, 'node_modules', 'nx')
      : nxInstallation(options.nxPackage, join(base, 'nx-install'));
  // The runner versions on PATH by name (not node_modules/.bin, where one alias's bin may shadow another's);
  // turbo runs each task through the package manager on PATH.
  toolBin(join(base, 'bin'), {
    pnpm: pnpmMajor === 12 ? (options.pnpm1221 === true ? '12.21' : 12) : 10,
    yarn: true,
    nx: nxPackage,
    turbo: options.turboPackage ?? 'turbo',
    bun: manager === 'bun',
  });
  writeFileSync(
    join(base, 'a-build.cjs'),
    aBuild(
      manager,
      options.install?.map((word) => word.replaceAll('{root}', root)),
    ),
  );
  const rootManifest: Record<string, unknown> = { name: 'root', private: true };
  const pnpmPin = pnpmMajor === 12 ? 'pnpm@12.4.2' : 'pnpm@10.34.8';
  if (tool !== 'pnpm-pipeline')
    rootManifest['packageManager'] = { pnpm: pnpmPin, yarn: 'yarn@4.18.1', bun: 'bun@1.4.5' }[manager];
  if (manager !== 'pnpm') rootManifest['workspaces'] = ['packages/*'];
  if (options.rootScripts !== undefined) rootManifest['scripts'] = options.rootScripts;
  if (tool === 'nx') rootManifest['devDependencies'] = { nx: `link:${nxPackage}` };
  let workspaceYaml = 'packages:\n  - "packages/*"\nupdateNotifier: false\n';
  if (tool === 'pnpm-pipeline')
    workspaceYaml +=
      'tasks:\n  build:\n    dependsOn: ["^build"]\n    outputs: ["dist/**"]\npipelines:\n  default: [build]\n';
  writeTree(root, {
    'package.json': `${JSON.stringify(rootManifest, null, 2)}\n`,
    ...(manager === 'pnpm' ? { 'pnpm-workspace.yaml': workspaceYaml } : {}),
    ...(options.npmrc === undefined ? {} : { '.npmrc': options.npmrc }),
    ...(manager === 'yarn'
      ? { '.yarnrc.yml': 'enableGlobalCache: false\nenableNetwork: false\nenableTelemetry: false\n' }
      : {}),
    '.gitignore': 'node_modules\n.turbo\n.nx\ndist\n',
    ...(tool === 'turbo'
      ? { 'turbo.json': JSON.stringify({ tasks: { build: { dependsOn: ['^build'], outputs: ['dist/**'] } } }, null, 2) }
      : {}),
    ...(tool === 'nx'
      ? {
          'nx.json': JSON.stringify(
            { targetDefaults: { build: { dependsOn: ['^build'], outputs: ['{projectRoot}/dist'], cache: true } } },
            null,
            2,
          ),
        }
      : {}),
    packages: {
      a: {
        'package.json': JSON.stringify(
          {
            name: 'a',
            version: '1.0.0',
            private: true,
            scripts: { build: options.visibleInstall === true ? VISIBLE_A_BUILD : 'node ../../../a-build.cjs' },
          },
          null,
          2,
        ),
      },
      ...(options.withC === true
        ? {
            c: {
              'package.json': JSON.stringify(
                {
                  name: 'c',
                  version: '1.0.0',
                  private: true,
                  scripts: { build: options.cAfterMove === true ? C_AFTER_MOVE_BUILD : C_BUILD },
                },
                null,
                2,
              ),
            },
          }
        : {}),
      ...(options.withDependent === true
        ? {
            d: {
              'package.json': JSON.stringify(
                {
                  name: 'd',
                  version: '1.0.0',
                  private: true,
                  dependencies: { b: 'workspace:*' },
                  scripts: { build: D_BUILD },
                },
                null,
                2,
              ),
            },
          }
        : {}),
      ...Object.fromEntries(
        Array.from({ length: options.moreLeaves ?? 0 }, (_, i) => [
          `c${i + 1}`,
          {
            'package.json': JSON.stringify(
              { name: `c${i + 1}`, version: '1.0.0', private: true, scripts: { build: C_BUILD } },
              null,
              2,
            ),
          },
        ]),
      ),
      b: {
        'package.json': JSON.stringify(
          {
            name: 'b',
            version: '1.0.0',
            private: true,
            dependencies: { a: 'workspace:*', 'tiny-dep': 'file:../../vendor/tiny-dep-7.0.0.tgz' },
            scripts: { build: B_BUILD },
          },
          null,
          2,
        ),
      },
    },
  });
  // Settings under HOME, not in the env: the installs inside turbo's tasks must find the same store.
  const env = isolatedEnv(base, {
    home,
    settings: 'home',
    path: [join(base, 'bin'), BIN],
    extra: {
      NX_TUI: 'false',
      NX_ISOLATE_PLUGINS: 'false',
      GIT_AUTHOR_NAME: 'lockguard-test',
      GIT_AUTHOR_EMAIL: 'test@lockguard.invalid',
      GIT_COMMITTER_NAME: 'lockguard-test',
      GIT_COMMITTER_EMAIL: 'test@lockguard.invalid',
      GIT_CONFIG_NOSYSTEM: '1',
    },
  });
  const sh = shellIn(root, env, STEP_TIMEOUT_MS);
  check(sh(INSTALL[manager].install), INSTALL[manager].install.join(' '));
  // The pipeline reads git metadata for its inputs, and nx derives its workspace id from git: S0 is a commit.
  if (tool === 'pnpm-pipeline' || options.homeOutsideTmp === true) commitS0(sh);
  const saved = join(base, 'saved');
  const lockfile = LOCKFILE[manager];
  mkdirSync(saved);
  copyFileSync(join(root, lockfile), join(saved, lockfile));
  copyFileSync(join(root, 'packages', 'b', 'package.json'), join(saved, 'b-package.json'));
  const runnerArgv = (): string[] => {
    switch (tool) {
      case 'turbo':
        return ['turbo', 'run', 'build', '--summarize'];
      case 'nx':
        return ['nx', 'run-many', '-t', 'build', '--output-style=static'];
      case 'pnpm-pipeline':
        return ['pnpm', 'pipeline'];
    }
  };
  const arm = (): void => writeFileSync(join(base, 'armed'), '');
  if (options.visibleInstall !== true) arm();
  return {
    tool,
    manager,
    base,
    root,
    env,
    lockfile: join(root, lockfile),
    sh,
    runnerArgv,
    runner: () => check(sh(runnerArgv()), runnerArgv().join(' ')),
    arm,
    goBack() {
      copyFileSync(join(saved, lockfile), join(root, lockfile));
      copyFileSync(join(saved, 'b-package.json'), join(root, 'packages', 'b', 'package.json'));
      check(sh(INSTALL[manager].frozen), INSTALL[manager].frozen.join(' '));
      for (const name of ['a', 'b']) rmSync(join(root, 'packages', name, 'dist'), { recursive: true, force: true });
    },
    out() {
      try {
        return (
          JSON.parse(readFileSync(join(root, 'packages', 'b', 'dist', 'out.json'), 'utf8')) as { tinyDep?: string }
        ).tinyDep;
      } catch {
        return undefined;
      }
    },
    installed() {
      if (manager === 'yarn') {
        // PnP: no node_modules; ask Node through yarn's runtime, from b.
        const result = check(
          spawnSync('yarn', ['node', '-p', "require('tiny-dep/package.json').version"], {
            cwd: join(root, 'packages', 'b'),
            env,
            encoding: 'utf8',
            timeout: 60_000,
          }),
          'yarn node',
        );
        return result.stdout.trim();
      }
      return (
        JSON.parse(readFileSync(join(root, 'packages', 'b', 'node_modules', 'tiny-dep', 'package.json'), 'utf8')) as {
          version: string;
        }
      ).version;
    },
  };
}

export interface Machine {
  readonly base: string;
  readonly root: string;
  readonly env: Record<string, string>;
  sh(argv: readonly string[], extraEnv?: Record<string, string>): SpawnSyncReturns<string>;
  out(): string | undefined;
  installed(): string;
  /** True when c's build really ran here (it appends to `<base>/c-ran`); false when c was restored. */
  cRan(): boolean;
}

/**
 * A second machine for the same repository: a fresh clone of S0 (no node_modules, no local caches, no
 * ledger), its own HOME and caches, then a frozen install. Same remote: pass its env to `sh`.
 */
export function secondMachine(t: Pick<TestContext, 'after'>, s: Scenario): Machine {
  const base = tempWorkspace(t, {}, `lockguard-${s.tool}-machine2-`);
  const root = join(base, 'ws');
  const skip = /[\\/](node_modules|\.lockguard|\.turbo|\.nx|dist)([\\/]|$)/;
  cpSync(s.root, root, { recursive: true, filter: (source) => !skip.test(source.slice(s.root.length)) });
  copyFileSync(join(s.base, 'saved', 'pnpm-lock.yaml'), join(root, 'pnpm-lock.yaml'));
  copyFileSync(join(s.base, 'saved', 'b-package.json'), join(root, 'packages', 'b', 'package.json'));
  cpSync(join(s.base, 'bin'), join(base, 'bin'), { recursive: true });
  copyFileSync(join(s.base, 'a-build.cjs'), join(base, 'a-build.cjs'));
  const env: Record<string, string> = {
    ...s.env,
    ...homeEnv(join(base, 'home')),
    PATH: (s.env['PATH'] ?? '').replace(join(s.base, 'bin'), join(base, 'bin')),
  };
  const sh = (argv: readonly string[], extraEnv: Record<string, string> = {}): SpawnSyncReturns<string> => {
    const [command, ...args] = argv;
    return spawnSync(command ?? 'true', args, {
      cwd: root,
      env: { ...env, ...extraEnv },
      encoding: 'utf8',
      timeout: STEP_TIMEOUT_MS,
    });
  };
  check(sh(['pnpm', 'install', '--frozen-lockfile']), 'machine 2: pnpm install --frozen-lockfile');
  return {
    base,
    root,
    env,
    sh,
    out() {
      try {
        return (
          JSON.parse(readFileSync(join(root, 'packages', 'b', 'dist', 'out.json'), 'utf8')) as { tinyDep?: string }
        ).tinyDep;
      } catch {
        return undefined;
      }
    },
    installed() {
      return (
        JSON.parse(readFileSync(join(root, 'packages', 'b', 'node_modules', 'tiny-dep', 'package.json'), 'utf8')) as {
          version: string;
        }
      ).version;
    },
    cRan: () => existsSync(join(base, 'c-ran')),
  };
}
