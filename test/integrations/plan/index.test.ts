// `lockguard plan` against the real runners' own graphs (turbo 2.11 --dry=json, nx 24 --graph=stdout,
// pnpm 12 pipeline --dry-run --json, pnpm -r from the workspace), on the poisoning scenario's workspace:
// a#build installs (`pnpm --filter b add is-number@6.0.0`), b#build depends on a.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliProcess } from '../../helpers/cli.js';
import { isolatedEnv } from '../../helpers/env.js';
import { repoRoot } from '../../helpers/fixtures.js';
import { B_ON_A_LOCK, tempWorkspace, type Tree } from '../../helpers/workspace.js';

const REPO = repoRoot();
const BIN = join(REPO, 'node_modules', '.bin');
const PNPM10 = join(REPO, 'node_modules', 'pnpm10', 'bin', 'pnpm.cjs');
const PNPM12 = join(REPO, 'node_modules', 'pnpm12', 'pnpm');

interface Options {
  readonly aBuild?: string;
  readonly packageManager?: string;
  readonly extra?: Tree;
}

function fieldNotes(
  t: Parameters<typeof tempWorkspace>[0],
  options: Options = {},
): { root: string; env: Record<string, string> } {
  const root = tempWorkspace(t, {
    'package.json': JSON.stringify({
      name: 'root',
      private: true,
      ...(options.packageManager === undefined ? {} : { packageManager: options.packageManager }),
    }),
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
    'pnpm-lock.yaml': B_ON_A_LOCK,
    'turbo.json': JSON.stringify({ tasks: { build: { dependsOn: ['^build'], outputs: ['dist/**'] } } }),
    'nx.json': JSON.stringify({ targetDefaults: { build: { dependsOn: ['^build'], cache: true } } }),
    packages: {
      a: {
        'package.json': JSON.stringify({
          name: 'a',
          version: '1.0.0',
          scripts: { build: options.aBuild ?? 'pnpm --filter b add is-number@6.0.0' },
        }),
      },
      b: {
        'package.json': JSON.stringify({
          name: 'b',
          version: '1.0.0',
          dependencies: { a: 'workspace:*' },
          scripts: { build: "node -e \"require('fs').mkdirSync('dist',{recursive:true})\"" },
        }),
      },
    },
    home: {},
    ...options.extra,
  });
  const env = isolatedEnv(root, { settings: 'home', path: [BIN] });
  return { root, env };
}

interface PlanJson {
  runner: string;
  writers: string[];
  unstable: string[];
  tasks: { id: string; writer: boolean; stability: string; reasons: string[] }[];
}

function plan(
  root: string,
  env: Record<string, string>,
  command: string[],
): { code: number; json: PlanJson | undefined; stderr: string } {
  const result = cliProcess(['plan', '--json', '--', ...command], root, env, 90_000);
  let json: PlanJson | undefined;
  try {
    json = JSON.parse(result.stdout) as PlanJson;
  } catch {
    json = undefined;
  }
  return { code: result.code, json, stderr: result.stderr };
}

test('turbo: a#build installs, so b#build (after it) is unstable; exit 1', (t) => {
  const { root, env } = fieldNotes(t, { packageManager: 'pnpm@10.34.8' });
  const result = plan(root, env, ['turbo', 'run', 'build']);
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.json?.runner, 'turbo');
  assert.deepEqual(result.json?.writers, ['a#build']);
  assert.deepEqual(result.json?.unstable, ['b#build']);
  assert.equal(result.json?.tasks.find((task) => task.id === 'b#build')?.reasons.length, 1);
});

test('turbo: a writer whose install is --frozen-lockfile is no writer; every key stable, exit 0', (t) => {
  const { root, env } = fieldNotes(t, {
    packageManager: 'pnpm@10.34.8',
    aBuild: 'pnpm install --frozen-lockfile && node -e 1',
  });
  const result = plan(root, env, ['turbo', 'run', 'build']);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(result.json?.writers, []);
  assert.deepEqual(result.json?.unstable, []);
});

test('turbo under pnpm 12: every task is started with pnpm run, which installs first: all unstable but the first', (t) => {
  const { root, env } = fieldNotes(t, { packageManager: 'pnpm@12.4.2', aBuild: 'node -e 1' });
  const result = plan(root, env, ['turbo', 'run', 'build']);
  assert.equal(result.code, 1, result.stderr);
  assert.deepEqual(result.json?.writers.sort(), ['a#build', 'b#build']);
  assert.deepEqual(result.json?.unstable, ['b#build']);
});

test('turbo: a dry run that fails is exit 2 with the runner named', (t) => {
  const { root, env } = fieldNotes(t, { packageManager: 'pnpm@10.34.8' });
  const result = cliProcess(['plan', '--', 'turbo', 'run', 'no-such-task-anywhere'], root, env, 60_000);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /turbo run no-such-task-anywhere/);
});

test('nx 24: b:build runs after the installing a:build: unstable; with no installing task all stable', (t) => {
  const { root, env } = fieldNotes(t, { packageManager: 'pnpm@10.34.8', extra: { 'pnpm-lock.yaml': null } });
  mkdirSync(join(root, 'node_modules'));
  symlinkSync(join(REPO, 'node_modules', 'nx'), join(root, 'node_modules', 'nx'));
  const result = plan(root, env, ['nx', 'run-many', '-t', 'build']);
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.json?.runner, 'nx');
  assert.deepEqual(result.json?.writers, ['a:build']);
  assert.deepEqual(result.json?.unstable, ['b:build']);
});

test('pnpm 12 pipeline: b unstable after the installing a; no installing task: all stable', (t) => {
  const pipeline =
    'packages:\n  - "packages/*"\ntasks:\n  build:\n    dependsOn: ["^build"]\n    outputs: ["dist/**"]\npipelines:\n  default: [build]\n';
  {
    // a#build installs: b#build is unstable.
    const { root, env } = fieldNotes(t, { extra: { 'pnpm-workspace.yaml': pipeline } });
    const result = plan(root, env, [PNPM12, 'pipeline']);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.json?.runner, 'pnpm-pipeline');
    assert.deepEqual(result.json?.unstable, ['packages/b#build']);
  }
  {
    // Nothing installs: every key stable (pnpm run inside pipeline tasks does not install).
    const { root, env } = fieldNotes(t, { aBuild: 'pnpm run noop', extra: { 'pnpm-workspace.yaml': pipeline } });
    const result = plan(root, env, [PNPM12, 'pipeline']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.json?.writers, []);
  }
});

test('pnpm -r run build: ordered by workspace topology; under pnpm 12 the run itself installs first', (t) => {
  {
    // pnpm 10: only a#build writes.
    const { root, env } = fieldNotes(t, { packageManager: 'pnpm@10.34.8' });
    const result = plan(root, env, ['pnpm', '-r', 'run', 'build']);
    assert.equal(result.code, 1);
    assert.deepEqual(result.json?.writers, ['a#build']);
    assert.deepEqual(result.json?.unstable, ['b#build']);
    // The real pnpm agrees on the order: a before b.
    const real = spawnSync(
      process.execPath,
      [PNPM10, '-r', '--reporter=ndjson', 'exec', 'node', '-e', 'console.log("ORDER "+require("./package.json").name)'],
      { cwd: root, env, encoding: 'utf8', timeout: 60_000 },
    );
    assert.deepEqual(
      real.stdout.split('\n').filter((line) => line.startsWith('ORDER ')),
      ['ORDER a', 'ORDER b'],
    );
  }
  {
    // A filter to b alone, nothing installs in b: stable.
    const { root, env } = fieldNotes(t, { packageManager: 'pnpm@10.34.8' });
    const result = plan(root, env, ['pnpm', '--filter', 'b', 'run', 'build']);
    assert.equal(result.code, 0);
    assert.deepEqual(
      result.json?.tasks.map((task) => task.id),
      ['b#build'],
    );
  }
  {
    // pnpm 12 default verifyDepsBeforeRun: install: the run's own check writes before every task.
    const { root, env } = fieldNotes(t, { packageManager: 'pnpm@12.4.2', aBuild: 'node -e 1' });
    const result = plan(root, env, ['pnpm', '-r', 'build']);
    assert.equal(result.code, 1);
    assert.deepEqual(result.json?.unstable.sort(), ['a#build', 'b#build']);
  }
});

test('pnpm build --filter b runs the root script with --filter b appended (pnpm 10 and 12): the plan is turbo run build --filter b', (t) => {
  const { root, env } = fieldNotes(t, {
    packageManager: 'pnpm@10.34.8',
    aBuild: 'node -e 1',
    extra: {
      'package.json': JSON.stringify({
        name: 'root',
        private: true,
        packageManager: 'pnpm@10.34.8',
        scripts: { build: 'turbo run build', echo: 'node -e "console.log(process.argv.slice(1).join(\' \'))" ROOT' },
      }),
    },
  });
  // What the real pnpm does with words after a script name: hands them to the root script, no recursive run.
  const quiet = {
    ...env,
    npm_config_verify_deps_before_run: 'false',
    pnpm_config_verify_deps_before_run: 'false',
    npm_config_manage_package_manager_versions: 'false',
    pnpm_config_manage_package_manager_versions: 'false',
  };
  for (const [name, argv] of [
    ['pnpm 10', [process.execPath, PNPM10]],
    ['pnpm 12', [PNPM12]],
  ] as const) {
    const real = spawnSync(argv[0], [...argv.slice(1), 'echo', '--filter', 'b...'], {
      cwd: root,
      env: quiet,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(
      real.stdout.split('\n').find((line) => line.startsWith('ROOT')),
      'ROOT --filter b...',
      `${name}: ${real.stdout}${real.stderr}`,
    );
  }
  const through = plan(root, env, ['pnpm', 'build', '--filter', 'b']);
  const direct = plan(root, env, ['turbo', 'run', 'build', '--filter', 'b']);
  assert.equal(through.json?.runner, 'turbo', through.stderr);
  assert.deepEqual(
    through.json?.tasks.map((task) => task.id),
    direct.json?.tasks.map((task) => task.id),
  );
  assert.deepEqual(direct.json?.tasks.map((task) => task.id).sort(), ['a#build', 'b#build']);
});
