// Sound keys in committed mode end to end with the real turbo 2.11.11 and nx 24.0.6: `init --sound-keys=committed`
// takes back what ignored mode added, un-ignores and writes the files; the same task hashes as ignored mode; a
// committed slice change moves that project's hashes only; doctor's committed checks; a fresh clone adopted;
// `key --check-slices`.

import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { assertSetupError } from '../helpers/errors.js';
import { fileDigests, type Tree } from '../helpers/workspace.js';
import { spawnSync } from 'node:child_process';
import {
  LOCK,
  workspace,
  turboHashes,
  nxRun,
  soundChecks,
  TURBO_TREE,
  nxWorkspace,
  LOCK_B_ALONE,
  commitAll,
  checkOf,
} from '../helpers/sound-keys-scenario.js';

test("turbo committed: init takes back the inputs entry (keeps it where inputs leave $TURBO_DEFAULT$ out), un-ignores and writes the files; the same task hashes as ignored mode; a committed slice change moves that project's hashes only; doctor passes", async (t) => {
  const ws = workspace(t, TURBO_TREE);
  assert.equal((await cli(['init', '--no-pnpmfile'], ws.root, ws.env)).code, 0);
  assert.equal((await cli(['key', '--write-slices'], ws.root, ws.env)).code, 0);
  const ignored = turboHashes(ws);
  const result = await cli(['init', '--sound-keys=committed', '--no-pnpmfile'], ws.root, ws.env);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /turbo\.json: tasks\.build\.inputs removed/);
  assert.match(result.stdout, /\.gitignore: \.lockguard-slice removed/);
  assert.match(result.stdout, /git add -A -- '\*\.lockguard-slice'/);
  const turboJson = readFileSync(join(ws.root, 'turbo.json'), 'utf8');
  assert.match(
    turboJson,
    /"build": \{ "dependsOn": \["\^build"\], "outputs": \["dist\/\*\*"\] \}/,
    'build: no inputs key',
  );
  assert.match(
    turboJson,
    /"lint": \{ "inputs": \["src\/\*\*", "\.lockguard-slice"\] \}/,
    'lint leaves the default out: kept',
  );
  assert.doesNotMatch(readFileSync(join(ws.root, '.gitignore'), 'utf8'), /lockguard-slice/);
  commitAll(ws, 'committed slice files');
  const committed = turboHashes(ws);
  assert.deepEqual(committed, ignored, 'switching modes keeps every task hash (the cache stays)');
  {
    const checks = await soundChecks(ws);
    assert.equal(checkOf(checks, /turbo tasks/)?.level, 'ok', JSON.stringify(checks));
    assert.equal(checkOf(checks, /committed and current/)?.level, 'ok', JSON.stringify(checks));
  }
  {
    // b's slice changes in the lockfile, written and committed: b's tasks re-key, a's do not.
    writeFileSync(join(ws.root, 'pnpm-lock.yaml'), LOCK_B_ALONE);
    assert.equal((await cli(['key', '--write-slices'], ws.root, ws.env)).code, 0);
    commitAll(ws, 'b bumped');
    const after = turboHashes(ws);
    assert.notEqual(after['b#build'], committed['b#build']);
    assert.notEqual(after['b#lint'], committed['b#lint']);
    assert.equal(after['a#build'], committed['a#build']);
    assert.equal(after['a#lint'], committed['a#lint']);
    // The control: nothing committed since, nothing moves.
    assert.deepEqual(turboHashes(ws), after);
  }
  {
    const files = fileDigests(ws.root, ['.git', 'node_modules', '.turbo', '.lockguard']);
    const again = await cli(['init', '--sound-keys=committed', '--no-pnpmfile'], ws.root, ws.env);
    assert.match(again.stdout, /sound keys \(committed\): already set up/);
    assert.deepEqual(fileDigests(ws.root, ['.git', 'node_modules', '.turbo', '.lockguard']), files, 'idempotent');
    // A plain init (no mode named) keeps the mode the workspace is in.
    const plain = await cli(['init', '--no-pnpmfile'], ws.root, ws.env);
    assert.match(plain.stdout, /sound keys \(committed\): already set up/);
    assert.deepEqual(fileDigests(ws.root, ['.git', 'node_modules', '.turbo', '.lockguard']), files, 'not switched');
  }
});

test('turbo committed: doctor fails naming each file that is stale, untracked or ignored, and the task that leaves it out, with the fix; warns while a change is not committed', async (t) => {
  const ws = workspace(t, TURBO_TREE);
  assert.equal((await cli(['init', '--sound-keys=committed', '--no-pnpmfile'], ws.root, ws.env)).code, 0);
  {
    const checks = await soundChecks(ws);
    const git = checkOf(checks, /git does not track/);
    assert.equal(git?.level, 'fail', JSON.stringify(checks));
    assert.match(
      git?.detail ?? '',
      /3 of 3 .*: \.lockguard-slice, packages\/a\/\.lockguard-slice, packages\/b\/\.lockguard-slice/,
    );
    assert.match(git?.fix ?? '', /git add -A -- '\*\.lockguard-slice'/);
  }
  commitAll(ws, 'committed slice files');
  assert.equal((await cli(['doctor'], ws.root, ws.env)).code, 0);
  {
    // Written by hand, not committed: current for the lockfile? No: stale.
    const path = join(ws.root, 'packages', 'a', '.lockguard-slice');
    const text = readFileSync(path, 'utf8');
    ws.slice('a', 'slice a 9\n');
    const checks = await soundChecks(ws);
    const stale = checkOf(checks, /missing or stale/);
    assert.equal(stale?.level, 'fail');
    assert.match(stale?.detail ?? '', /1 of 3 .*: packages\/a\/\.lockguard-slice$/);
    assert.equal(stale?.fix, "lockguard key --write-slices && git add -A -- '*.lockguard-slice'");
    assert.equal((await cli(['doctor'], ws.root, ws.env)).code, 1);
    writeFileSync(path, text);
  }
  {
    // A lockfile change written by the writer but not committed yet: a warning.
    writeFileSync(join(ws.root, 'pnpm-lock.yaml'), LOCK_B_ALONE);
    assert.equal((await cli(['key', '--write-slices'], ws.root, ws.env)).code, 0);
    const checks = await soundChecks(ws);
    const changed = checkOf(checks, /changed since the last commit/);
    assert.equal(changed?.level, 'warn', JSON.stringify(checks));
    assert.match(changed?.detail ?? '', /packages\/b\/\.lockguard-slice/);
    commitAll(ws, 'b lost a');
  }
  {
    // A rule that ignores one of them (a new project's file would never be committed).
    writeFileSync(
      join(ws.root, '.gitignore'),
      `${readFileSync(join(ws.root, '.gitignore'), 'utf8')}packages/a/.lockguard-slice\n`,
    );
    const ignored = checkOf(await soundChecks(ws), /ignores 1/);
    assert.equal(ignored?.level, 'fail');
    assert.match(ignored?.detail ?? '', /packages\/a\/\.lockguard-slice/);
    ws.sh(['git', 'checkout', '--', '.gitignore']);
  }
  {
    // Untracked.
    assert.equal(ws.sh(['git', 'rm', '-q', '--cached', 'packages/b/.lockguard-slice']).code, 0);
    const untracked = checkOf(await soundChecks(ws), /git does not track/);
    assert.equal(untracked?.level, 'fail');
    assert.match(untracked?.detail ?? '', /1 of 3 .*: packages\/b\/\.lockguard-slice$/);
    assert.equal(ws.sh(['git', 'add', 'packages/b/.lockguard-slice']).code, 0);
  }
  {
    // A package turbo.json whose inputs leave the default and the file out.
    writeFileSync(
      join(ws.root, 'packages', 'b', 'turbo.json'),
      '{ "extends": ["//"], "tasks": { "build": { "inputs": ["src/**"] } } }',
    );
    const turbo = checkOf(await soundChecks(ws), /cached turbo tasks do not fold/);
    assert.equal(turbo?.level, 'fail');
    assert.match(turbo?.detail ?? '', /: b#build$/);
    assert.equal(turbo?.fix, 'lockguard init --sound-keys=committed');
  }
});

test("nx committed: no .nxignore line (lockguard's taken back), targets whose inputs leave the project root out keep the file; a committed slice change moves that project's nx hashes only", async (t) => {
  const ws = nxWorkspace(t);
  assert.equal((await cli(['init', '--no-pnpmfile'], ws.root, ws.env)).code, 0);
  const result = await cli(['init', '--sound-keys=committed', '--no-pnpmfile'], ws.root, ws.env);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /\.nxignore: !\*\*\/\.lockguard-slice removed/);
  assert.doesNotMatch(readFileSync(join(ws.root, '.nxignore'), 'utf8'), /lockguard-slice/);
  assert.match(readFileSync(join(ws.root, 'nx.json'), 'utf8'), /"srcOnly",\s*"\{projectRoot\}\/\.lockguard-slice"/);
  commitAll(ws, 'committed slice files');
  const before = nxRun(ws);
  {
    const checks = await soundChecks(ws);
    assert.equal(checkOf(checks, /nx tasks/)?.level, 'ok', JSON.stringify(checks));
  }
  ws.slice('b', 'slice b 2\n');
  commitAll(ws, 'b bumped');
  const after = nxRun(ws);
  for (const id of ['b:build', 'b:lint'])
    assert.notEqual(after[id]?.hash, before[id]?.hash, `${id}: its slice changed`);
  for (const id of ['a:build', 'a:lint', 'c:check'])
    assert.equal(after[id]?.hash, before[id]?.hash, `${id}: its slice did not`);
  {
    // The control: without the entry init keeps in lint's inputs (srcOnly leaves the project root out),
    // nx's lint key misses a committed slice change; build's default inputs still take it in.
    const nxJson = join(ws.root, 'nx.json');
    writeFileSync(nxJson, readFileSync(nxJson, 'utf8').replace(/,\s*"\{projectRoot\}\/\.lockguard-slice"/, ''));
    commitAll(ws, 'lint without the slice file');
    const without = nxRun(ws);
    ws.slice('b', 'slice b 3\n');
    commitAll(ws, 'b bumped again');
    const missed = nxRun(ws);
    assert.equal(missed['b:lint']?.hash, without['b:lint']?.hash, 'b:lint misses it');
    assert.notEqual(missed['b:build']?.hash, without['b:build']?.hash, 'b:build folds it');
  }
});

/** The turbo workspace whose every task uses turbo's default inputs: nothing in turbo.json names the file. */
const DEFAULT_INPUTS_TREE: Tree = {
  'pnpm-lock.yaml': LOCK,
  'turbo.json': '{ "tasks": { "build": { "dependsOn": ["^build"], "outputs": ["dist/**"] } } }',
};

test("a fresh clone of a committed-mode workspace (no .lockguard/, nothing in turbo.json names the file) is adopted: lockguard run after a lockfile change rewrites the changed project's file only", async (t) => {
  const ws = workspace(t, DEFAULT_INPUTS_TREE);
  assert.equal((await cli(['init', '--sound-keys=committed', '--no-pnpmfile'], ws.root, ws.env)).code, 0);
  assert.doesNotMatch(readFileSync(join(ws.root, 'turbo.json'), 'utf8'), /lockguard-slice/);
  commitAll(ws, 'committed slice files');
  const clone = join(ws.root, '..', 'clone');
  assert.equal(ws.sh(['git', 'clone', '-q', ws.root, clone]).code, 0);
  assert.equal(spawnSync('test', ['-e', join(clone, '.lockguard')]).status, 1, 'no ledger in the clone');
  const git = (argv: string[]) => spawnSync('git', argv, { cwd: clone, env: ws.env, encoding: 'utf8' });
  const a = readFileSync(join(clone, 'packages', 'a', '.lockguard-slice'), 'utf8');
  writeFileSync(join(clone, 'pnpm-lock.yaml'), LOCK_B_ALONE);
  assert.equal((await cli(['key', '--check-slices'], clone, ws.env)).code, 1, 'stale before the run');
  const run = await cli(['run', '--no-pre-check', '--', 'true'], clone, ws.env);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(git(['status', '--porcelain', '--', '*.lockguard-slice']).stdout.trim().split('\n'), [
    'M packages/b/.lockguard-slice',
  ]);
  assert.equal(readFileSync(join(clone, 'packages', 'a', '.lockguard-slice'), 'utf8'), a);
  assert.equal((await cli(['key', '--check-slices'], clone, ws.env)).code, 0, 'current after the run');
});

test('key --check-slices: exit 0 when current, 1 naming each missing or stale file with the fix, writing nothing; 2 on bad input', async (t) => {
  const ws = workspace(t, { 'pnpm-lock.yaml': LOCK });
  rmSync(join(ws.root, 'packages', 'a', '.lockguard-slice'));
  {
    const result = await cli(['key', '--check-slices'], ws.root, ws.env);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^missing: \.lockguard-slice$/m);
    assert.match(result.stdout, /^missing: packages\/a\/\.lockguard-slice$/m);
    assert.match(result.stdout, /^stale: packages\/b\/\.lockguard-slice/m, "the hand-written text is not the writer's");
    assert.match(
      result.stdout,
      /3 slice files are not current; fix: lockguard key --write-slices && git add -A -- '\*\.lockguard-slice'/,
    );
    assert.equal(
      readFileSync(join(ws.root, 'packages', 'b', '.lockguard-slice'), 'utf8'),
      'slice b 1\n',
      'nothing written',
    );
  }
  assert.equal((await cli(['key', '--write-slices'], ws.root, ws.env)).code, 0);
  {
    const result = await cli(['key', '--check-slices'], ws.root, ws.env);
    assert.equal(result.code, 0, result.stdout);
    assert.match(result.stdout, /slice files: current/);
  }
  for (const argv of [
    ['key', '--check-slices', '--json'],
    ['key', '--check-slices', '--write-slices'],
  ]) {
    const result = await cli(argv, ws.root, ws.env);
    assert.equal(result.code, 2, argv.join(' '));
    assert.match(result.stderr, /Expected --(check|write)-slices alone/);
  }
  rmSync(join(ws.root, 'pnpm-lock.yaml'));
  assertSetupError(await cli(['key', '--check-slices'], ws.root, ws.env), ws.root);
  {
    const result = await cli(['init', '--sound-keys=sometimes', '--no-pnpmfile'], ws.root, ws.env);
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /Expected --sound-keys, --sound-keys=ignored or --sound-keys=committed \(lockguard init\)/,
    );
    assert.doesNotMatch(result.stderr, /sometimes/);
  }
});
