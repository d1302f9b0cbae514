// `--json` answers in JSON on an error too, for every command that takes it: one shape,
// {version, command, exitCode, error: {code, message, hint}}, on stdout (run's on one line, as its answer is);
// the message and fix stay on stderr.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXIT } from '../../lib/cli/exit-codes.js';
import { cli } from '../helpers/cli.js';
import { tempWorkspace } from '../helpers/workspace.js';

interface JsonError {
  version: string;
  command: string;
  exitCode: number;
  error: { code: string; message: string; hint?: string };
}

const COMMANDS: readonly (readonly string[])[] = [
  ['doctor'],
  ['init'],
  ['key'],
  ['plan', '--', 'turbo', 'run', 'build'],
  ['prune'],
  ['quarantine', 'list'],
  ['run', '--', 'true'],
  ['status'],
  ['snapshot'],
  ['uninstall'],
  ['verify'],
];

test('every --json command: an error outside a workspace and a bad flag both answer in the one JSON shape', async (t) => {
  const empty = tempWorkspace(t, {});
  for (const argv of COMMANDS) {
    for (const [extra, code] of [
      [[], 'ERR_LOCKGUARD_NOT_A_WORKSPACE'],
      [['--no-such-flag'], 'ERR_LOCKGUARD_USAGE'],
    ] as const) {
      const at = argv.indexOf('--') === -1 ? argv.length : argv.indexOf('--');
      const words = [...argv.slice(0, at), ...extra, '--json', ...argv.slice(at)];
      const what = words.join(' ');
      const result = await cli(words, empty);
      assert.equal(result.code, EXIT.usage, `${what}: ${result.stderr}`);
      const body = JSON.parse(result.stdout) as JsonError;
      // run's answer, errors included, is one line: its consumers take stdout's last line.
      if (argv[0] === 'run') assert.equal(result.stdout.trimEnd().split('\n').length, 1, what);
      assert.equal(body.command, argv[0], what);
      assert.equal(body.exitCode, EXIT.usage, what);
      assert.equal(body.error.code, code, `${what}: ${body.error.message}`);
      assert.match(body.version, /^\d+\.\d+\.\d+/, what);
      assert.ok(body.error.message.length > 0 && result.stderr.includes(body.error.message.slice(0, 40)), what);
    }
  }
});

test('without --json an error prints no JSON', async (t) => {
  const result = await cli(['status'], tempWorkspace(t, {}));
  assert.equal(result.code, EXIT.usage);
  assert.equal(result.stdout, '');
});
