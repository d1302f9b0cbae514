// `lockguard key --write-slices` from the CLI: what it prints, and its setup errors (exit 2, path and fix).
// Also `lockguard run`: writes the files where a runner folds them, says when slices changed, and only warns
// when it cannot write one.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cli, cliProcess } from '../../helpers/cli.js';
import { scrubbedEnv } from '../../helpers/env.js';
import { assertSetupError } from '../../helpers/errors.js';
import { A_ON_IS_NUMBER_LOCK, pnpmProjects, tempWorkspace } from '../../helpers/workspace.js';

const DIST = fileURLToPath(new URL('../../../', import.meta.url));

const LOCK = A_ON_IS_NUMBER_LOCK;

function workspace(t: Parameters<typeof tempWorkspace>[0], extra: Record<string, string> = {}): string {
  return tempWorkspace(t, { ...pnpmProjects(LOCK, { a: 'a', b: 'b' }), ...extra });
}

test('--write-slices prints each file it wrote, then that nothing changed; a rewritten lockfile names only what moved', async (t) => {
  const root = workspace(t);
  const first = await cli(['key', '--write-slices'], root);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(
    first.stdout,
    'wrote .lockguard-slice (new)\nwrote packages/a/.lockguard-slice (new)\nwrote packages/b/.lockguard-slice (new)\n',
  );
  const again = await cli(['key', '--write-slices'], root);
  assert.equal(again.stdout, 'slice files: nothing changed (they were written for this lockfile)\n');
  writeFileSync(join(root, 'pnpm-lock.yaml'), LOCK.replace('sha512-seven', 'sha512-other'));
  assert.equal((await cli(['key', '--write-slices'], root)).stdout, 'wrote packages/a/.lockguard-slice (changed)\n');
  const usage = await cli(['key', '--write-slices', '--projects'], root);
  assert.equal(usage.code, 2);
});

test('--write-slices: a folder where the file belongs, and an unwritable project folder, exit 2 naming the path', (t) => {
  const root = workspace(t);
  mkdirSync(join(root, 'packages', 'b', '.lockguard-slice'));
  assertSetupError(cliProcess(['key', '--write-slices'], root), join(root, 'packages', 'b', '.lockguard-slice'));
  // Unwritable: root ignores file modes, so as an unprivileged user, with what ships copied where it can read it.
  const locked = workspace(t);
  chmodSync(locked, 0o777);
  chmodSync(join(locked, 'packages'), 0o755);
  chmodSync(join(locked, 'packages', 'a'), 0o777);
  const shipped = tempWorkspace(t, {}, 'lockguard-shipped-');
  chmodSync(shipped, 0o755);
  copyFileSync(join(DIST, 'lockguard.cjs'), join(shipped, 'lockguard.cjs'));
  cpSync(join(DIST, 'cli'), join(shipped, 'cli'), { recursive: true });
  const asUser = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
  chmodSync(join(locked, 'packages', 'b'), 0o555);
  const [command = process.execPath, ...rest] = [
    ...asUser,
    process.execPath,
    join(shipped, 'lockguard.cjs'),
    'key',
    '--write-slices',
  ];
  const result = spawnSync(command, rest, { cwd: locked, env: scrubbedEnv(), encoding: 'utf8', timeout: 20_000 });
  assertSetupError(
    { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr },
    join(locked, 'packages', 'b', '.lockguard-slice'),
  );
  assert.match(result.stderr, /permission denied/);
  assert.ok(existsSync(join(locked, 'packages', 'a', '.lockguard-slice')), 'the writable project was written');
});

test('lockguard run writes the files only where a runner folds them (or they were written before), says when slices changed, and warns without failing when it cannot', async (t) => {
  // No runner names the file: a run writes nothing into the projects.
  const plain = workspace(t, { 'node_modules/.pnpm/lock.yaml': LOCK });
  const quiet = cliProcess(['run', '--no-pre-check', '--', 'true'], plain);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(existsSync(join(plain, 'packages', 'a', '.lockguard-slice')), false);
  // turbo.json names it: the first run writes every project's file and says so.
  const root = workspace(t, { 'turbo.json': '{"tasks":{"build":{"inputs":["$TURBO_DEFAULT$",".lockguard-slice"]}}}' });
  const first = cliProcess(['run', '--no-pre-check', '--', 'true'], root);
  assert.equal(first.code, 0, first.stderr);
  assert.match(
    first.stderr,
    /3 projects' lockfile slice files \(\.lockguard-slice\) written for the first time: turbo will rebuild their tasks once/,
  );
  // Nothing changed: nothing said.
  const warm = cliProcess(['run', '--no-pre-check', '--', 'true'], root);
  assert.equal(warm.stderr, '');
  // a's slice moved: one project, singular, naming the runner configured.
  writeFileSync(join(root, 'pnpm-lock.yaml'), LOCK.replace('sha512-seven', 'sha512-other'));
  const moved = cliProcess(['run', '--no-pre-check', '--', 'true'], root);
  assert.equal(moved.code, 0, moved.stderr);
  assert.match(moved.stderr, /1 project's lockfile slice changed since the last run: turbo will rebuild its tasks/);
  assert.match(
    readFileSync(join(root, 'packages', 'a', '.lockguard-slice'), 'utf8'),
    /^lockguard-slice\/2\nimporter packages\/a\n/,
  );
  // A folder where b's file belongs: one warning line with the path, the command still runs and its code wins.
  const blocked = workspace(t, { 'turbo.json': '{"tasks":{"build":{"inputs":[".lockguard-slice"]}}}' });
  mkdirSync(join(blocked, 'packages', 'b', '.lockguard-slice'));
  const warned = cliProcess(['run', '--no-pre-check', '--', 'sh', '-c', 'exit 7'], blocked);
  assert.equal(warned.code, 7);
  assert.match(
    warned.stderr,
    /^lockguard: warning: the slice files were not all written \(.*packages\/b\/\.lockguard-slice.*\)/m,
  );
  assert.doesNotMatch(warned.stderr, /^ {4}at /m);
});

test('a slice file rewritten while the command runs is no move (the watch is on the lockfile and install markers)', (t) => {
  const root = workspace(t, { 'turbo.json': '{"tasks":{"build":{"inputs":[".lockguard-slice"]}}}' });
  assert.equal(cliProcess(['key', '--write-slices'], root).code, 0);
  const file = join(root, 'packages', 'a', '.lockguard-slice');
  const rewrite = `printf 'lockguard-slice/1\\nimporter packages/a\\nslice x\\n' > .stage && mv .stage "${file}"`;
  const result = cliProcess(['run', '--no-pre-check', '--', 'sh', '-c', rewrite], root, {
    ...scrubbedEnv(),
    CI: 'true',
  });
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /moved|withheld|rewrote/);
  // The next run puts the file back (the stat check sees it was replaced) and says nothing: the slice is the
  // one the last run saw.
  const next = cliProcess(['run', '--no-pre-check', '--', 'true'], root);
  assert.equal(next.code, 0, next.stderr);
  assert.equal(next.stderr, '');
  assert.match(
    readFileSync(file, 'utf8'),
    /^lockguard-slice\/2\nimporter packages\/a\nslice [0-9a-f]{64}\nroot [0-9a-f]{64}\n(reach [0-9a-f]{64}\n)?$/,
  );
});
