// What a command that has little to do loads (lib/core/lazy-builtins.ts, lib/cli/fd-stream.ts, lib/core/chunks.ts):
// a `verify` where nothing moved, its line printed to a pipe, hashes nothing and so never loads node:crypto,
// writes its line without Node's stream classes (node:stream, node:net, node:tty), and never compiles a chunk:
// not the dead-run recovery (dist/cli/recover-runs.cjs), which a command compiles only when a run is dead, nor a
// package manager's install check and readers (dist/cli/pm-<name>.cjs), which it compiles only when it checks an
// install or reads slices, and then only its workspace's. Each is milliseconds of every CI step's start
// (test/bench/README.md "The code cache"); a static import puts them back.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXIT } from '../../lib/cli/exit-codes.js';
import { BIN, cliProcess } from '../helpers/cli.js';
import { childStarted, spawnGuard } from '../helpers/crash.js';
import { scrubbedEnv } from '../helpers/env.js';
import { RACY_WINDOW_MS } from '../../lib/core/watch.js';
import { NPM_LOCK, npmTree } from '../helpers/planted-lockfiles.js';
import { B_ON_A_LOCK, pnpmProjects, pnpmTree, sleep, tempWorkspace } from '../helpers/workspace.js';

interface Loaded {
  /** Node's builtins the process loaded. */
  modules: string[];
  /** The bundles the launcher read (dist/cli/*.cjs), by file name. */
  bundles: string[];
  code: number | null;
  stdout: string;
  stderr: string;
}

/** What `argv` loads (Node's own module list and the bundles read, seen by a preload), and its result. */
function loadedBy(root: string, argv: readonly string[]): Loaded {
  const list = join(root, '..', `loaded-${process.pid}.json`);
  const preload = join(root, '..', `preload-${process.pid}.cjs`);
  writeFileSync(
    preload,
    [
      "const fs = require('node:fs');",
      'const read = fs.readFileSync;',
      'const bundles = [];',
      "fs.readFileSync = function (path, ...rest) { if (typeof path === 'string' && path.endsWith('.cjs')) bundles.push(path.split('/').pop()); return read.call(this, path, ...rest); };",
      `process.on('exit', () => fs.writeFileSync(${JSON.stringify(list)}, JSON.stringify({ modules: process.moduleLoadList, bundles })));`,
      '',
    ].join('\n'),
  );
  const result = spawnSync(process.execPath, ['-r', preload, BIN, ...argv], {
    cwd: root,
    env: scrubbedEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 20_000,
  });
  const seen = JSON.parse(readFileSync(list, 'utf8')) as { modules: string[]; bundles: string[] };
  const modules = seen.modules
    .filter((line) => line.startsWith('NativeModule '))
    .map((line) => line.slice('NativeModule '.length));
  return { modules, bundles: seen.bundles, code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('a verify where nothing moved loads neither node:crypto nor the stream classes, and still prints its line', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  // Files changed within RACY_WINDOW_MS of the snapshot are read and hashed again (core/watch.ts): let them age.
  await sleep(RACY_WINDOW_MS + 200);
  assert.equal(cliProcess(['snapshot'], root).code, EXIT.ok);
  const verify = loadedBy(root, ['verify']);
  assert.equal(verify.code, EXIT.ok);
  assert.match(verify.stdout, /nothing moved since/);
  // node:module and node:os too (lib/core/lazy-builtins.ts): no path of a verify where nothing moved needs them.
  for (const name of ['crypto', 'stream', 'net', 'tty', 'module', 'os'])
    assert.ok(!verify.modules.includes(name), `verify loaded node:${name}`);
  assert.deepEqual(verify.bundles, ['lockguard.cjs', 'verify.cjs']);

  // The same preload sees them where they are needed: a snapshot hashes the table.
  const snapshot = loadedBy(root, ['snapshot']);
  assert.equal(snapshot.code, EXIT.ok);
  assert.ok(snapshot.modules.includes('crypto'), 'the preload did not see a snapshot load node:crypto');
});

test("a verify whose lockfile moved reads the slices through its package manager's chunk, and no other's", async (t) => {
  const root = tempWorkspace(t, pnpmProjects(B_ON_A_LOCK, { a: 'a', b: 'b' }));
  await sleep(RACY_WINDOW_MS + 200);
  assert.equal(cliProcess(['snapshot'], root).code, EXIT.ok);
  const lockfile = B_ON_A_LOCK.replace(/\n {2}packages\/b:\n[\s\S]*$/, '\n  packages/b: {}\n');
  assert.notEqual(lockfile, B_ON_A_LOCK);
  writeFileSync(join(root, 'pnpm-lock.yaml'), lockfile);
  const verify = loadedBy(root, ['verify']);
  assert.equal(verify.code, EXIT.moved, verify.stderr);
  assert.match(verify.stderr, /pnpm-lock\.yaml moved: the slice of packages\/b changed/);
  assert.deepEqual(verify.bundles, ['lockguard.cjs', 'verify.cjs', 'pm-pnpm.cjs']);
});

test("a run checks an npm workspace's install through npm's chunk, and loads no other package manager's", async (t) => {
  const root = tempWorkspace(t, npmTree(NPM_LOCK));
  const run = loadedBy(root, ['run', '--', 'true']);
  // Nothing is installed: the pre-run check refuses (exit 3), which only npm's install check can say.
  assert.equal(run.code, EXIT.preCheck, run.stderr);
  assert.match(run.stderr, /node_modules/);
  assert.deepEqual(run.bundles, ['lockguard.cjs', 'run.cjs', 'pm-npm.cjs']);
});

test('a dead run is finished through the recovery chunk, which a command compiles only then', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const guard = spawnGuard(['run', '--no-pre-check', '--', 'sleep', '1'], root, scrubbedEnv());
  await childStarted(root);
  await guard.kill9();

  const status = loadedBy(root, ['status']);
  assert.equal(status.code, EXIT.ok, status.stderr);
  assert.match(status.stderr, /did not finish: its guard \(pid \d+\) died before its final check/);
  assert.deepEqual(status.bundles, ['lockguard.cjs', 'status.cjs', 'recover-runs.cjs']);

  // Finished: the next command has nothing to recover and leaves the chunk alone.
  const again = loadedBy(root, ['status']);
  assert.equal(again.code, EXIT.ok, again.stderr);
  assert.doesNotMatch(again.stderr, /did not finish/);
  assert.deepEqual(again.bundles, ['lockguard.cjs', 'status.cjs']);
});
