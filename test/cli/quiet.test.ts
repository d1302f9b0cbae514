// `--quiet` (cli/main.ts, io.ts quietIo): lockguard prints only its errors and warnings on stderr; a command's
// answer on stdout and every exit code stay as they are. `run --json` (cli/run-json.ts) answers on stdout's last line.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXIT } from '../../lib/cli/exit-codes.js';
import { guardContext } from '../../lib/cli/guard-words.js';
import { quietIo, warn } from '../../lib/cli/io.js';
import { LockguardError } from '../../lib/core/errors.js';
import { cli } from '../helpers/cli.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

const MOVE = ['--runner', 'none', '--no-pre-check', '--', 'sh', '-c', 'printf "\\n" >> pnpm-lock.yaml'];

test('--quiet: no status line after a move, the same exit code; a snapshot answers on stdout and says nothing else', async (t) => {
  for (const env of [{}, { CI: 'true' }]) {
    const loud = await cli(['run', ...MOVE], tempWorkspace(t, pnpmTree()), env);
    const quiet = await cli(['run', '--quiet', ...MOVE], tempWorkspace(t, pnpmTree()), env);
    assert.match(loud.stderr, /\[lockguard\] .*pnpm-lock\.yaml/, 'the move is said without --quiet');
    assert.equal(quiet.stderr, '');
    assert.equal(quiet.code, loud.code, `exit code with ${JSON.stringify(env)}`);
  }
  const root = tempWorkspace(t, pnpmTree());
  const snapshot = await cli(['--quiet', 'snapshot'], root);
  assert.equal(snapshot.code, EXIT.ok);
  assert.match(snapshot.stdout, /^run {2}\S+\nkey {2}[0-9a-f]{64}\n$/);
  assert.equal(snapshot.stderr, '');
  // --quiet after `--` belongs to the wrapped command.
  const passed = await cli(
    ['run', '--runner', 'none', '--no-pre-check', '--', 'sh', '-c', 'echo "$1" > said', 'sh', '--quiet'],
    root,
  );
  assert.equal(passed.code, EXIT.ok, passed.stderr);
  assert.equal(readFileSync(join(root, 'said'), 'utf8'), '--quiet\n');
});

test('--quiet still prints errors (with their fix) and warnings; --quiet with --verbose is a usage error', async (t) => {
  const empty = tempWorkspace(t, {});
  const error = await cli(['status', '--quiet'], empty);
  assert.equal(error.code, EXIT.usage);
  assert.match(error.stderr, /^lockguard: .*\n {2}\S/);
  const warned = await cli(['snapshot', '--quiet'], tempWorkspace(t, pnpmTree()), { LOCKGUARD_KEEP_RUNS: 'lots' });
  assert.equal(warned.code, EXIT.ok);
  assert.match(warned.stderr, /^lockguard: warning: the ledger was not pruned/);
  assert.doesNotMatch(warned.stderr, /snapshot of/);
  const both = await cli(['--quiet', 'status', '--verbose'], empty);
  assert.equal(both.code, EXIT.usage);
  assert.match(both.stderr, /--verbose and --quiet/);
});

test('run --json: the last line of stdout answers (moved files, withheld count, exit code) instead of the status line', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const result = await cli(['run', '--json', ...MOVE], root, { CI: 'true' });
  assert.equal(result.code, EXIT.moved, result.stderr);
  assert.doesNotMatch(result.stderr, /\[lockguard\]/);
  const answer = JSON.parse(result.stdout.trimEnd().split('\n').at(-1) ?? '') as Record<string, unknown>;
  assert.deepEqual(
    { ...answer, version: typeof answer['version'], run: typeof answer['run'] },
    {
      version: 'string',
      command: 'run',
      exitCode: EXIT.moved,
      run: 'string',
      policy: 'withhold',
      moved: ['pnpm-lock.yaml'],
      tree: null,
      caches: [],
      withheld: 0,
      spared: 0,
      staleLeft: 0,
      stopped: null,
      unguarded: [],
      rush: false,
    },
  );
  const still = await cli(['run', '--json', '--runner', 'none', '--no-pre-check', '--', 'true'], root);
  assert.equal(still.code, EXIT.ok);
  assert.deepEqual((JSON.parse(still.stdout) as { moved: unknown }).moved, []);
});

test('--quiet keeps a warning by its kind, not by how its text starts', () => {
  const written: string[] = [];
  const io = quietIo({
    cwd: '/',
    env: {},
    stdout: { write: () => true },
    stderr: { write: (text: string) => written.push(text) },
  });
  io.stderr.write('lockguard: warning: a status line that only looks like one\n');
  io.stderr.write('[lockguard] a status line\n');
  assert.deepEqual(written, [], 'what is written to the filtered stream is dropped, whatever it starts with');
  warn(io, 'said through warn');
  const context = guardContext(io);
  context.emit({ type: 'record-failed', part: 'report', error: new LockguardError('ERR_LOCKGUARD_IO', 'disk full') });
  context.emit({ type: 'marker-removed', id: 'r1', problem: 'no record' });
  assert.deepEqual(written, [
    'lockguard: warning: said through warn\n',
    "lockguard: warning: the run's report was not written (disk full)\n",
  ]);
});
