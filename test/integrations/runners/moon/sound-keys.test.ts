// moon's sound-keys edits without running moon: each task file's `inputs` (flow lists, block lists, none, a
// shape lockguard does not edit), every other byte kept, the modes, uncached tasks, inherited task files, and
// the install hooks' adoption check (the real moon proves the folds: test/e2e/moon-sound-keys.test.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isLockguardError } from '../../../../lib/core/errors.js';
import { runnersFoldingSlices } from '../../../../lib/integrations/slice-files/folded-by.js';
import { moonEdits } from '../../../../lib/integrations/runners/moon/sound-keys.js';
import { moonTaskFiles, tasksOf } from '../../../../lib/integrations/runners/moon/task-files.js';
import { tempWorkspace } from '../../../helpers/workspace.js';

const PROJECT = [
  '# project a',
  'language: javascript',
  'tasks:',
  '  build:',
  "    command: 'tsc'",
  '    inputs: [\'src/**/*\', "tsconfig.json"] # sources',
  '    outputs: [dist]',
  '  test:',
  '    command: vitest',
  '    inputs:',
  '      - src/**/*',
  '      # tests too',
  '      - tests/**/*',
  '    options:',
  '      runInCI: true',
  '  lint:',
  '    command: eslint',
  '  dev:',
  '    command: vite',
  '    options:',
  '      cache: false',
  'fileGroups:',
  '  sources: [src]',
  '',
].join('\n');

test('tasksOf: each task, its inputs as written, and whether it is cached', () => {
  const tasks = tasksOf(PROJECT);
  assert.deepEqual(
    tasks.map((task) => [task.id, task.inputs.kind, task.cached]),
    [
      ['build', 'flow', true],
      ['test', 'block', true],
      ['lint', 'none', true],
      ['dev', 'none', false],
    ],
  );
  const build = tasks[0]?.inputs;
  assert.deepEqual(build?.kind === 'flow' ? build.items : [], ['src/**/*', 'tsconfig.json']);
});

test('edits (ignored): appended to flow and block lists, default inputs named for a task without, every other byte kept', (t) => {
  const root = tempWorkspace(t, { '.moon': { 'workspace.yml': '' }, packages: { a: { 'moon.yml': PROJECT } } });
  const [edit, ...rest] = moonEdits(root, 'ignored');
  assert.deepEqual(rest, []);
  assert.equal(edit?.file, 'packages/a/moon.yml');
  assert.deepEqual(edit?.added, [
    'tasks.build.inputs: + ".lockguard-slice"',
    'tasks.test.inputs: + ".lockguard-slice"',
    'tasks.lint.inputs: + ".lockguard-slice"',
  ]);
  const expected = PROJECT.replace('"tsconfig.json"] # sources', '"tsconfig.json", \'.lockguard-slice\'] # sources')
    .replace('      - tests/**/*\n', "      - tests/**/*\n      - '.lockguard-slice'\n")
    .replace('  lint:\n', "  lint:\n    inputs: ['**/*', '.lockguard-slice']\n");
  assert.equal(edit?.text, expected);
});

test('edits (committed): named in explicit lists only (moon globs a committed file in); a second init plans nothing', (t) => {
  const root = tempWorkspace(t, { '.moon': { 'workspace.yml': '' }, packages: { a: { 'moon.yml': PROJECT } } });
  const [edit] = moonEdits(root, 'committed');
  assert.deepEqual(edit?.added, [
    'tasks.build.inputs: + ".lockguard-slice"',
    'tasks.test.inputs: + ".lockguard-slice"',
  ]);
  const done = tempWorkspace(t, {
    '.moon': { 'workspace.yml': '' },
    'moon.yml': moonEdits(root, 'ignored')[0]?.text ?? '',
  });
  assert.deepEqual(moonEdits(done, 'ignored'), []);
});

test('inherited task files are edited too; node_modules and dot folders are not walked', (t) => {
  const root = tempWorkspace(t, {
    '.moon': { 'workspace.yml': '', tasks: { 'node.yml': 'tasks:\n  build:\n    inputs: [src]\n' } },
    node_modules: { x: { 'moon.yml': PROJECT } },
    '.hidden': { 'moon.yml': PROJECT },
  });
  assert.deepEqual(moonTaskFiles(root), ['.moon/tasks/node.yml']);
  assert.equal(moonEdits(root, 'ignored')[0]?.text, "tasks:\n  build:\n    inputs: [src, '.lockguard-slice']\n");
});

test('inputs of another shape: ERR_LOCKGUARD_BAD_CONFIG naming the file and line, nothing planned', (t) => {
  const root = tempWorkspace(t, {
    '.moon': { 'workspace.yml': '' },
    'moon.yml': 'tasks:\n  build:\n    inputs: "@group(sources)"\n',
  });
  assert.throws(
    () => moonEdits(root, 'ignored'),
    (error) =>
      isLockguardError(error) &&
      error.code === 'ERR_LOCKGUARD_BAD_CONFIG' &&
      /moon\.yml" \(line 3\)/.test(error.message),
  );
});

test('the install hooks see moon fold the files once a task names it, and not before', (t) => {
  const root = tempWorkspace(t, { '.moon': { 'workspace.yml': '' }, packages: { a: { 'moon.yml': PROJECT } } });
  assert.deepEqual(runnersFoldingSlices(root), []);
  const edited = tempWorkspace(t, {
    '.moon': { 'workspace.yml': '' },
    packages: { a: { 'moon.yml': moonEdits(root, 'ignored')[0]?.text ?? '' } },
  });
  assert.deepEqual(runnersFoldingSlices(edited), ['moon']);
});
