// `lockguard plan` usage: the command after "--", plain commands as one task, exit codes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../../helpers/cli.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

test('no command after "--" is a usage error (exit 2)', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  assert.equal((await cli(['plan'], root)).code, 2);
  assert.equal((await cli(['plan', 'turbo', 'run', 'build'], root)).code, 2);
});

test('a plain command is one task: a writer when it installs, and nothing runs after it', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const install = await cli(['plan', '--json', '--', 'pnpm', 'add', 'left-pad'], root);
  assert.equal(install.code, 0);
  const data = JSON.parse(install.stdout) as { runner: string; writers: string[] };
  assert.equal(data.runner, 'command');
  assert.deepEqual(data.writers, ['pnpm add left-pad']);
  const frozen = JSON.parse(
    (await cli(['plan', '--json', '--', 'pnpm', 'install', '--frozen-lockfile'], root)).stdout,
  ) as { writers: string[] };
  assert.deepEqual(frozen.writers, []);
});

test('a root script wrapping pnpm -r is planned through it', async (t) => {
  const root = tempWorkspace(t, {
    ...pnpmTree(),
    'package.json': JSON.stringify({
      name: 'root',
      packageManager: 'pnpm@10.34.8',
      scripts: { build: 'pnpm -r run build' },
    }),
    packages: {
      a: { 'package.json': JSON.stringify({ name: 'a', scripts: { build: 'npm install' } }) },
      b: {
        'package.json': JSON.stringify({ name: 'b', dependencies: { a: 'workspace:*' }, scripts: { build: 'tsc' } }),
      },
    },
  });
  const result = await cli(['plan', '--json', '--', 'pnpm', 'run', 'build'], root);
  assert.equal(result.code, 1);
  const data = JSON.parse(result.stdout) as { runner: string; writers: string[]; unstable: string[] };
  assert.deepEqual([data.runner, data.writers, data.unstable], ['pnpm-recursive', ['a#build'], ['b#build']]);
});

/** An npm workspace with the root `scripts`, whose package a's build installs. */
function installingA(t: Parameters<typeof tempWorkspace>[0], scripts: Record<string, string>): string {
  return tempWorkspace(t, {
    'package.json': JSON.stringify({ name: 'root', private: true, workspaces: ['packages/*'], scripts }),
    'package-lock.json': '{"name":"root","lockfileVersion":3,"requires":true,"packages":{"":{"name":"root"}}}',
    packages: { a: { 'package.json': '{"name":"a","scripts":{"build":"npm install ms@2.1.3"}}' } },
  });
}

test('a script of other workspaces (npm -w, --workspaces, yarn workspace, foreach) is not read: the plan says so, never a plain all clear', async (t) => {
  // An audit found "writers: none ... no task may rewrite" for `npm run build -w a` whose a#build installed.
  const root = installingA(t, { all: 'yarn workspaces foreach -A run build' });
  for (const argv of [
    ['npm', 'run', 'build', '-w', 'a'],
    ['npm', 'run', 'build', '--workspaces'],
    ['yarn', 'workspace', 'a', 'run', 'build'],
    ['npm', 'run', 'all'],
  ]) {
    const result = await cli(['plan', '--json', '--', ...argv], root);
    assert.equal(result.code, 0, result.stderr);
    const data = JSON.parse(result.stdout) as { notes: string[]; verdict: string };
    assert.ok(
      data.notes.some((note) =>
        /^the build script of other workspaces \(.*\) is not read by lockguard plan/.test(note),
      ),
      `${argv.join(' ')}: ${JSON.stringify(data.notes)}`,
    );
    assert.doesNotMatch(data.verdict, /no task may rewrite/);
  }
});

test('cd in a shell line moves the commands after it: sh -c "cd packages/a && npm run build" is a\'s script, not the root\'s', async (t) => {
  // An audit saw the root's `turbo run build` planned for it (3 tasks, exit 1) where only a's script runs.
  const root = installingA(t, { build: 'turbo run build' });
  const result = await cli(['plan', '--json', '--', 'sh', '-c', 'cd packages/a && npm run build'], root);
  const data = JSON.parse(result.stdout) as { runner: string; writers: string[] };
  assert.equal(data.runner, 'command', result.stderr);
  assert.equal(data.writers.length, 1, JSON.stringify(data));
  assert.equal(result.code, 0, result.stderr);
});
