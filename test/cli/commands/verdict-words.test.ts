// The words of a verdict, each asserted as an exact line (lib/cli/verdict-words.ts), through the built bin:
// an install marker is never "which every key folds"; a withheld entry names what moved, never "the old
// lockfile" when the lockfile did not change; `verify` says "since the snapshot" / "since run <id>" for what
// changed after, "during the run" only for what the run's own checks saw; a move seen while the command runs
// is said at once, then the final line.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliProcess } from '../../helpers/cli.js';
import { scrubbedEnv } from '../../helpers/env.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";
/** A workspace whose "install" is in step with its lockfile, so the pre-run check passes. */
const installed = () => ({ ...pnpmTree(LOCK), node_modules: { '.pnpm': { 'lock.yaml': LOCK } } });
const OUTCOME = 'the cache save is refused (lockguard status for details)';

interface Report {
  run: string;
  report: { moved: { at: string; evidence: string } | null; withheld: { reason: string }[]; installed?: unknown[] };
}

const status = (root: string): Report => JSON.parse(cliProcess(['status', '--json'], root).stdout) as Report;
const lockguardLines = (stderr: string): string[] =>
  stderr.split('\n').filter((line) => line.startsWith('[lockguard]'));
const pad = (n: number): string => String(n).padStart(2, '0');
const clock = (iso: string): string => {
  const date = new Date(iso);
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
};

test('verify after a plain snapshot says "since the snapshot", never "a task … during the run"', (t) => {
  const root = tempWorkspace(t, installed());
  assert.equal(cliProcess(['snapshot'], root).code, 0);
  fs.appendFileSync(join(root, 'pnpm-lock.yaml'), '# edited\n');
  const verify = cliProcess(['verify'], root);
  assert.equal(verify.code, 1);
  assert.deepEqual(lockguardLines(verify.stderr), [
    `[lockguard] pnpm-lock.yaml was rewritten since the snapshot, which its key folds (inputs scope): ${OUTCOME}`,
  ]);
});

test('under --scope full a marker that appears since the snapshot counts, and the line says the scope', (t) => {
  const root = tempWorkspace(t, installed());
  assert.equal(cliProcess(['snapshot', '--scope', 'full'], root).code, 0);
  fs.writeFileSync(join(root, 'node_modules', '.modules.yaml'), '{}\n');
  const verify = cliProcess(['verify'], root);
  assert.equal(verify.code, 1);
  assert.deepEqual(lockguardLines(verify.stderr), [
    `[lockguard] node_modules/.modules.yaml was created since the snapshot, which its key folds (full scope): ${OUTCOME}`,
  ]);
});

test('verify --run <an old clean run> says "since run <id>" for changes made after it', (t) => {
  const root = tempWorkspace(t, installed());
  const run = cliProcess(['run', '--', 'true'], root);
  assert.equal(run.code, 0, run.stderr);
  const id = status(root).run;
  fs.appendFileSync(join(root, 'pnpm-lock.yaml'), '# edited\n');
  const verify = cliProcess(['verify', '--run', id], root);
  assert.equal(verify.code, 1);
  assert.deepEqual(lockguardLines(verify.stderr), [
    `[lockguard] pnpm-lock.yaml was rewritten since run ${id}, which its keys fold (inputs scope): ${OUTCOME}`,
  ]);
});

test('verify --run <a run that moved> says "during run <id>" for what the run saw, and "since it ended" for the rest', (t) => {
  const root = tempWorkspace(t, installed());
  assert.equal(cliProcess(['run', '--', 'sh', '-c', 'echo "# edited" >> pnpm-lock.yaml'], root).code, 0);
  const id = status(root).run;
  const during = cliProcess(['verify', '--run', id], root);
  assert.deepEqual(lockguardLines(during.stderr), [
    `[lockguard] a task rewrote pnpm-lock.yaml during run ${id}, which every key folds: ${OUTCOME}`,
  ]);
  fs.appendFileSync(join(root, 'pnpm-workspace.yaml'), '# edited\n');
  const both = cliProcess(['verify', '--run', id], root);
  assert.equal(both.code, 1);
  assert.deepEqual(lockguardLines(both.stderr), [
    `[lockguard] a task rewrote pnpm-lock.yaml during run ${id}, and pnpm-workspace.yaml was rewritten since it ended, which every key folds: ${OUTCOME}`,
  ]);
});

test('a guarded run: install markers alone are an install, not a move (no "which every key folds" of a marker)', (t) => {
  const root = tempWorkspace(t, installed());
  // .modules.yaml appears, and .pnpm/lock.yaml is rewritten with the lockfile's bytes: the tree holds the lockfile.
  const run = cliProcess(
    [
      'run',
      '--',
      'sh',
      '-c',
      `echo '{}' > node_modules/.modules.yaml && cp pnpm-lock.yaml node_modules/.pnpm/x && mv node_modules/.pnpm/x node_modules/.pnpm/lock.yaml`,
    ],
    root,
    scrubbedEnv({ CI: 'true' }),
  );
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(lockguardLines(run.stderr), [
    '[lockguard] installed: node_modules/.modules.yaml created; no input changed, so nothing was withheld or refused',
  ]);
  assert.ok(
    run.stderr
      .split('\n')
      .includes(
        '  judged on inputs: no runner cache is guarded here (runner keys fold the lockfile and what an install reads, not the install tree)',
      ),
    run.stderr,
  );
  assert.equal(status(root).report.moved, null);
});

test('a guarded run: a marker gone at the end leaves a tree that does not hold the lockfile; the line says so, not that a key folds the marker', (t) => {
  const root = tempWorkspace(t, installed());
  const run = cliProcess(
    ['run', '--', 'sh', '-c', 'rm node_modules/.pnpm/lock.yaml'],
    root,
    scrubbedEnv({ CI: 'true' }),
  );
  assert.equal(run.code, 1, run.stderr);
  const [line] = lockguardLines(run.stderr);
  assert.match(
    line ?? '',
    /^\[lockguard\] a task removed node_modules\/\.pnpm\/lock\.yaml during the run, so the installed tree no longer holds what every key folds \(pnpm-lock\.yaml: [^)]+\): no runner cache is guarded here/,
  );
  assert.doesNotMatch(line ?? '', /lock\.yaml during the run, which every key folds/);
});

test('a withheld entry names what moved: "the old pnpm-workspace.yaml" when the lockfile never changed', (t) => {
  const root = tempWorkspace(t, { ...installed(), 'turbo.json': '{"tasks":{}}\n' });
  const save =
    'mkdir -p .turbo/cache && for s in .tar.zst -meta.json -manifest.json; do echo x > .turbo/cache/aaaa000000000001$s; done';
  const run = cliProcess(
    ['run', '--', 'sh', '-c', `echo "# edited" >> pnpm-workspace.yaml && sleep 0.05 && ${save}`],
    root,
  );
  assert.equal(run.code, 0, run.stderr);
  const { report } = status(root);
  assert.deepEqual(
    report.withheld.map((entry) => entry.reason),
    ['saved at or after the move, under a key that folded the old pnpm-workspace.yaml'],
  );
  // The final line; the watcher may have said the move at once before it (a line with its time).
  const final = lockguardLines(run.stderr).filter((line) => !/ changed at \S+ \(a task wrote it\)/.test(line));
  assert.match(
    final[0] ?? '',
    /^\[lockguard\] a task rewrote pnpm-workspace\.yaml during the run, which every key folds: 1 cache save made after it was withheld/,
  );
});

test('a move seen while the command runs is said at once (one line, with its time), then the final line', (t) => {
  const root = tempWorkspace(t, { ...installed(), 'turbo.json': '{"tasks":{}}\n' });
  const run = cliProcess(['run', '--', 'sh', '-c', 'echo "# edited" >> pnpm-lock.yaml && sleep 1.5'], root);
  assert.equal(run.code, 0, run.stderr);
  const moved = status(root).report.moved;
  assert.ok(moved?.evidence === 'fs-event' || moved?.evidence === 'hook', moved?.evidence);
  const lines = lockguardLines(run.stderr);
  assert.equal(lines.length, 2, run.stderr);
  assert.equal(
    lines[0],
    `[lockguard] pnpm-lock.yaml changed at ${clock(moved?.at ?? '')} (a task wrote it): saves from now on will be withheld`,
  );
  assert.match(lines[1] ?? '', /^\[lockguard\] a task rewrote pnpm-lock\.yaml during the run, which every key folds: /);
});
