// The install detector: which commands may write, through scripts, and what frozen installs are.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandWrites } from '../../../lib/integrations/plan/command-writes.js';
import { simpleCommands } from '../../../lib/integrations/package-managers/shell-line.js';
import { pnpmSettings } from '../../../lib/integrations/plan/pnpm-settings.js';
import { tempWorkspace } from '../../helpers/workspace.js';

const writes = (line: string, scripts: Record<string, string> = {}, pnpmRunInstalls = false): boolean =>
  commandWrites(line, { scripts, pnpmRunInstalls }).writes;

test('installs are writers; frozen installs, dlx and npx are not', () => {
  for (const line of [
    'pnpm install',
    'pnpm i',
    'pnpm --filter b add is-number@6.0.0',
    'pnpm -F b update',
    'pnpm remove x',
    'pnpm dedupe',
    'pnpm install --no-frozen-lockfile',
    'npm install',
    'npm i left-pad',
    'npm update',
    'npm uninstall x',
    'yarn',
    'yarn install',
    'yarn add x',
    'yarn up x',
    'yarn remove x',
    'bun install',
    'bun add x',
    'CI=1 pnpm install',
    'node build.js && pnpm add x',
    'cross-env A=1 npm install',
    // A package manager started by npx with a version (an audit's `npx pnpm@10.34.8 add` was "no writer").
    'npx pnpm@10.34.8 add ms@2.1.2',
    'npx -y pnpm@10 install',
    'pnpm dlx pnpm@10.34.8 add x',
  ]) {
    assert.equal(writes(line), true, line);
  }
  for (const line of [
    'pnpm install --frozen-lockfile',
    'pnpm i --frozen-lockfile',
    'yarn install --immutable',
    'yarn --frozen-lockfile',
    'bun install --frozen-lockfile',
    'npm ci',
    'pnpm dlx create-x',
    'npx tsc',
    'node -e "pnpm install"',
    'echo npm install',
    'tsc -b',
    'pnpm run build',
    'pnpm exec tsc',
  ]) {
    assert.equal(writes(line), false, line);
  }
});

test('pnpm run / exec / <script> write when verifyDepsBeforeRun is install', () => {
  for (const line of ['pnpm run build', 'pnpm build', 'pnpm exec tsc', 'pnpm test', 'pnpm -r run build'])
    assert.equal(writes(line, {}, true), true, line);
  assert.equal(writes('npm run build', {}, true), false);
});

test('scripts called by name are followed, with npm pre/post scripts, each once', () => {
  const scripts = {
    build: 'pnpm run setup && tsc',
    setup: 'pnpm install',
    loop: 'npm run loop',
    prepare: 'echo ok',
    prebundle: 'yarn add x',
    bundle: 'rollup',
  };
  assert.equal(writes('pnpm run build', scripts), true);
  assert.equal(
    commandWrites('pnpm run build', { scripts, pnpmRunInstalls: false }).reason,
    'script "build": script "setup": pnpm install',
  );
  assert.equal(writes('npm run bundle', scripts), true);
  assert.equal(writes('pnpm run bundle', scripts), false, 'pnpm runs no pre-scripts by default');
  assert.equal(writes('npm run loop', scripts), false);
  assert.equal(writes('yarn setup', scripts), true);
  assert.equal(writes('pnpm --filter other run setup', scripts), false, 'another package: its scripts are not these');
});

test('the command splitter keeps quoted words whole', () => {
  assert.deepEqual(simpleCommands(`node -e "a && b" && pnpm add 'x y'; echo | cat`), [
    ['node', '-e', 'a && b'],
    ['pnpm', 'add', 'x y'],
    ['echo'],
    ['cat'],
  ]);
});

test('verifyDepsBeforeRun: env, then pnpm-workspace.yaml, then .npmrc, then the default of the pinned pnpm major', (t) => {
  const root = tempWorkspace(t, { 'package.json': '{"packageManager":"pnpm@10.34.8"}' });
  assert.equal(pnpmSettings(root, {}).verifyDepsBeforeRun, 'false');
  const v12 = tempWorkspace(t, { 'package.json': '{"packageManager":"pnpm@12.4.2"}' });
  assert.equal(pnpmSettings(v12, {}).verifyDepsBeforeRun, 'install');
  const unpinned = tempWorkspace(t, { 'package.json': '{}' });
  assert.equal(pnpmSettings(unpinned, {}).verifyDepsBeforeRun, 'install');
  const yaml = tempWorkspace(t, {
    'package.json': '{"packageManager":"pnpm@12.4.2"}',
    'pnpm-workspace.yaml': 'packages: []\nverifyDepsBeforeRun: error\n',
    '.npmrc': 'verify-deps-before-run=warn\n',
  });
  assert.equal(pnpmSettings(yaml, {}).verifyDepsBeforeRun, 'error');
  assert.equal(pnpmSettings(yaml, { pnpm_config_verify_deps_before_run: 'false' }).verifyDepsBeforeRun, 'false');
  const rc = tempWorkspace(t, {
    'package.json': '{"packageManager":"pnpm@12.4.2"}',
    '.npmrc': 'verify-deps-before-run=warn\n',
  });
  assert.equal(pnpmSettings(rc, {}).verifyDepsBeforeRun, 'warn');
});
