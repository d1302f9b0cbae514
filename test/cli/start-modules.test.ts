// What a command that has little to do loads of Node itself (lib/core/lazy-builtins.ts, lib/cli/fd-stream.ts):
// a `verify` where nothing moved, its line printed to a pipe, hashes nothing and so never loads node:crypto,
// and writes its line without Node's stream classes (node:stream, node:net, node:tty). Each is milliseconds of
// every CI step's start (test/bench/README.md "The code cache"); a static import of either puts them back.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXIT } from '../../lib/cli/exit-codes.js';
import { BIN, cliProcess } from '../helpers/cli.js';
import { scrubbedEnv } from '../helpers/env.js';
import { RACY_WINDOW_MS } from '../../lib/core/watch.js';
import { pnpmTree, sleep, tempWorkspace } from '../helpers/workspace.js';

/** The builtins `argv` loads (Node's own module list at exit, read through a preload), and its result. */
function loadedBy(root: string, argv: readonly string[]): { modules: string[]; code: number | null; stdout: string } {
  const list = join(root, '..', `modules-${process.pid}.txt`);
  const preload = join(root, '..', `preload-${process.pid}.cjs`);
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));\n`,
  );
  const result = spawnSync(process.execPath, ['-r', preload, BIN, ...argv], {
    cwd: root,
    env: scrubbedEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 20_000,
  });
  const modules = readFileSync(list, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('NativeModule '))
    .map((line) => line.slice('NativeModule '.length));
  return { modules, code: result.status, stdout: result.stdout };
}

test('a verify where nothing moved loads neither node:crypto nor the stream classes, and still prints its line', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  // Files changed within RACY_WINDOW_MS of the snapshot are read and hashed again (core/watch.ts): let them age.
  await sleep(RACY_WINDOW_MS + 200);
  assert.equal(cliProcess(['snapshot'], root).code, EXIT.ok);
  const verify = loadedBy(root, ['verify']);
  assert.equal(verify.code, EXIT.ok);
  assert.match(verify.stdout, /nothing moved since/);
  for (const name of ['crypto', 'stream', 'net', 'tty'])
    assert.ok(!verify.modules.includes(name), `verify loaded node:${name}`);

  // The same preload sees them where they are needed: a snapshot hashes the table.
  const snapshot = loadedBy(root, ['snapshot']);
  assert.equal(snapshot.code, EXIT.ok);
  assert.ok(snapshot.modules.includes('crypto'), 'the preload did not see a snapshot load node:crypto');
});
