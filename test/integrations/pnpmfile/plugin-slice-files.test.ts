// The pnpmfile plugin writes the per-project slice files at the exit of an install in pnpm's own process
// (pnpm 10), only where the workspace uses them, and only warns when it cannot.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createHooks, type PluginContext } from '../../../lib/integrations/pnpmfile/plugin.js';
import { pnpmProjects, tempWorkspace } from '../../helpers/workspace.js';

const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n\n  packages/a: {}\n";

function workspace(t: Parameters<typeof tempWorkspace>[0], turbo: boolean): string {
  return tempWorkspace(t, {
    ...pnpmProjects(LOCK, { a: 'a' }),
    ...(turbo ? { 'turbo.json': '{"tasks":{"build":{"inputs":["$TURBO_DEFAULT$",".lockguard-slice"]}}}' } : {}),
  });
}

/** Hooks as pnpm 10 loads them for `argv`, with the exit tasks and warnings collected. */
function hooksFor(root: string, argv: readonly string[], inProcess = true) {
  const tasks: ((code: number) => void)[] = [];
  const warnings: string[] = [];
  const context: PluginContext = {
    cwd: root,
    env: {},
    argv: () => argv,
    pid: 4242,
    pnpmMajor: () => 10,
    inProcess,
    atExit: (task) => tasks.push(task),
    warn: (line) => warnings.push(line),
  };
  const hooks = createHooks(context);
  hooks.updateConfig?.({ lockfileDir: root });
  hooks.updateConfig?.({ lockfileDir: root });
  return { tasks, warnings };
}

test("an install in pnpm 10 writes every project's file at exit (armed once); a failed install, pnpm run, or pnpm 12 helpers write none", (t) => {
  const root = workspace(t, true);
  const install = hooksFor(root, ['install', '--frozen-lockfile']);
  assert.equal(install.tasks.length, 1);
  assert.equal(existsSync(join(root, 'packages', 'a', '.lockguard-slice')), false, 'nothing before the exit');
  install.tasks[0]?.(1);
  assert.equal(existsSync(join(root, 'packages', 'a', '.lockguard-slice')), false, 'a failed install writes nothing');
  install.tasks[0]?.(0);
  assert.match(
    readFileSync(join(root, 'packages', 'a', '.lockguard-slice'), 'utf8'),
    /^lockguard-slice\/2\nimporter packages\/a\n/,
  );
  assert.deepEqual(install.warnings, []);
  assert.equal(hooksFor(root, ['run', 'build']).tasks.length, 0);
  assert.equal(hooksFor(root, ['install'], false).tasks.length, 0);
});

test('where no runner folds the files and lockguard never wrote them, an install writes nothing; a folder in the way is a warning, never a throw', (t) => {
  const plain = workspace(t, false);
  const install = hooksFor(plain, ['install']);
  install.tasks[0]?.(0);
  assert.equal(existsSync(join(plain, 'packages', 'a', '.lockguard-slice')), false);
  assert.equal(existsSync(join(plain, '.lockguard')), false);
  const blocked = workspace(t, true);
  mkdirSync(join(blocked, 'packages', 'a', '.lockguard-slice'));
  const hooks = hooksFor(blocked, ['add', 'x']);
  assert.doesNotThrow(() => hooks.tasks[0]?.(0));
  assert.equal(hooks.warnings.length, 1);
  assert.match(hooks.warnings[0] ?? '', /^\[lockguard\] warning: .*packages\/a\/\.lockguard-slice/);
});
