// `lockguard init --json`: one JSON answer on stdout, with the files init wrote and the lines it would have
// printed; a second init changes nothing; an error in the shape every command's --json error has.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXIT } from '../../../lib/cli/exit-codes.js';
import { cli } from '../../helpers/cli.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

interface InitAnswer {
  readonly command: string;
  readonly exitCode: number;
  readonly changed: readonly string[];
  readonly lines: readonly string[];
  readonly error?: { readonly code: string };
}

test('init --json names the files it changed, then none; its lines are what init prints', async (t) => {
  const root = tempWorkspace(t, { ...pnpmTree(), 'turbo.json': '{ "tasks": { "build": {} } }' });
  const first = await cli(['init', '--json', '--pnpmfile'], root);
  assert.equal(first.code, EXIT.ok, first.stderr);
  const answer = JSON.parse(first.stdout) as InitAnswer;
  assert.equal(answer.command, 'init');
  assert.equal(answer.exitCode, 0);
  assert.deepEqual(answer.changed, ['.gitignore', '.pnpmfile.cjs', 'pnpm-lock.yaml', 'turbo.json']);
  assert.ok(
    answer.lines.some((line) => line.startsWith('.gitignore: added .lockguard/')),
    answer.lines.join('\n'),
  );
  const again = JSON.parse((await cli(['init', '--json', '--pnpmfile'], root)).stdout) as InitAnswer;
  assert.deepEqual(again.changed, []);
  const human = await cli(['init', '--pnpmfile'], root);
  assert.deepEqual(human.stdout.trimEnd().split('\n'), again.lines);
});

test('init --json on an error answers in the shape of every --json error', async (t) => {
  const root = tempWorkspace(t, { ...pnpmTree(), 'nx.json': '{ "targetDefaults": { ' });
  const result = await cli(['init', '--json'], root);
  assert.equal(result.code, EXIT.usage);
  const answer = JSON.parse(result.stdout) as InitAnswer;
  assert.equal(answer.command, 'init');
  assert.equal(answer.exitCode, EXIT.usage);
  assert.match(answer.error?.code ?? '', /^ERR_LOCKGUARD_/);
});
