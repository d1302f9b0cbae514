// `lockguard run` in a workspace configured for a caching runner lockguard does not guard (Rush: detected
// from its config file alone; wireit, moon and lage are guarded since issue 32): a lockfile rewrite mid-run names that runner, what
// its cache may do and what to do, and never says "which every key folds" of it (issue 28).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cliProcess } from '../../helpers/cli.js';
import { pnpmTree, tempWorkspace, type Tree } from '../../helpers/workspace.js';

const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";
/** A pnpm workspace whose "install" is in step with its lockfile (the pre-run check passes), plus `extra`. */
const installed = (extra: Tree): Tree => ({
  ...pnpmTree(LOCK),
  node_modules: { '.pnpm': { 'lock.yaml': LOCK } },
  ...extra,
});
const EDIT = ['run', '--', 'sh', '-c', 'echo "# edited" >> pnpm-lock.yaml'];

/** The run's one status line, its run id replaced by RUN. */
function statusLineOf(root: string): string {
  const result = cliProcess(EDIT, root);
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stderr.split('\n').filter((line) => line.startsWith('[lockguard] a task'));
  assert.equal(lines.length, 1, result.stderr);
  return (lines[0] ?? '').replace(/--run \S+ for/, '--run RUN for');
}

const NOTHING =
  'no runner cache is guarded here (no turbo, nx, pnpm pipeline, wireit, moon or lage configured), so nothing was withheld; lockguard verify refuses saves keyed on this run (lockguard status --run RUN for details)';

const CASES: ReadonlyArray<readonly [string, Tree, string]> = [
  [
    'Rush',
    { 'rush.json': '{ "rushVersion": "5.179.0", "projects": [] }\n' },
    'Rush (rush.json) is not guarded by lockguard and its keys were not shown to fold pnpm-lock.yaml: its cache (common/temp/build-cache) may replay outputs built before the change; run rush install, then delete common/temp/build-cache before the next build',
  ],
];

for (const [runner, files, clause] of CASES) {
  test(`a ${runner} workspace: the line names ${runner} as unguarded, with what to do, and no "every key folds"`, (t) => {
    const root = tempWorkspace(t, installed(files));
    assert.equal(statusLineOf(root), `[lockguard] a task rewrote pnpm-lock.yaml during the run: ${clause}; ${NOTHING}`);
  });
}

test('a wireit workspace (a `wireit` block in the root package.json): wireit is guarded, never named unguarded', (t) => {
  const root = tempWorkspace(
    t,
    installed({
      'package.json': JSON.stringify({
        name: 'root',
        private: true,
        scripts: { build: 'wireit' },
        wireit: { build: { command: 'tsc', files: ['src/**'] } },
      }),
    }),
  );
  const line = statusLineOf(root);
  assert.doesNotMatch(line, /not guarded/);
  assert.match(line, /the wireit cache holds no save from after it, so nothing was withheld/);
});

test('a moon workspace (.moon/workspace.yml): moon is guarded, never named unguarded', (t) => {
  const root = tempWorkspace(t, installed({ '.moon': { 'workspace.yml': 'projects:\n  - "packages/*"\n' } }));
  const line = statusLineOf(root);
  assert.doesNotMatch(line, /not guarded/);
  assert.match(line, /the moon cache holds no save from after it, so nothing was withheld/);
});

test('a lage workspace (lage.config.js at the root): lage is guarded, never named unguarded', (t) => {
  const root = tempWorkspace(
    t,
    installed({ 'lage.config.js': 'module.exports = { pipeline: { build: ["^build"] } };\n' }),
  );
  const line = statusLineOf(root);
  assert.doesNotMatch(line, /not guarded/);
  assert.match(line, /the lage cache holds no save from after it, so nothing was withheld/);
});

test('no caching runner configured at all: the line stays as it was', (t) => {
  const root = tempWorkspace(t, installed({}));
  assert.equal(
    statusLineOf(root),
    `[lockguard] a task rewrote pnpm-lock.yaml during the run, which every key folds: ${NOTHING}`,
  );
});
