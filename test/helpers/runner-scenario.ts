// The FIELD-NOTES poisoning scenario as a real workspace, for turbo, nx and pnpm pipeline.
//
// `a#build` runs `pnpm --filter b add tiny-dep@<6.0.0 tarball>` (once: only while the `armed` file next to
// the workspace exists, so a later rebuild does not install again); `b#build` depends on a and writes the
// installed tiny-dep version to `packages/b/dist/out.json`. S0 has tiny-dep 7.0.0. The tarballs are made
// here (tar), HOME/XDG/store live in the temp dir, nothing touches the network.
// turbo and nx run with pnpm 10 (turbo wants `packageManager`, which pnpm 12 would turn into a two-document
// lockfile); the pipeline is pnpm 12's own.

import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { scrubbedEnv } from './cli.js';
import { tempWorkspace, writeTree } from './workspace.js';

export type Tool = 'turbo' | 'nx' | 'pnpm-pipeline';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const PNPM10 = join(REPO, 'node_modules', 'pnpm10', 'bin', 'pnpm.cjs');
const PNPM12 = join(REPO, 'node_modules', 'pnpm12', 'pnpm');
const BIN = join(REPO, 'node_modules', '.bin');

export interface Scenario {
  readonly tool: Tool;
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

function check(result: SpawnSyncReturns<string>, what: string): SpawnSyncReturns<string> {
  if (result.status !== 0) throw new Error(`${what} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

function tarball(base: string, version: string): void {
  const src = join(base, `src-${version}`, 'package');
  writeTree(src, { 'package.json': JSON.stringify({ name: 'tiny-dep', version, main: 'index.js' }), 'index.js': `module.exports = '${version}';\n` });
  check(spawnSync('tar', ['-czf', join(base, 'ws', 'vendor', `tiny-dep-${version}.tgz`), '-C', join(base, `src-${version}`), 'package'], { encoding: 'utf8', timeout: 10_000 }), 'tar');
}

const A_BUILD = `const fs = require('fs'), path = require('path'), cp = require('child_process');
const armed = path.join(__dirname, 'armed');
if (fs.existsSync(armed)) {
  fs.unlinkSync(armed);
  cp.execFileSync('pnpm', ['--filter', 'b', 'add', 'tiny-dep@file:../../vendor/tiny-dep-6.0.0.tgz'], { stdio: 'inherit' });
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

/** Build the scenario workspace, install it (S0) and arm a#build. */
export interface ScenarioOptions {
  /** nx shares its cache under ~/.nx/<id>/ only when HOME is not under /tmp. */
  readonly homeOutsideTmp?: boolean;
  /** The pnpm the workspace pins and puts on PATH (default: 10 for turbo and nx, 12 for the pipeline). */
  readonly pnpm?: 10 | 12;
  /** Root package.json scripts (how people start their runner: `"build": "turbo run build"`). */
  readonly rootScripts?: Readonly<Record<string, string>>;
}

export function scenario(t: Pick<TestContext, 'after'>, tool: Tool, options: ScenarioOptions = {}): Scenario {
  const base = tempWorkspace(t, {}, `lockguard-${tool}-`);
  const root = join(base, 'ws');
  // nx shares its cache under ~/.nx/<id>/ only when HOME is not under /tmp (and the repo has an identity).
  const home = options.homeOutsideTmp === true ? realpathSync(mkdtempSync('/var/tmp/lockguard-home-')) : join(base, 'home');
  if (options.homeOutsideTmp === true) t.after(() => rmSync(home, { recursive: true, force: true }));
  mkdirSync(join(root, 'vendor'), { recursive: true });
  mkdirSync(join(base, 'bin'), { recursive: true });
  mkdirSync(home, { recursive: true });
  tarball(base, '6.0.0');
  tarball(base, '7.0.0');
  const pnpmMajor = options.pnpm ?? (tool === 'pnpm-pipeline' ? 12 : 10);
  const pnpm = pnpmMajor === 12 ? `exec "${PNPM12}" "$@"` : `exec "${process.execPath}" "${PNPM10}" "$@"`;
  writeFileSync(join(base, 'bin', 'pnpm'), `#!/bin/sh\n${pnpm}\n`);
  chmodSync(join(base, 'bin', 'pnpm'), 0o755);
  writeFileSync(join(base, 'a-build.cjs'), A_BUILD);
  const rootManifest: Record<string, unknown> = { name: 'root', private: true };
  if (tool !== 'pnpm-pipeline') rootManifest['packageManager'] = pnpmMajor === 12 ? 'pnpm@12.4.2' : 'pnpm@10.34.8';
  if (options.rootScripts !== undefined) rootManifest['scripts'] = options.rootScripts;
  if (tool === 'nx') rootManifest['devDependencies'] = { nx: `link:${join(REPO, 'node_modules', 'nx')}` };
  let workspaceYaml = 'packages:\n  - "packages/*"\nupdateNotifier: false\n';
  if (tool === 'pnpm-pipeline') workspaceYaml += 'tasks:\n  build:\n    dependsOn: ["^build"]\n    outputs: ["dist/**"]\npipelines:\n  default: [build]\n';
  writeTree(root, {
    'package.json': `${JSON.stringify(rootManifest, null, 2)}\n`,
    'pnpm-workspace.yaml': workspaceYaml,
    '.gitignore': 'node_modules\n.turbo\n.nx\ndist\n',
    ...(tool === 'turbo' ? { 'turbo.json': JSON.stringify({ tasks: { build: { dependsOn: ['^build'], outputs: ['dist/**'] } } }, null, 2) } : {}),
    ...(tool === 'nx' ? { 'nx.json': JSON.stringify({ targetDefaults: { build: { dependsOn: ['^build'], outputs: ['{projectRoot}/dist'], cache: true } } }, null, 2) } : {}),
    packages: {
      a: { 'package.json': JSON.stringify({ name: 'a', version: '1.0.0', private: true, scripts: { build: 'node ../../../a-build.cjs' } }, null, 2) },
      b: {
        'package.json': JSON.stringify(
          { name: 'b', version: '1.0.0', private: true, dependencies: { a: 'workspace:*', 'tiny-dep': 'file:../../vendor/tiny-dep-7.0.0.tgz' }, scripts: { build: B_BUILD } },
          null,
          2,
        ),
      },
    },
  });
  const env = scrubbedEnv({
    HOME: home,
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    PATH: `${join(base, 'bin')}:${BIN}:${process.env['PATH'] ?? ''}`,
    TURBO_TELEMETRY_DISABLED: '1',
    TURBO_NO_UPDATE_NOTIFIER: '1',
    DO_NOT_TRACK: '1',
    NX_DAEMON: 'false',
    NX_NO_CLOUD: 'true',
    NX_TUI: 'false',
    NX_ISOLATE_PLUGINS: 'false',
    GIT_AUTHOR_NAME: 'lockguard-test',
    GIT_AUTHOR_EMAIL: 'test@lockguard.invalid',
    GIT_COMMITTER_NAME: 'lockguard-test',
    GIT_COMMITTER_EMAIL: 'test@lockguard.invalid',
    GIT_CONFIG_NOSYSTEM: '1',
  });
  const sh = (argv: readonly string[]): SpawnSyncReturns<string> => {
    const [command, ...args] = argv;
    return spawnSync(command ?? 'true', args, { cwd: root, env, encoding: 'utf8', timeout: 90_000 });
  };
  check(sh(['pnpm', 'install']), 'pnpm install');
  if (tool === 'pnpm-pipeline' || options.homeOutsideTmp === true) {
    // The pipeline reads git metadata for its inputs, and nx derives its workspace id from git: S0 is a commit.
    check(sh(['git', 'init', '-q', '.']), 'git init');
    check(sh(['git', 'add', '-A']), 'git add');
    check(sh(['git', 'commit', '-qm', 'S0']), 'git commit');
  }
  const saved = join(base, 'saved');
  mkdirSync(saved);
  copyFileSync(join(root, 'pnpm-lock.yaml'), join(saved, 'pnpm-lock.yaml'));
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
  arm();
  return {
    tool,
    base,
    root,
    env,
    lockfile: join(root, 'pnpm-lock.yaml'),
    sh,
    runnerArgv,
    runner: () => check(sh(runnerArgv()), runnerArgv().join(' ')),
    arm,
    goBack() {
      copyFileSync(join(saved, 'pnpm-lock.yaml'), join(root, 'pnpm-lock.yaml'));
      copyFileSync(join(saved, 'b-package.json'), join(root, 'packages', 'b', 'package.json'));
      check(sh(['pnpm', 'install', '--frozen-lockfile']), 'pnpm install --frozen-lockfile');
      for (const name of ['a', 'b']) rmSync(join(root, 'packages', name, 'dist'), { recursive: true, force: true });
    },
    out() {
      try {
        return (JSON.parse(readFileSync(join(root, 'packages', 'b', 'dist', 'out.json'), 'utf8')) as { tinyDep?: string }).tinyDep;
      } catch {
        return undefined;
      }
    },
    installed() {
      return (JSON.parse(readFileSync(join(root, 'packages', 'b', 'node_modules', 'tiny-dep', 'package.json'), 'utf8')) as { version: string }).version;
    },
  };
}
