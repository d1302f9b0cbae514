// `lockguard help <command>` and `--help <command>` show that command's page (the one `<command> --help`
// shows), and a mistyped command or flag gets "did you mean" with the one closest word, never a guess.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { COMMAND_NAMES } from '../../lib/cli/command-names.js';
import { EXIT } from '../../lib/cli/exit-codes.js';
import { closest, distance } from '../../lib/cli/suggest.js';
import { cli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/tools.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

test('help <command> and --help <command> print the page <command> --help prints, for every command', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  for (const name of COMMAND_NAMES) {
    const page = await cli([name, '--help'], root);
    assert.equal(page.code, EXIT.ok, `${name} --help: ${page.stderr}`);
    assert.match(page.stdout, new RegExp(`lockguard ${name}\\b`), `${name}'s page names it`);
    for (const argv of [
      ['help', name],
      ['--help', name],
      ['-C', root, 'help', name],
    ]) {
      const result = await cli(argv, root);
      assert.equal(result.code, EXIT.ok, `${argv.join(' ')}: ${result.stderr}`);
      assert.equal(result.stdout, page.stdout, argv.join(' '));
    }
  }
  const top = await cli(['help'], root);
  assert.equal(top.code, EXIT.ok);
  assert.match(top.stdout, /lockguard help <command>/);
  // The code cache (lib/cli/code-cache.ts) is named where a user looks: its folder and the switch that stops it.
  assert.match(top.stdout, /\$XDG_CACHE_HOME\/lockguard\/code-cache .*never under CI; LOCKGUARD_CODE_CACHE=off/s);
  const codes = (await cli(['help', 'exit-codes'], root)).stdout;
  assert.match(codes, /lockguard exit codes/);
  // Every command whose verdict is exit 1 in the README's table is named there too (plan, doctor, key and
  // quarantine restore were missing).
  const readmeRow = /^\| 1 \|(.*)\|$/m.exec(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'))?.[1] ?? '';
  const named = [...readmeRow.matchAll(/`([a-z]+(?: [a-z-]+)?)`/g)].map((match) => match[1] ?? '');
  assert.ok(named.length >= 5, readmeRow);
  for (const command of named)
    assert.ok(codes.includes(command.split(' ')[0] ?? ''), `help exit-codes names ${command}`);
});

test('a mistyped command: exit 2, the one closest command offered, nothing offered for a far word', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  for (const [typed, meant] of [
    ['stauts', 'status'],
    ['veryfy', 'verify'],
    ['snapshop', 'snapshot'],
    ['hlep', 'help'],
  ] as const) {
    const result = await cli([typed], root);
    assert.equal(result.code, EXIT.usage, typed);
    assert.match(result.stderr, new RegExp(`Did you mean "lockguard ${meant}"\\?`), typed);
  }
  for (const argv of [['deploy'], ['help', 'deploy']]) {
    const far = await cli(argv, root);
    assert.equal(far.code, EXIT.usage, argv.join(' '));
    assert.match(far.stderr, /unknown command "deploy"/);
    assert.doesNotMatch(far.stderr, /Did you mean/);
  }
});

test('a mistyped flag: exit 2 naming it, with the flag meant', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const result = await cli(['run', '--polcy', 'refuse', '--', 'true'], root);
  assert.equal(result.code, EXIT.usage);
  assert.match(result.stderr, /Unknown option '--polcy'/);
  assert.match(result.stderr, /Did you mean --policy\? lockguard run --help lists what it takes/);
  const far = await cli(['key', '--zzzzzz'], root);
  assert.equal(far.code, EXIT.usage);
  assert.doesNotMatch(far.stderr, /Did you mean/);
});

test('the distance counts a swap of neighbours as one edit; a tie offers nothing', () => {
  assert.equal(distance('stauts', 'status'), 1);
  assert.equal(distance('', 'abc'), 3);
  assert.equal(distance('kitten', 'sitting'), 3);
  assert.equal(closest('stauts', ['status', 'snapshot']), 'status');
  assert.equal(closest('ab', ['ac', 'ad']), undefined);
  assert.equal(closest('x', ['key']), undefined);
});
