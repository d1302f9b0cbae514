// pnpm -r / --filter plans from the workspace: selectors, ordering through projects without the script,
// --parallel, and the verifyDepsBeforeRun gate.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recursiveArgs, recursiveGraph, selectProjects } from '../../../lib/integrations/plan/pnpm-recursive.js';
import { workspaceProjects } from '../../../lib/integrations/plan/pnpm-projects.js';
import { pnpmSettings } from '../../../lib/integrations/plan/pnpm-settings.js';
import { tempWorkspace } from '../../helpers/workspace.js';

const pkg = (name: string, deps: Record<string, string> = {}, scripts: Record<string, string> = { build: 'tsc' }) => ({
  'package.json': JSON.stringify({ name, dependencies: deps, scripts }),
});

function chain(t: Parameters<typeof tempWorkspace>[0], packageManager = 'pnpm@10.34.8'): string {
  // a <- mid (no build script) <- b ; c alone; apps/web -> b
  return tempWorkspace(t, {
    'package.json': JSON.stringify({ name: 'root', packageManager }),
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n  - apps/**\n  - "!**/fixtures/**"\n',
    packages: {
      a: pkg('a'),
      mid: pkg('mid', { a: 'workspace:*' }, {}),
      b: pkg('b', { mid: 'workspace:^' }),
      c: pkg('c'),
      fixtures: pkg('fixture'),
    },
    apps: { web: pkg('web', { b: 'workspace:*' }), fixtures: { x: pkg('x') } },
  });
}

test('workspace globs, exclusions and workspace edges', (t) => {
  const projects = workspaceProjects(chain(t));
  assert.deepEqual(projects.map((p) => p.dir).sort(), [
    '.',
    'apps/web',
    'packages/a',
    'packages/b',
    'packages/c',
    'packages/mid',
  ]);
  assert.deepEqual(projects.find((p) => p.name === 'b')?.deps, ['packages/mid']);
});

test('selectors: name, name..., ...name, ^, path, !exclusion', (t) => {
  const projects = workspaceProjects(chain(t));
  const pick = (...filters: string[]) =>
    selectProjects(projects, {
      filters,
      recursive: false,
      sorted: true,
      includeRoot: false,
      mode: 'run',
      target: 'build',
    })
      .map((p) => p.name)
      .sort();
  assert.deepEqual(pick('b'), ['b']);
  assert.deepEqual(pick('b...'), ['a', 'b', 'mid']);
  assert.deepEqual(pick('b^...'), ['a', 'mid']);
  assert.deepEqual(pick('...a'), ['a', 'b', 'mid', 'web']);
  assert.deepEqual(pick('...^a'), ['b', 'mid', 'web']);
  assert.deepEqual(pick('./apps'), ['web']);
  assert.deepEqual(pick('b...', '!mid'), ['a', 'b']);
  assert.throws(() => pick('[origin/main]'), { code: 'ERR_LOCKGUARD_PLAN' });
});

test('ordering passes through projects without the script; --parallel drops it', (t) => {
  const root = chain(t);
  const settings = pnpmSettings(root, {});
  const sorted = recursiveGraph(
    root,
    recursiveArgs(['-r', 'run', 'build']) ?? assert.fail('parsed'),
    settings,
    'pnpm -r run build',
  );
  assert.deepEqual(sorted.tasks.find((task) => task.id === 'b#build')?.dependsOn, ['a#build']);
  assert.deepEqual(sorted.tasks.find((task) => task.id === 'web#build')?.dependsOn, ['b#build']);
  const parallel = recursiveGraph(
    root,
    recursiveArgs(['-r', '--parallel', 'build']) ?? assert.fail('parsed'),
    settings,
    'pnpm -r --parallel build',
  );
  assert.ok(parallel.tasks.every((task) => task.dependsOn.length === 0));
});

test('under pnpm 12 the command installs before every task; installs are planned as commands, not runs', (t) => {
  const root = chain(t, 'pnpm@12.4.2');
  const graph = recursiveGraph(
    root,
    recursiveArgs(['--filter', 'c', 'build']) ?? assert.fail('parsed'),
    pnpmSettings(root, {}),
    'pnpm --filter c build',
  );
  assert.equal(graph.tasks[0]?.mayWrite, true);
  assert.deepEqual(graph.tasks[1]?.dependsOn, [graph.tasks[0]?.id]);
  assert.equal(recursiveArgs(['-r', 'install']), undefined);
  assert.equal(recursiveArgs(['run', 'build']), undefined);
});
