// `lockguard run` where a caching runner is configured: wireit, moon and lage are guarded since issue 32 and
// never named unguarded; Rush (rush.json) is no guarded runner and needs none: the line says what its build
// cache keys and why nothing of it is withheld, on every run, and never "which every key folds" (issues 28, 32).

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

const RUSH_JSON =
  '// Rush reads JSON with comments\n{ "rushVersion": "5.179.0", "pnpmVersion": "10.34.8", "projects": [] }\n';
const RUSH_LOCK = 'common/config/rush/pnpm-lock.yaml';
/** A Rush repository in pnpm mode whose install is in step with its lockfile (Rush's layout: core/package-managers/pnpm/rush.ts). */
const rushTree = (extra: Tree = {}): Tree => ({
  'rush.json': RUSH_JSON,
  common: {
    config: { rush: { 'pnpm-lock.yaml': LOCK } },
    temp: { node_modules: { '.pnpm': { 'lock.yaml': LOCK } } },
  },
  ...extra,
});
const RUSH_WORDS =
  "Rush (rush.json): Rush's build cache is off here (common/config/rush/build-cache.json); when on, it keys each project on its own dependencies (shrinkwrap-deps.json) and Rush refuses its installs (rush install, update, add) during a build, so there is nothing to withhold; lockguard leaves its cache alone";

test('a Rush repository: a rewrite of its lockfile says what Rush does, never "not guarded" nor "every key folds"', (t) => {
  const root = tempWorkspace(t, rushTree());
  const result = cliProcess(['run', '--', 'sh', '-c', `echo "# edited" >> ${RUSH_LOCK}`], root);
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stderr.split('\n').filter((line) => line.startsWith('[lockguard] a task'));
  assert.equal(lines.length, 1, result.stderr);
  assert.equal(
    (lines[0] ?? '').replace(/--run \S+ for/, '--run RUN for'),
    `[lockguard] a task rewrote ${RUSH_LOCK} during the run: ${RUSH_WORDS}; ${NOTHING}`,
  );
  assert.doesNotMatch(result.stderr, /not guarded/);
});

test('a Rush repository with its build cache on: a run that moves nothing says so in one line; --json says rush instead', (t) => {
  const cacheOn = {
    common: {
      config: {
        rush: {
          'pnpm-lock.yaml': LOCK,
          'build-cache.json': '{\n  // on\n  "buildCacheEnabled": true, "cacheProvider": "local-only"\n}\n',
        },
      },
      temp: { node_modules: { '.pnpm': { 'lock.yaml': LOCK } } },
    },
  };
  const root = tempWorkspace(t, rushTree(cacheOn));
  const result = cliProcess(['run', '--', 'true'], root);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(
    result.stderr.trim(),
    "[lockguard] Rush (rush.json): Rush's build cache (common/temp/build-cache) keys each project on its own dependencies (shrinkwrap-deps.json) and Rush refuses its installs (rush install, update, add) during a build, so there is nothing to withhold; lockguard leaves its cache alone",
  );
  // --json is quiet: the answer says it instead.
  const json = cliProcess(['run', '--json', '--', 'true'], root);
  assert.equal(json.stderr, '');
  const answer = JSON.parse(json.stdout.trim().split('\n').at(-1) ?? '') as { rush: unknown; caches: unknown };
  assert.equal(answer.rush, true);
  assert.deepEqual(answer.caches, []);
});

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

test("a runner whose cache cannot be resolved (nx.json, no nx installed): a run that moves nothing says so in one line, on every run, and exits with the command's code", (t) => {
  const root = tempWorkspace(t, installed({ 'nx.json': '{}' }));
  for (const code of [0, 3]) {
    const result = cliProcess(['run', '--', 'sh', '-c', `exit ${code}`], root);
    assert.equal(result.code, code, result.stderr);
    const lines = result.stderr.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(
      lines[0] ?? '',
      /^\[lockguard\] the nx cache is not guarded: no nx resolves from the workspace root .*\(lockguard doctor says the fix\)$/,
    );
  }
  // --json says it too: the unguarded cache, with why (the answer is the last line).
  const json = cliProcess(['run', '--json', '--', 'true'], root);
  assert.equal(json.code, 0, json.stderr);
  const answer = JSON.parse(json.stdout.trimEnd().split('\n').at(-1) ?? '') as { unguarded: unknown; caches: unknown };
  assert.deepEqual(answer.caches, []);
  assert.deepEqual(
    (answer.unguarded as { runner: string; why: string }[]).map((item) => [
      item.runner,
      /^no nx resolves/.test(item.why),
    ]),
    [['nx', true]],
  );
  // Where nothing is configured, a run that moves nothing says nothing (README "When nothing moves").
  const plain = tempWorkspace(t, installed({}));
  const quiet = cliProcess(['run', '--', 'true'], plain);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stderr, '');
});
