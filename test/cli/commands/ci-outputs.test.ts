// The CI output modes of verify and snapshot, each on exit 0 (nothing moved), 1 (moved) and 2 (an error):
// --github-output, --dotenv, --json, and inside GitHub Actions the job summary and ::error annotations;
// --moved-exit-code; snapshot --key-file. In-process through main, with real files for every output.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../../helpers/cli.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

type Outcome = 'ok' | 'moved' | 'error';
const OUTCOMES: readonly Outcome[] = ['ok', 'moved', 'error'];
const EXPECTED_EXIT: Record<Outcome, number> = { ok: 0, moved: 1, error: 2 };

/** A workspace set up for the outcome: a snapshot (then the lockfile rewritten for `moved`), or no snapshot at all. */
async function workspaceFor(
  t: Parameters<typeof tempWorkspace>[0],
  outcome: Outcome,
): Promise<{ root: string; key: string }> {
  const root = tempWorkspace(t, pnpmTree());
  if (outcome === 'error') return { root, key: '' };
  const snap = await cli(['snapshot', '--json'], root);
  assert.equal(snap.code, 0, snap.stderr);
  const key = (JSON.parse(snap.stdout) as { key: string }).key;
  if (outcome === 'moved')
    writeFileSync(
      join(root, 'pnpm-lock.yaml'),
      "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n\n  packages/a: {}\n",
    );
  return { root, key };
}

for (const outcome of OUTCOMES) {
  test(`verify --github-output on exit ${EXPECTED_EXIT[outcome]} (${outcome}): an answer in $GITHUB_OUTPUT`, async (t) => {
    const { root } = await workspaceFor(t, outcome);
    const output = join(root, '..', `${root.split('/').at(-1)}-github-output`);
    writeFileSync(output, '');
    t.after(() => rmSync(output, { force: true }));
    const result = await cli(['verify', '--github-output'], root, { GITHUB_OUTPUT: output });
    assert.equal(result.code, EXPECTED_EXIT[outcome], result.stderr);
    const expected = {
      ok: 'save=true\nmoved=\n',
      moved: 'save=false\nmoved=pnpm-lock.yaml\n',
      error: 'save=false\nerror=ERR_LOCKGUARD_NO_SNAPSHOT\n',
    }[outcome];
    assert.equal(readFileSync(output, 'utf8'), expected);
  });

  test(`verify --dotenv on exit ${EXPECTED_EXIT[outcome]} (${outcome}): LOCKGUARD_SAVE, LOCKGUARD_KEY, LOCKGUARD_MOVED (or LOCKGUARD_ERROR)`, async (t) => {
    const { root, key } = await workspaceFor(t, outcome);
    const result = await cli(['verify', '--dotenv', 'reports/lockguard.env'], root);
    assert.equal(result.code, EXPECTED_EXIT[outcome], result.stderr);
    const expected = {
      ok: `LOCKGUARD_SAVE=true\nLOCKGUARD_KEY=${key}\nLOCKGUARD_MOVED=\n`,
      moved: `LOCKGUARD_SAVE=false\nLOCKGUARD_KEY=${key}\nLOCKGUARD_MOVED=pnpm-lock.yaml\n`,
      error: 'LOCKGUARD_SAVE=false\nLOCKGUARD_ERROR=ERR_LOCKGUARD_NO_SNAPSHOT\n',
    }[outcome];
    assert.equal(readFileSync(join(root, 'reports', 'lockguard.env'), 'utf8'), expected);
    // Written whole: no temporary file is left next to it.
    assert.deepEqual(readdirSync(join(root, 'reports')), ['lockguard.env']);
  });

  test(`verify --json on exit ${EXPECTED_EXIT[outcome]} (${outcome}): one JSON object on stdout with version and exitCode`, async (t) => {
    const { root, key } = await workspaceFor(t, outcome);
    const result = await cli(['verify', '--json'], root);
    assert.equal(result.code, EXPECTED_EXIT[outcome], result.stderr);
    const body = JSON.parse(result.stdout) as {
      version: string;
      exitCode: number;
      save?: boolean;
      key?: string;
      moved?: { path: string }[];
      error?: { code: string; message: string; hint?: string };
    };
    assert.equal(body.exitCode, EXPECTED_EXIT[outcome]);
    assert.match(body.version, /^\d+\.\d+\.\d+/);
    if (outcome === 'error') {
      assert.equal(body.error?.code, 'ERR_LOCKGUARD_NO_SNAPSHOT');
      assert.ok((body.error?.message ?? '').length > 0);
      // main still prints the message and the fix on stderr.
      assert.match(result.stderr, /lockguard:/);
    } else {
      assert.equal(body.save, outcome === 'ok');
      assert.equal(body.key, key);
      assert.deepEqual(
        body.moved?.map((file) => file.path),
        outcome === 'ok' ? [] : ['pnpm-lock.yaml'],
      );
    }
  });

  test(`verify inside GitHub Actions on exit ${EXPECTED_EXIT[outcome]} (${outcome}): the job summary, and annotations only on moved files`, async (t) => {
    const { root } = await workspaceFor(t, outcome);
    const summary = join(root, 'summary.md');
    writeFileSync(summary, '');
    const result = await cli(['verify'], root, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
    assert.equal(result.code, EXPECTED_EXIT[outcome], result.stderr);
    const text = readFileSync(summary, 'utf8');
    const annotations = result.stderr.split('\n').filter((line) => line.startsWith('::'));
    if (outcome === 'ok') {
      // A green gate writes no summary unless asked (--summary always).
      assert.equal(text, '');
      assert.deepEqual(annotations, []);
      assert.equal(
        (await cli(['verify', '--summary', 'always'], root, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary }))
          .code,
        0,
      );
      assert.match(readFileSync(summary, 'utf8'), /^### lockguard verify: nothing moved, the cache may be saved\n/);
    } else if (outcome === 'moved') {
      assert.match(text, /^### lockguard verify: the cache save is refused\n/);
      assert.match(text, /\| ` pnpm-lock\.yaml ` \| rewritten \|/);
      assert.match(text, /The slices that changed:\n\n```text\npnpm-lock\.yaml moved: /);
      assert.match(text, /Withheld: the cache save of this job \(save=false\)/);
      assert.deepEqual(annotations, [
        '::error file=pnpm-lock.yaml,title=lockguard%3A the cache save is refused::pnpm-lock.yaml was rewritten since the snapshot: the cache is not saved under a key that folded the old bytes',
      ]);
    } else {
      assert.match(text, /^### lockguard verify: error ` ERR_LOCKGUARD_NO_SNAPSHOT `\n/);
      assert.deepEqual(annotations, []);
    }
  });
}

test('wrong arguments answer in every output asked for too: save=false and ERR_LOCKGUARD_USAGE (they wrote nothing)', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  for (const command of ['verify', 'snapshot']) {
    const output = join(root, `${command}-github-output`);
    const summary = join(root, `${command}-summary.md`);
    writeFileSync(output, '');
    writeFileSync(summary, '');
    const result = await cli([command, '--github-output', '--dotenv', `${command}.env`, '--bogus'], root, {
      GITHUB_OUTPUT: output,
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summary,
    });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /Unknown option '--bogus'/);
    assert.match(readFileSync(output, 'utf8'), /error=ERR_LOCKGUARD_USAGE\n$/, command);
    assert.match(readFileSync(join(root, `${command}.env`), 'utf8'), /LOCKGUARD_ERROR=ERR_LOCKGUARD_USAGE\n$/, command);
    assert.match(readFileSync(summary, 'utf8'), /error ` ERR_LOCKGUARD_USAGE `/, command);
  }
  assert.equal(existsSync(join(root, '.lockguard')), false, 'nothing recorded');
});

test('outside GitHub Actions (CI=true, GitLab, CircleCI) verify writes no annotation and no summary', async (t) => {
  const { root } = await workspaceFor(t, 'moved');
  const summary = join(root, 'summary.md');
  for (const env of [{ CI: 'true' }, { GITLAB_CI: 'true', CI: 'true' }, { CIRCLECI: 'true', CI: 'true' }]) {
    const result = await cli(['verify'], root, { ...env, GITHUB_STEP_SUMMARY: summary });
    assert.equal(result.code, 1);
    assert.doesNotMatch(result.stderr, /^::/m);
  }
  assert.equal(existsSync(summary), false);
});

test('after a plain snapshot verify says "since the snapshot", never "during the run"', async (t) => {
  const { root } = await workspaceFor(t, 'moved');
  const result = await cli(['verify'], root);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /\[lockguard\] pnpm-lock\.yaml was rewritten since the snapshot, which its key folds/);
  assert.doesNotMatch(result.stderr, /during/);
});

test('--moved-exit-code: the code of a move only; exit 0 and errors keep theirs; 0, 126 and words are usage errors', async (t) => {
  const moved = await workspaceFor(t, 'moved');
  assert.equal((await cli(['verify', '--moved-exit-code', '42'], moved.root)).code, 42);
  assert.equal((await cli(['verify', '--moved-exit-code', '125'], moved.root)).code, 125);
  const ok = await workspaceFor(t, 'ok');
  assert.equal((await cli(['verify', '--moved-exit-code', '42'], ok.root)).code, 0);
  const error = await workspaceFor(t, 'error');
  assert.equal((await cli(['verify', '--moved-exit-code', '42'], error.root)).code, 2);
  for (const bad of ['0', '126', '-1', 'x', '1e1', '']) {
    const result = await cli(['verify', `--moved-exit-code=${bad}`, '--dotenv', 'out.env'], moved.root);
    assert.equal(result.code, 2, bad);
    assert.match(result.stderr, /--moved-exit-code takes a whole number from 1 to 125/);
    assert.equal(
      readFileSync(join(moved.root, 'out.env'), 'utf8'),
      'LOCKGUARD_SAVE=false\nLOCKGUARD_ERROR=ERR_LOCKGUARD_USAGE\n',
    );
  }
});

for (const outcome of ['ok', 'error'] as const) {
  test(`snapshot outputs on exit ${EXPECTED_EXIT[outcome]}: --key-file, --github-output, --dotenv, --json`, async (t) => {
    const root = tempWorkspace(t, outcome === 'ok' ? pnpmTree() : { 'package.json': '{"name":"root"}\n' });
    const outside = tempWorkspace(t);
    const output = join(outside, 'github-output');
    writeFileSync(output, '');
    const args = [
      'snapshot',
      '--key-file',
      join(outside, 'keys', 'key'),
      '--github-output',
      '--dotenv',
      join(outside, 'env'),
      '--json',
    ];
    const result = await cli(args, root, { GITHUB_OUTPUT: output });
    assert.equal(result.code, EXPECTED_EXIT[outcome], result.stderr);
    const body = JSON.parse(result.stdout) as {
      key?: string;
      dir?: string;
      exitCode?: number;
      error?: { code: string };
    };
    if (outcome === 'ok') {
      assert.match(body.key ?? '', /^[0-9a-f]{64}$/);
      assert.equal(readFileSync(join(outside, 'keys', 'key'), 'utf8'), `${body.key}\n`);
      assert.deepEqual(readdirSync(join(outside, 'keys')), ['key']);
      assert.match(readFileSync(output, 'utf8'), new RegExp(`^key=${body.key}\nrun=\\S+\n$`));
      assert.equal(
        readFileSync(join(outside, 'env'), 'utf8'),
        `LOCKGUARD_KEY=${body.key}\nLOCKGUARD_RUN=${body.dir}\n`,
      );
    } else {
      assert.equal(body.exitCode, 2);
      const code = body.error?.code ?? '';
      assert.match(code, /^ERR_LOCKGUARD_/);
      assert.equal(existsSync(join(outside, 'keys', 'key')), false);
      assert.equal(readFileSync(output, 'utf8'), `save=false\nerror=${code}\n`);
      assert.equal(readFileSync(join(outside, 'env'), 'utf8'), `LOCKGUARD_SAVE=false\nLOCKGUARD_ERROR=${code}\n`);
    }
  });
}

test('snapshot --key-file refuses the ledger, a file the key folds, the workspace itself and an unwritable path, recording no run', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  for (const bad of ['.lockguard/key', '.lockguard', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', '.']) {
    const result = await cli(['snapshot', '--key-file', bad], root);
    assert.equal(result.code, 2, bad);
    assert.match(
      result.stderr,
      /--key-file ".*" (is inside \.lockguard\/|is a file the key folds|is not a file path)/,
      bad,
    );
    assert.match(result.stderr, /Write the key outside the checkout/);
  }
  assert.equal(existsSync(join(root, '.lockguard', 'runs')), false, 'no run was recorded');
  // A folder where the file should be: exit 2 naming it, never a stack trace.
  mkdirSync(join(root, 'adir'));
  const folder = await cli(['snapshot', '--key-file', 'adir'], root);
  assert.equal(folder.code, 2);
  assert.match(folder.stderr, /Cannot write --key-file: ".*adir" is a folder, not a file/);
  assert.doesNotMatch(folder.stderr, /\n\s+at /);
  // Under a file (a folder cannot be made there): exit 2 too, and nothing left behind.
  const underFile = await cli(['snapshot', '--key-file', 'package.json/key'], root);
  assert.equal(underFile.code, 2);
  assert.match(underFile.stderr, /Cannot write --key-file: /);
  assert.match(underFile.stderr, /Give --key-file the path of a regular file/);
  assert.equal(existsSync(join(root, '.lockguard', 'runs')), false, 'a key file that cannot be written records no run');
});

test('in CI, snapshot warns when an input differs from HEAD (GitLab keys on the commit); a clean tree or no CI says nothing', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const git = (...args: string[]): void => {
    const result = spawnSync('git', ['-c', 'user.email=ci@example.test', '-c', 'user.name=ci', ...args], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.equal(result.status, 0, result.stderr);
  };
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'workspace');
  const ci = { CI: 'true', PATH: process.env['PATH'] ?? '' };
  const warning =
    /lockguard: warning: (.+) differs? from HEAD in the working tree: a cache keyed on the commit \(GitLab's cache:key:files\) folds HEAD's bytes/;
  const clean = await cli(['snapshot'], root, ci);
  assert.equal(clean.code, 0, clean.stderr);
  assert.doesNotMatch(clean.stderr, warning);
  writeFileSync(join(root, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n\n  packages/a: {}\n");
  writeFileSync(join(root, 'README.md'), 'not an input\n');
  const changed = await cli(['snapshot'], root, ci);
  assert.equal(changed.code, 0, changed.stderr);
  assert.equal(warning.exec(changed.stderr)?.[1], 'pnpm-lock.yaml');
  const local = await cli(['snapshot'], root, { PATH: ci.PATH });
  assert.doesNotMatch(local.stderr, warning);
});

test('annotations name the moved file from the checkout ($GITHUB_WORKSPACE) when the workspace is a folder inside it', async (t) => {
  const checkout = tempWorkspace(t, { web: pnpmTree() });
  const root = join(checkout, 'web');
  assert.equal((await cli(['snapshot'], root)).code, 0);
  writeFileSync(join(root, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n\n  packages/a: {}\n");
  const result = await cli(['verify'], root, { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: checkout });
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /^::error file=web\/pnpm-lock\.yaml,title=lockguard%3A the cache save is refused::pnpm-lock\.yaml was rewritten since the snapshot/m,
  );
});
