// `snapshot`, `run` and `doctor` warn (one stderr line, never failing) when git tracks files under
// `.lockguard/`, and say nothing when it does not (integrations/git.ts answers; test/integrations/git.test.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cliProcess } from '../helpers/cli.js';
import { git } from '../helpers/tool-shims.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

const TRACKED =
  /^lockguard: warning: the repository tracks (a file|\d+ files) under \.lockguard\/ \(a committed ledger is someone else's records: .*\); remove them from git \(git rm -r --cached \.lockguard\) and run lockguard init, which ignores the folder\.$/m;

test('tracked ledger files: snapshot, run and doctor warn in one line; untracked (or no git): no word', (t) => {
  const root = tempWorkspace(t, pnpmTree());
  git(root, 'init', '-q', '.');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'S0');
  {
    // Untracked: lockguard's own .lockguard/.gitignore keeps the folder out.
    const snapshot = cliProcess(['snapshot'], root);
    assert.equal(snapshot.code, 0, snapshot.stderr);
    assert.doesNotMatch(snapshot.stderr, /tracks/);
    const run = cliProcess(['run', '--no-pre-check', '--', 'true'], root);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /tracks/);
    assert.doesNotMatch(cliProcess(['doctor'], root).stdout, /tracks/);
  }
  // Committed anyway (git add -f): every one of the three says so, and none fails for it.
  git(root, 'add', '-f', '.lockguard');
  git(root, 'commit', '-q', '-m', 'a committed ledger');
  for (const argv of [['snapshot'], ['run', '--no-pre-check', '--', 'true']]) {
    const result = cliProcess(argv, root);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, TRACKED, argv.join(' '));
    assert.equal(result.stderr.split('\n').filter((line) => TRACKED.test(line)).length, 1, 'one line');
  }
  const doctor = cliProcess(['doctor'], root);
  assert.match(doctor.stdout, /the repository tracks \d+ file\(s\) under \.lockguard\//);
  assert.match(doctor.stdout, /git rm -r --cached \.lockguard/);
  // Untracked again: silence (the index changed, so git is asked again).
  git(root, 'rm', '-r', '-q', '--cached', '.lockguard');
  const after = cliProcess(['snapshot'], root);
  assert.equal(after.code, 0, after.stderr);
  assert.doesNotMatch(after.stderr, /tracks/);
});
