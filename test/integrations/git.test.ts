// git: the .gitignore line init adds, and whether git tracks ledger files, remembered under the index's
// identity (no git process while the index is unchanged; asked again once it changes).

import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ledgerTracked, withLedgerIgnored } from '../../lib/integrations/git.js';
import { cliProcess } from '../helpers/cli.js';
import { scrubbedEnv } from '../helpers/env.js';
import { git } from '../helpers/tool-shims.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

test('withLedgerIgnored: added once, after a final newline; any line that already ignores the folder counts', () => {
  assert.match(withLedgerIgnored(undefined) ?? '', /^# .*\n\.lockguard\/\n$/);
  assert.match(withLedgerIgnored('dist') ?? '', /^dist\n# .*\n\.lockguard\/\n$/);
  for (const line of ['.lockguard', '.lockguard/', '/.lockguard', '/.lockguard/', '  .lockguard/  '])
    assert.equal(withLedgerIgnored(`node_modules\r\n${line}\r\n`), undefined, line);
  assert.notEqual(withLedgerIgnored('# .lockguard/\n'), undefined, 'a comment ignores nothing');
  assert.notEqual(withLedgerIgnored('packages/a/.lockguard/\n'), undefined, 'another folder');
});

test('the answer is remembered under the index identity: no git process while the index is unchanged', (t) => {
  const root = tempWorkspace(t, pnpmTree());
  git(root, 'init', '-q', '.');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'S0');
  assert.equal(cliProcess(['snapshot'], root).code, 0);
  git(root, 'add', '-f', '.lockguard');
  const env = scrubbedEnv();
  const tracked = ledgerTracked(root, env);
  assert.ok(tracked > 0);
  assert.ok(existsSync(join(root, '.lockguard', 'cache', 'git-index.json')));
  // With no git on PATH the remembered answer still comes back: it was not asked again.
  assert.equal(ledgerTracked(root, { ...env, PATH: '/nonexistent' }), tracked);
  // A changed index is a miss: without git to ask, the answer is "nothing known" (0), never an error.
  writeFileSync(join(root, 'new.txt'), 'x');
  git(root, 'add', 'new.txt');
  assert.equal(ledgerTracked(root, { ...env, PATH: '/nonexistent' }), 0);
  // No repository at all: 0.
  const bare = tempWorkspace(t, pnpmTree());
  assert.equal(ledgerTracked(bare, env), 0);
});
