// The sound-keys e2e scenario (test/e2e/sound-keys*.test.ts): a git repository holding a pnpm workspace (a, and
// b depending on a) with a turbo or nx tree on top, the real turbo 2.11.11 and nx 24.0.6 on its PATH, and
// readers of each runner's own hashes (turbo's dry run, nx's run.json) and of doctor's sound-keys checks.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from './cli.js';
import { isolatedEnv } from './env.js';
import { repoRoot } from './fixtures.js';
import { commitS0, shellIn } from './tool-shims.js';
import { B_ON_A_LOCK, tempWorkspace, type Tree, writeTree } from './workspace.js';

export const REPO = repoRoot();
export const BIN = join(REPO, 'node_modules', '.bin');
export const STEP_TIMEOUT_MS = 120_000;

/** The workspace's lockfile: a, and b depending on a (workspace.ts). */
export const LOCK = B_ON_A_LOCK;

export const BUILD = `node -e "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/out.txt','x')"`;

export interface Ws {
  readonly root: string;
  readonly env: Record<string, string>;
  sh(argv: readonly string[]): { code: number; stdout: string; stderr: string };
  slice(project: string, text: string): void;
}

/** A git repository holding a pnpm workspace (a, and b depending on a) with `tree` on top; slice files written, and gitignored. */
export function workspace(t: Parameters<typeof tempWorkspace>[0], tree: Tree): Ws {
  const base = tempWorkspace(t, {}, 'lockguard-sound-keys-');
  const root = join(base, 'ws');
  writeTree(root, {
    'package.json': JSON.stringify({ name: 'root', private: true, packageManager: 'pnpm@10.34.8' }),
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
    '.gitignore': 'node_modules\n.turbo\n.nx\ndist\n.lockguard-slice\n',
    packages: {
      a: {
        'package.json': JSON.stringify({ name: 'a', version: '1.0.0', scripts: { build: BUILD, lint: BUILD } }),
        '.lockguard-slice': 'slice a 1\n',
      },
      b: {
        'package.json': JSON.stringify({
          name: 'b',
          version: '1.0.0',
          dependencies: { a: 'workspace:*' },
          scripts: { build: BUILD, lint: BUILD },
        }),
        '.lockguard-slice': 'slice b 1\n',
      },
    },
  });
  writeTree(root, tree);
  mkdirSync(join(base, 'home'));
  const env = isolatedEnv(base, {
    home: join(base, 'home'),
    settings: 'home',
    path: [BIN],
    extra: { NX_TUI: 'false', NX_ISOLATE_PLUGINS: 'false', GIT_CONFIG_NOSYSTEM: '1' },
  });
  const run = shellIn(root, env, STEP_TIMEOUT_MS);
  const sh = (argv: readonly string[]): { code: number; stdout: string; stderr: string } => {
    const result = run(argv);
    return {
      code: result.status ?? -1,
      stdout: result.stdout ?? '',
      stderr: `${result.stderr ?? ''}${result.error === undefined ? '' : `\n(${result.error.message})`}`,
    };
  };
  commitS0(run);
  return {
    root,
    env,
    sh,
    slice: (project, text) => writeFileSync(join(root, 'packages', project, '.lockguard-slice'), text),
  };
}

/** turbo's task hashes from its own dry run. */
export function turboHashes(ws: Ws): Record<string, string> {
  const result = ws.sh(['turbo', 'run', 'build', 'lint', '--dry=json']);
  assert.equal(result.code, 0, result.stderr);
  const parsed = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as {
    tasks: { taskId: string; hash: string }[];
  };
  return Object.fromEntries(parsed.tasks.map((task) => [task.taskId, task.hash]));
}

/** A real nx run of every target; each task's hash and cache status as its run.json says. */
export function nxRun(ws: Ws): Record<string, { hash: string; cacheStatus: string }> {
  const result = ws.sh(['nx', 'run-many', '-t', 'build,lint,check', '--output-style=static']);
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  const run = JSON.parse(readFileSync(join(ws.root, '.nx', 'cache', 'run.json'), 'utf8')) as {
    tasks: { taskId: string; hash: string; cacheStatus: string }[];
  };
  return Object.fromEntries(run.tasks.map((task) => [task.taskId, { hash: task.hash, cacheStatus: task.cacheStatus }]));
}

export interface Check {
  readonly check: string;
  readonly level: string;
  readonly detail: string;
  readonly fix?: string;
}

export async function soundChecks(ws: Ws): Promise<Check[]> {
  const result = await cli(['doctor', '--json'], ws.root, ws.env);
  return (JSON.parse(result.stdout) as Check[]).filter((check) => check.check === 'sound-keys');
}

export const TURBO_TREE: Tree = {
  'pnpm-lock.yaml': LOCK,
  'turbo.json':
    '{\n  // build everything\n  "tasks": {\n    "build": { "dependsOn": ["^build"], "outputs": ["dist/**"] },\n    "lint": { "inputs": ["src/**"] },\n    "dev": { "cache": false }\n  }\n}\n',
  packages: {
    b: { 'turbo.json': '{ "extends": ["//"], "tasks": { "build": { "inputs": ["src/**", "package.json"] } } }' },
  },
};

export const NX_TREE: Tree = {
  'nx.json': JSON.stringify(
    {
      namedInputs: { srcOnly: ['{projectRoot}/src/**/*'] },
      targetDefaults: { build: { dependsOn: ['^build'], cache: true }, lint: { cache: true, inputs: ['srcOnly'] } },
    },
    null,
    2,
  ),
  packages: {
    c: {
      'project.json': JSON.stringify(
        {
          name: 'c',
          targets: {
            check: {
              executor: 'nx:run-commands',
              options: { command: 'node -e 1' },
              cache: true,
              inputs: ['{projectRoot}/src/**'],
            },
          },
        },
        null,
        2,
      ),
      '.lockguard-slice': 'slice c 1\n',
    },
  },
};

/** nx's workspace: no lockfile (nx reads a pnpm lockfile only with an installed tree), the repo's nx linked in. */
export function nxWorkspace(t: Parameters<typeof tempWorkspace>[0]): Ws {
  const ws = workspace(t, NX_TREE);
  mkdirSync(join(ws.root, 'node_modules'));
  symlinkSync(join(REPO, 'node_modules', 'nx'), join(ws.root, 'node_modules', 'nx'));
  return ws;
}

export const LOCK_B_ALONE = LOCK.replace(/ {2}packages\/b:\n(?: {4}.*\n)+/, '  packages/b: {}\n');

/** Commit everything in the working tree. */
export function commitAll(ws: Ws, message: string): void {
  for (const argv of [
    ['git', 'add', '-A'],
    ['git', '-c', 'user.name=t', '-c', 'user.email=t@lockguard.invalid', 'commit', '-qm', message],
  ]) {
    const result = ws.sh(argv);
    assert.equal(result.code, 0, `${argv.join(' ')}: ${result.stderr}`);
  }
}

/** The one sound-keys check of `runner` (doctor --json names it by its detail). */
export function checkOf(checks: readonly Check[], pattern: RegExp): Check | undefined {
  return checks.find((check) => pattern.test(check.detail));
}
