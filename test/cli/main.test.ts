// The command table's own options and the process edges: `-C <dir>` before the command (as pnpm and git take
// it), and a closed stdout (`lockguard doctor | head -1`) ending quietly with the command's own code.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXIT } from '../../lib/cli/exit-codes.js';
import { BIN, cli } from '../helpers/cli.js';
import { scrubbedEnv } from '../helpers/env.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

test('-C <dir> / --dir <dir> before the command runs it in that folder; -C alone is a usage error', async (t) => {
  const root = tempWorkspace(t, { ...pnpmTree(), packages: { b: { 'package.json': '{"name":"b"}' } } });
  const elsewhere = tempWorkspace(t, {});
  const here = await cli(['key'], root);
  assert.equal(here.code, EXIT.ok, here.stderr);
  for (const argv of [
    ['-C', root, 'key'],
    ['--dir', join(root, 'packages', 'b'), 'key'],
    [`--dir=${root}`, 'key'],
  ]) {
    const result = await cli(argv, elsewhere);
    assert.equal(result.code, EXIT.ok, `${argv.join(' ')}: ${result.stderr}`);
    assert.equal(result.stdout, here.stdout, argv.join(' '));
  }
  const missing = await cli(['-C'], elsewhere);
  assert.equal(missing.code, EXIT.usage);
  assert.match(missing.stderr, /-C needs a folder/);
});

test("a closed stdout is no crash: no EPIPE stack, the exit code is the command's own", async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const child = spawn(process.execPath, [BIN, '--help'], {
    cwd: root,
    env: scrubbedEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The reader goes away before lockguard writes anything.
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, EXIT.ok, stderr);
  assert.doesNotMatch(stderr, /EPIPE|Error|at /);
});
