// The poisoning scenario (lib/README.md) as a real, installed workspace, for turbo, nx and pnpm pipeline, and
// the runner over it: scenario-workspace.ts writes the workspace, this module installs it (S0) and gives tests
// the `Scenario` to drive (the runner's build, arming a#build's install, going back to S0, what b's build saw)
// and a second machine for the same repository (`secondMachine`).
//
// Invariants: every command runs in the workspace with the scenario's env and a step timeout, so a hung tool
// fails its test instead of stalling the run; S0's lockfile and b/package.json are kept under `<base>/saved/`
// (what `goBack` and a second machine start from); a#build installs only while armed, and `scenario` arms it
// (unless the install is in plain sight, where it runs on every real build).
// A file that calls `installOncePerFile()` at its top level installs each pnpm scenario once (a template, removed
// after the file's last test) and gives every test a private `cp -a` copy of the installed workspace, its bin/,
// a-build.cjs and saved/ in its own temp folder; the copies share the template's HOME (pnpm's store, whose path
// `.modules.yaml` records), as the lage and moon scenarios do. Not shared: a `prepare`, an `install` (its argv
// names the root), `homeOutsideTmp` (nx's cache under that HOME), the pipeline (its own frozen install and git
// inputs), yarn and bun workspaces.

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
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { homeEnv } from './env.js';
import {
  scenarioWorkspace,
  type ScenarioManager,
  type ScenarioOptions,
  type ScenarioWorkspace,
  type Tool,
} from './scenario-workspace.js';
import { check, commitS0, copyInstalled, fileTemplates, shellIn, type FileTemplates } from './tool-shims.js';
import { tempWorkspace } from './workspace.js';

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

const LOCKFILE: Record<ScenarioManager, string> = { pnpm: 'pnpm-lock.yaml', yarn: 'yarn.lock', bun: 'bun.lock' };
const INSTALL: Record<ScenarioManager, { install: string[]; frozen: string[] }> = {
  pnpm: { install: ['pnpm', 'install'], frozen: ['pnpm', 'install', '--frozen-lockfile'] },
  yarn: { install: ['yarn', 'install'], frozen: ['yarn', 'install', '--immutable'] },
  bun: { install: ['bun', 'install'], frozen: ['bun', 'install', '--frozen-lockfile'] },
};

/** tiny-dep's version as b's build under `root` wrote it, or undefined. */
function outOf(root: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(root, 'packages', 'b', 'dist', 'out.json'), 'utf8')) as { tinyDep?: string })
      .tinyDep;
  } catch {
    return undefined;
  }
}

/** tiny-dep's version in b's node_modules under `root` (pnpm and bun; yarn's PnP has none). */
function installedIn(root: string): string {
  return (
    JSON.parse(readFileSync(join(root, 'packages', 'b', 'node_modules', 'tiny-dep', 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
}

/**
 * Build the scenario workspace, install it (S0) and arm a#build; `prepare` (if given) edits the written
 * workspace before the install (a layout's settings, packages of its own: test/helpers/reach-arms.ts).
 */
export function scenario(
  t: Pick<TestContext, 'after'>,
  tool: Tool,
  options: ScenarioOptions = {},
  prepare?: (workspace: ScenarioWorkspace) => void,
): Scenario {
  const scope = prepare === undefined && shareable(tool, options) ? fileScope : undefined;
  const installed =
    scope !== undefined
      ? copyOf(
          t,
          scope.get(JSON.stringify([tool, options]), (file) => installS0(file, tool, options)),
        )
      : installS0(t, tool, options, prepare);
  return drive(installed, tool, options);
}

/** Write the scenario workspace, install it (S0) and keep S0's lockfile and b/package.json under `<base>/saved/`. */
function installS0(
  t: Pick<TestContext, 'after'>,
  tool: Tool,
  options: ScenarioOptions,
  prepare?: (workspace: ScenarioWorkspace) => void,
): ScenarioWorkspace {
  const written = scenarioWorkspace(t, tool, options);
  prepare?.(written);
  const { manager, base, root, env } = written;
  const sh = shellIn(root, env, STEP_TIMEOUT_MS);
  check(sh(INSTALL[manager].install), INSTALL[manager].install.join(' '));
  // The pipeline reads git metadata for its inputs, and nx derives its workspace id from git: S0 is a commit.
  if (tool === 'pnpm-pipeline' || options.homeOutsideTmp === true) commitS0(sh);
  const saved = join(base, 'saved');
  const lockfile = LOCKFILE[manager];
  mkdirSync(saved);
  copyFileSync(join(root, lockfile), join(saved, lockfile));
  copyFileSync(join(root, 'packages', 'b', 'package.json'), join(saved, 'b-package.json'));
  return written;
}

/** The installed templates of this file by tool and options (undefined: the file did not opt in). */
let fileScope: FileTemplates<string, ScenarioWorkspace> | undefined;

/**
 * Call once at a test file's top level: its tests' pnpm scenarios are installed once per tool and options
 * and copied per test (`cp -a`); the templates are removed after the file's last test.
 */
export function installOncePerFile(): void {
  fileScope = fileTemplates();
}

function shareable(tool: Tool, options: ScenarioOptions): boolean {
  return (
    tool !== 'pnpm-pipeline' &&
    (options.manager ?? 'pnpm') === 'pnpm' &&
    options.install === undefined &&
    options.homeOutsideTmp !== true
  );
}

/**
 * A private copy of an installed template in the test's own temp folder: the workspace (links and all), bin/,
 * a-build.cjs and saved/; PATH names the copy's bin/, HOME stays the template's (its pnpm store). pnpm's
 * workspace state names the projects by absolute path: rewritten to the copy's, as an install there writes it.
 */
function copyOf(t: Pick<TestContext, 'after'>, installed: ScenarioWorkspace): ScenarioWorkspace {
  const base = realpathSync(mkdtempSync(join(tmpdir(), `lockguard-copy-${installed.manager}-`)));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const root = copyInstalled(installed.base, base, ['ws', 'bin', 'saved', 'a-build.cjs']);
  const env = {
    ...installed.env,
    PATH: (installed.env['PATH'] ?? '').replace(join(installed.base, 'bin'), join(base, 'bin')),
  };
  return { manager: installed.manager, base, root, env };
}

/** The scenario's driver over an installed workspace (S0 saved under `<base>/saved/`), armed. */
function drive(installed: ScenarioWorkspace, tool: Tool, options: ScenarioOptions): Scenario {
  const { manager, base, root, env } = installed;
  const sh = shellIn(root, env, STEP_TIMEOUT_MS);
  const saved = join(base, 'saved');
  const lockfile = LOCKFILE[manager];
  const runnerArgv = (): string[] => {
    switch (tool) {
      case 'turbo':
        return ['turbo', 'run', 'build', '--summarize'];
      case 'nx':
        return options.lerna === true
          ? ['lerna', 'run', 'build', '--stream']
          : ['nx', 'run-many', '-t', 'build', '--output-style=static'];
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
    out: () => outOf(root),
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
      return installedIn(root);
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
    out: () => outOf(root),
    installed: () => installedIn(root),
    cRan: () => existsSync(join(base, 'c-ran')),
  };
}
