// `lockguard run` as a real process: exit codes, signals, argv, policies, pre-run check, nesting.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN, cliProcess } from '../../helpers/cli.js';
import { scrubbedEnv } from '../../helpers/env.js';
import { pnpmTree, tempWorkspace, waitFor } from '../../helpers/workspace.js';

const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";
/** A workspace whose "install" is in step with its lockfile, so the pre-run check passes. */
const installed = () => ({ ...pnpmTree(LOCK), node_modules: { '.pnpm': { 'lock.yaml': LOCK } } });
const node = process.execPath;

test('the child exit code comes back; a command not found is 127', (t) => {
  const root = tempWorkspace(t, installed());
  assert.equal(cliProcess(['run', '--', 'sh', '-c', 'exit 7'], root).code, 7);
  const missing = cliProcess(['run', '--', 'lockguard-no-such-command'], root);
  assert.equal(missing.code, 127);
  assert.match(missing.stderr, /command not found/);
});

test('argv with spaces, quotes and $VARS arrives unchanged (no shell)', (t) => {
  const root = tempWorkspace(t, installed());
  const args = ['a b', '"quoted"', "'single'", '$HOME', '`id`', '*', ''];
  const result = cliProcess(
    ['run', '--', node, '-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', ...args],
    root,
  );
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout), args);
});

test('a child killed by SIGTERM gives 143', (t) => {
  const root = tempWorkspace(t, installed());
  assert.equal(cliProcess(['run', '--', 'sh', '-c', 'kill -TERM $$'], root).code, 143);
});

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  test(`${signal} sent to lockguard reaches the child`, { timeout: 20_000 }, async (t) => {
    const root = tempWorkspace(t, installed());
    const ready = join(root, 'ready');
    const got = join(root, 'got');
    const script = `process.on(${JSON.stringify(signal)}, () => { require('fs').writeFileSync(${JSON.stringify(got)}, 'yes'); process.exit(5) }); require('fs').writeFileSync(${JSON.stringify(ready)}, ''); setInterval(() => {}, 1000)`;
    const child = spawn(node, [BIN, 'run', '--', node, '-e', script], {
      cwd: root,
      env: scrubbedEnv(),
      stdio: 'ignore',
    });
    t.after(() => child.kill('SIGKILL'));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor(() => fs.existsSync(ready), 15_000, 'the child to start');
    child.kill(signal);
    assert.equal(await exited, 5);
    assert.equal(fs.readFileSync(got, 'utf8'), 'yes');
  });
}

test('a move under withhold: one status line, 0 locally, 1 where CI is set; the report says what moved', (t) => {
  const root = tempWorkspace(t, installed());
  const edit = ['run', '--', 'sh', '-c', 'echo "# edited" >> pnpm-lock.yaml'];
  const local = cliProcess(edit, root);
  assert.equal(local.code, 0);
  const lines = local.stderr.split('\n').filter((line) => line.startsWith('[lockguard]'));
  assert.equal(lines.length, 1);
  assert.match(lines[0] ?? '', /pnpm-lock\.yaml/);
  const status = JSON.parse(cliProcess(['status', '--json'], root).stdout) as {
    state: string;
    report: { moved: { files: { path: string }[] } };
  };
  assert.equal(status.state, 'moved');
  assert.deepEqual(
    status.report.moved.files.map((file) => file.path),
    ['pnpm-lock.yaml'],
  );
  // verify refuses the run's saves
  const runDir = (JSON.parse(cliProcess(['status', '--json'], root).stdout) as { dir: string }).dir;
  assert.equal(cliProcess(['verify', '--run', runDir], root).code, 1);

  const ci = tempWorkspace(t, installed());
  assert.equal(cliProcess(edit, ci, scrubbedEnv({ CI: 'true' })).code, 1);
  const never = tempWorkspace(t, installed());
  assert.equal(
    cliProcess(['run', '--fail-on-move', 'never', ...edit.slice(1)], never, scrubbedEnv({ CI: 'true' })).code,
    0,
  );
});

test('--moved-exit-code: a failing move exits n; a clean run 0, the child failure its own code; 0 and 126 are usage errors', (t) => {
  const edit = ['sh', '-c', 'echo "# edited" >> pnpm-lock.yaml'];
  const ci = scrubbedEnv({ CI: 'true' });
  assert.equal(cliProcess(['run', '--moved-exit-code', '3', '--', ...edit], tempWorkspace(t, installed()), ci).code, 3);
  assert.equal(cliProcess(['run', '--moved-exit-code', '3', '--', 'true'], tempWorkspace(t, installed()), ci).code, 0);
  assert.equal(
    cliProcess(
      ['run', '--moved-exit-code', '3', '--', 'sh', '-c', 'echo x >> pnpm-lock.yaml; exit 1'],
      tempWorkspace(t, installed()),
      ci,
    ).code,
    1,
  );
  for (const bad of ['0', '126']) {
    const refused = cliProcess(['run', '--moved-exit-code', bad, '--', 'true'], tempWorkspace(t, installed()));
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /--moved-exit-code takes a whole number from 1 to 125/);
  }
});

test('policies: flag exits 0 even in CI; refuse fails locally; the child failure code always wins', (t) => {
  const edit = ['sh', '-c', 'echo "# edited" >> pnpm-lock.yaml'];
  assert.equal(
    cliProcess(['run', '--policy', 'flag', '--', ...edit], tempWorkspace(t, installed()), scrubbedEnv({ CI: 'true' }))
      .code,
    0,
  );
  assert.equal(cliProcess(['run', '--policy', 'refuse', '--', ...edit], tempWorkspace(t, installed())).code, 1);
  assert.equal(
    cliProcess(['run', '--', 'sh', '-c', 'echo x >> pnpm-lock.yaml; exit 9'], tempWorkspace(t, installed())).code,
    9,
  );
  assert.equal(
    cliProcess(
      ['run', '--', ...edit],
      tempWorkspace(t, installed()),
      scrubbedEnv({ LOCKGUARD_POLICY: 'flag', CI: '1' }),
    ).code,
    0,
  );
});

test('no move, no line: a command that does not touch the table', (t) => {
  const root = tempWorkspace(t, installed());
  const result = cliProcess(['run', '--', 'sh', '-c', 'echo hi > out.txt'], root, scrubbedEnv({ CI: 'true' }));
  assert.equal(result.code, 0);
  assert.doesNotMatch(result.stderr, /\[lockguard\]/);
});

test('the pre-run check refuses a lockfile edited after the last install (exit 3), and passes after it', (t) => {
  const root = tempWorkspace(t, installed());
  fs.appendFileSync(join(root, 'pnpm-lock.yaml'), '# edited after install\n');
  const refused = cliProcess(['run', '--', 'sh', '-c', 'echo ran > ran.txt'], root);
  assert.equal(refused.code, 3);
  assert.match(refused.stderr, /pnpm-lock\.yaml/);
  assert.equal(fs.existsSync(join(root, 'ran.txt')), false, 'nothing ran');
  assert.equal(cliProcess(['run', '--no-pre-check', '--', 'true'], root).code, 0);
  fs.copyFileSync(join(root, 'pnpm-lock.yaml'), join(root, 'node_modules/.pnpm/lock.yaml'));
  assert.equal(cliProcess(['run', '--', 'true'], root).code, 0);
});

test('bad input: each a clear message and exit 2, never a stack trace', (t) => {
  const root = tempWorkspace(t, installed());
  const cases: [string[], Record<string, string>, RegExp][] = [
    [
      ['run', '--policy', 'sometimes', '--', 'true'],
      {},
      /Expected --policy to be "flag", "withhold" or "refuse", got "sometimes"/,
    ],
    [['run', '--', 'true'], { LOCKGUARD_POLICY: 'maybe' }, /LOCKGUARD_POLICY/],
    [['run', '--'], {}, /no command after "--"/],
    [['run', 'true'], {}, /after "--"/],
    [['run', '--', 'true'], { LOCKGUARD_RUN: join(root, 'nowhere') }, /LOCKGUARD_RUN/],
    [['run', '--bogus', '--', 'true'], {}, /--bogus/],
  ];
  for (const [argv, env, pattern] of cases) {
    const result = cliProcess(argv, root, scrubbedEnv(env));
    assert.equal(result.code, 2, argv.join(' '));
    assert.match(result.stderr, pattern);
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  }
  const foreign = tempWorkspace(t, installed());
  cliProcess(['snapshot'], foreign);
  const foreignRun = (JSON.parse(cliProcess(['status', '--json'], foreign).stdout) as { dir: string }).dir;
  const result = cliProcess(['run', '--', 'true'], root, scrubbedEnv({ LOCKGUARD_RUN: foreignRun }));
  assert.equal(result.code, 2);
  assert.ok(result.stderr.includes(`names a run of the workspace at "${foreign}", not of "${root}"`), result.stderr);
  // A name that is no run at all is not said to belong to some workspace (it once named the folder two
  // levels up, or the workspace itself, as the run's owner).
  for (const given of ['nope', join(root, 'nowhere')]) {
    const none = cliProcess(['status', '--run', given], root);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /which is neither a run id \(as lockguard status prints it\) nor the folder of a run of/);
    assert.doesNotMatch(none.stderr, /belongs to/);
    assert.match(none.stderr, /\n {2}Pass a run id lockguard status lists, or unset the flag to use the latest run/);
  }
  const fileLedger = tempWorkspace(t, { ...installed(), '.lockguard': 'a file' });
  const ledger = cliProcess(['run', '--', 'true'], fileLedger);
  assert.equal(ledger.code, 2);
  assert.match(ledger.stderr, /\.lockguard/);
});

test('a nested lockguard run joins the outer run instead of starting its own', (t) => {
  const root = tempWorkspace(t, installed());
  const inner = `${JSON.stringify(node)} ${JSON.stringify(BIN)} run -- sh -c 'echo "# inner" >> pnpm-lock.yaml'`;
  const result = cliProcess(['run', '--', 'sh', '-c', inner], root, scrubbedEnv({ CI: 'true' }));
  assert.equal(result.code, 1, result.stderr);
  assert.equal(fs.readdirSync(join(root, '.lockguard/runs')).length, 1, 'one run, the outer');
  // The outer run's lines only: its final line once, and at most once the line the watch prints while the
  // child still runs (whether it sees the move before the child ends is timing: the test once counted it).
  const lines = result.stderr.split('\n').filter((line) => line.startsWith('[lockguard]'));
  assert.equal(lines.filter((line) => / during the run, /.test(line)).length, 1, result.stderr);
  assert.ok(
    lines.every((line) => / during the run, /.test(line) || /changed at .* \(a task wrote it\)/.test(line)),
    result.stderr,
  );
  assert.ok(lines.length <= 2, result.stderr);
});

test('two concurrent runs in one workspace keep separate ledgers and each sees the move', {
  timeout: 30_000,
}, async (t) => {
  const root = tempWorkspace(t, installed());
  const go = join(root, 'go');
  const waiter = `while [ ! -f ${go} ]; do sleep 0.05; done`;
  const start = (): Promise<number | null> =>
    new Promise((resolve) => {
      const child = spawn(node, [BIN, 'run', '--', 'sh', '-c', waiter], {
        cwd: root,
        env: scrubbedEnv({ CI: 'true' }),
        stdio: 'ignore',
      });
      t.after(() => child.kill('SIGKILL'));
      child.on('exit', resolve);
    });
  const runs = [start(), start()];
  const live = (): number =>
    fs.existsSync(join(root, '.lockguard/live'))
      ? fs.readdirSync(join(root, '.lockguard/live')).filter((name) => !name.startsWith('.')).length
      : 0;
  await waitFor(() => live() >= 2, 20_000, 'two live runs');
  fs.appendFileSync(join(root, 'pnpm-lock.yaml'), '# written by a third party during both runs\n');
  fs.writeFileSync(go, '');
  assert.deepEqual(await Promise.all(runs), [1, 1]);
  assert.equal(fs.readdirSync(join(root, '.lockguard/runs')).length, 2);
});

test('an install marker gone for a moment and back with the same bytes is no move (npm ci deletes node_modules)', (t) => {
  const root = tempWorkspace(t, installed());
  const script = 'mv node_modules/.pnpm/lock.yaml kept.yaml; sleep 0.3; mv kept.yaml node_modules/.pnpm/lock.yaml';
  const result = cliProcess(['run', '--', 'sh', '-c', script], root, scrubbedEnv({ CI: 'true' }));
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /\[lockguard\] a task/);
});

test('an install marker still gone at the end is a move', (t) => {
  const root = tempWorkspace(t, installed());
  const result = cliProcess(
    ['run', '--', 'sh', '-c', 'rm node_modules/.pnpm/lock.yaml'],
    root,
    scrubbedEnv({ CI: 'true' }),
  );
  assert.equal(result.code, 1);
  assert.match(result.stderr, /removed node_modules\/\.pnpm\/lock\.yaml/);
});

test('a lockfile rewritten and written back during the run stays moved (outputs were built in between)', (t) => {
  const root = tempWorkspace(t, installed());
  // The child waits until the run has recorded the move before it writes the old bytes back.
  const script = [
    'cp pnpm-lock.yaml old.yaml',
    'echo "# edited" >> pnpm-lock.yaml',
    'i=0; while ! grep -q \'"type":"moved"\' "$LOCKGUARD_RUN/events.ndjson"; do i=$((i+1)); [ $i -gt 200 ] && exit 9; sleep 0.05; done',
    'cp old.yaml pnpm-lock.yaml',
  ].join('; ');
  const result = cliProcess(['run', '--', 'sh', '-c', script], root, scrubbedEnv({ CI: 'true' }));
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /rewrote pnpm-lock\.yaml/);
  assert.equal(fs.readFileSync(join(root, 'pnpm-lock.yaml'), 'utf8'), LOCK, 'the bytes did come back');
});
