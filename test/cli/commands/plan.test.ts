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
