// The poisoning scenario's workspace (lib/README.md), written and not yet installed, for turbo, nx and pnpm
// pipeline: runner-scenario.ts installs it (S0) and runs the runner over it.
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
//
// Owns: the options (`ScenarioOptions`), the temp folder's layout (`<base>/ws` the workspace, `bin/` the tools
// on PATH, `home/`, `a-build.cjs`, the tarballs under `ws/vendor/`), the package scripts and the env.
// Invariants: writes only under the temp folder it makes (and, with `homeOutsideTmp`, one HOME under
// /var/tmp), both removed when the test ends; runs no package manager and no runner (tar aside).

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { isolatedEnv } from './env.js';
import { nxInstallation } from './runner-versions.js';
import { packTarball, toolBin } from './tool-shims.js';
import { tempWorkspace, type Tree, writeTree } from './workspace.js';

export type Tool = 'turbo' | 'nx' | 'pnpm-pipeline';
/** The package manager of the scenario's workspace (yarn and bun with turbo only). */
export type ScenarioManager = 'pnpm' | 'yarn' | 'bun';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(REPO, 'node_modules', '.bin');

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

const B_BUILD = `node -e "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/out.json',JSON.stringify({tinyDep:require('tiny-dep')}))"`;

const C_BUILD = `node -e "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/c.txt','c');require('fs').appendFileSync('../../../c-ran','x')"`;
// c's build that starts at once but saves only after a's install rewrote the lockfile (at most 60 s): its save is after the move.
const C_AFTER_MOVE_BUILD = `node -e "const fs=require('fs'),cp=require('child_process');const until=Date.now()+60000;while(!fs.readFileSync('../../pnpm-lock.yaml','utf8').includes('tiny-dep-6.0.0')&&Date.now()<until)cp.execFileSync('sleep',['0.1']);fs.mkdirSync('dist',{recursive:true});fs.writeFileSync('dist/c.txt','c');fs.appendFileSync('../../../c-ran','x')"`;
const D_BUILD = `node -e "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/d.txt','d')"`;
// The install in plain sight (the plan sees it); it runs on every real build of a, so nothing is armed.
// With `phantom`: a's build also records what phantom-x (a's dependency) resolves for its undeclared tiny-dep.
const PHANTOM_RECORD = `node -e "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/phantom.json',JSON.stringify({tinyDep:require('phantom-x')}))"`;
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
  /**
   * nx through Lerna (tool `nx`): the root depends on this repo's Lerna only (`link:`), so nx is Lerna's own
   * dependency (under pnpm not resolvable from the root), with lerna.json; the runner is `lerna run build`.
   */
  readonly lerna?: boolean;
  /** The turbo on PATH: a folder of this repo's node_modules (`turbo20` = the `npm:turbo@2.0.14` alias; default `turbo`). */
  readonly turboPackage?: string;
  /**
   * a depends on `phantom-x` (a `file:` tarball) whose index.js requires tiny-dep without declaring it (a phantom
   * dependency, resolved through hoisting); a's build then records what it resolved in `packages/a/dist/phantom.json`.
   */
  readonly phantom?: boolean;
}

/** packages/: a (its build: a-build.cjs, or the install in plain sight), b, and the options' c, d and c1..cN. */
function packagesTree(options: ScenarioOptions): Tree {
  return {
    a: {
      'package.json': JSON.stringify(
        {
          name: 'a',
          version: '1.0.0',
          private: true,
          ...(options.phantom === true
            ? { dependencies: { 'phantom-x': 'file:../../vendor/phantom-x-1.0.0.tgz' } }
            : {}),
          scripts: {
            build:
              options.visibleInstall === true
                ? VISIBLE_A_BUILD
                : `node ../../../a-build.cjs${options.phantom === true ? ` && ${PHANTOM_RECORD}` : ''}`,
          },
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
  };
}

/** The written workspace: where it is and the env every command in it gets. */
export interface ScenarioWorkspace {
  readonly manager: ScenarioManager;
  /** The temp folder holding home/, bin/, a-build.cjs and the workspace. */
  readonly base: string;
  readonly root: string;
  readonly env: Record<string, string>;
}

/** Make the temp folder and write the scenario workspace in it: tarballs, tools on PATH, a-build.cjs, the tree. */
export function scenarioWorkspace(
  t: Pick<TestContext, 'after'>,
  tool: Tool,
  options: ScenarioOptions = {},
): ScenarioWorkspace {
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
  if (options.phantom === true)
    packTarball(
      join(root, 'vendor', 'phantom-x-1.0.0.tgz'),
      join(base, 'src-phantom'),
      { name: 'phantom-x', version: '1.0.0' },
      "module.exports = require('tiny-dep');\n",
    );
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
  if (tool === 'nx')
    rootManifest['devDependencies'] =
      options.lerna === true ? { lerna: `link:${join(REPO, 'node_modules', 'lerna')}` } : { nx: `link:${nxPackage}` };
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
    ...(options.lerna === true
      ? { 'lerna.json': JSON.stringify({ version: '0.0.0', npmClient: 'pnpm', packages: ['packages/*'] }, null, 2) }
      : {}),
    packages: packagesTree(options),
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
  return { manager, base, root, env };
}
