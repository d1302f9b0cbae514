// Several caches in one GitHub job (issue 28): the pnpm store's gate and the runner cache's gate, each its
// own named snapshot, in a simulated job (github-job.ts: the real $GITHUB_ENV / $GITHUB_OUTPUT /
// $GITHUB_STEP_SUMMARY files the real built bin writes, handed from step to step as the runner does).
// A `pnpm add` between the two snapshots is caught by the first gate; the second snapshot can no longer
// take the first one's place (before: a second snapshot overwrote LOCKGUARD_RUN and a plain verify said
// "nothing moved ... the cache may be saved").
//
// One real pnpm 10 workspace (offline, a local tarball dependency), installed once; each test clones it.

import assert from 'node:assert/strict';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import { isolatedEnv } from '../helpers/env.js';
import { localPackage, mustRun, PNPM10 } from '../helpers/tools.js';
import { writeTree } from '../helpers/workspace.js';
import { githubJob, runStep, type GithubJob } from './github-job.js';

let shared = '';
let base = '';
let env: Record<string, string> = {};
let cases = 0;

before(() => {
  shared = realpathSync(mkdtempSync(join(tmpdir(), 'lockguard-named-runs-')));
  const bin = join(shared, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'lockguard'), `#!/bin/sh\nexec "${process.execPath}" ${JSON.stringify(BIN)} "$@"\n`);
  writeFileSync(join(bin, 'pnpm'), `#!/bin/sh\nexec "${process.execPath}" ${JSON.stringify(PNPM10.prefix[0])} "$@"\n`);
  for (const name of ['lockguard', 'pnpm']) chmodSync(join(bin, name), 0o755);
  env = isolatedEnv(shared, { path: [bin] });
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

/** A fresh checkout of the installed workspace and a job for it. */
function checkout(): { root: string; job: GithubJob } {
  const root = join(shared, `case-${++cases}`);
  cpSync(base, root, { recursive: true, verbatimSymlinks: true });
  return { root, job: githubJob(join(shared, `job-${cases}`), env) };
}

const MOVE = 'cd packages/app && pnpm add dep@file:../../vendor/dep-6.0.0.tgz';

describe('two caches in one GitHub job', () => {
  test('named gates: the pnpm add between the two snapshots is caught by the first gate, the second gate saves', () => {
    const { root, job } = checkout();
    const step = (script: string, id?: string) => runStep(job, script, { cwd: root, ...(id ? { id } : {}) });
    assert.equal(step('lockguard snapshot --name store --github-output', 'store').code, 0);
    assert.match(job.env['LOCKGUARD_RUN_STORE'] ?? '', /[\\/]\.lockguard[\\/]runs[\\/]/);
    assert.equal(job.env['LOCKGUARD_KEY_STORE'], job.outputs.get('store')?.['key']);
    assert.equal(step('pnpm install --frozen-lockfile').code, 0);
    assert.equal(step(MOVE).code, 0, 'the step that rewrites the lockfile');
    const turbo = step('lockguard snapshot --name turbo --scope full --github-output', 'turbo');
    assert.equal(turbo.code, 0, turbo.stderr);
    assert.notEqual(job.env['LOCKGUARD_RUN_TURBO'], job.env['LOCKGUARD_RUN_STORE']);
    assert.equal(job.env['LOCKGUARD_RUN'], undefined);

    const store = step('lockguard verify --name store --github-output', 'gate-store');
    assert.equal(store.code, 1, store.stderr);
    assert.equal(store.outputs['save'], 'false');
    assert.ok(store.outputs['moved']?.split(',').includes('pnpm-lock.yaml'), store.outputs['moved']);
    const runner = step('lockguard verify --name turbo --github-output', 'gate-turbo');
    assert.equal(runner.code, 0, runner.stderr);
    assert.deepEqual(runner.outputs, { save: 'true', moved: '' });

    // A gate without a name does not pick one of the two.
    const plain = step('lockguard verify --github-output');
    assert.equal(plain.code, 2);
    assert.match(plain.stderr, /holds 2 named runs \(STORE, TURBO\) and verify was given no --name/);
    assert.equal(plain.outputs['save'], 'false');
    // One summary section: the refused gate's (a green gate writes none by default).
    const sections = job.summary.match(/^### .*$/gm) ?? [];
    assert.deepEqual(sections.slice(0, 1), ['### lockguard verify --name STORE: the cache save is refused']);
    assert.equal(job.summary.includes('nothing moved'), false);
  });

  test('a second unnamed snapshot is refused and leaves the first gate its run: verify still refuses the save', () => {
    const { root, job } = checkout();
    const step = (script: string) => runStep(job, script, { cwd: root });
    assert.equal(step('lockguard snapshot --github-output').code, 0);
    const first = job.env['LOCKGUARD_RUN'];
    assert.equal(step(MOVE).code, 0);
    const second = step('lockguard snapshot --scope full --github-output');
    assert.equal(second.code, 2);
    assert.match(
      second.stderr,
      /the job already holds LOCKGUARD_RUN \(an earlier snapshot\): this snapshot would replace/,
    );
    assert.match(second.stderr, /lockguard snapshot --name store/);
    assert.equal(job.env['LOCKGUARD_RUN'], first, 'the first run is still the one later steps join');
    const runs = readdirSync(join(root, '.lockguard', 'runs'));
    assert.equal(runs.length, 1, 'the refused snapshot recorded no run');
    const gate = step('lockguard verify --github-output');
    assert.equal(gate.code, 1, gate.stderr);
    assert.equal(gate.outputs['save'], 'false');
  });

  test('inside one step: a second snapshot of the same name is refused from the $GITHUB_ENV file alone', () => {
    const { root, job } = checkout();
    const both = runStep(
      job,
      'lockguard snapshot --name store --github-output\nlockguard snapshot --name Store --github-output',
      { cwd: root },
    );
    assert.equal(both.code, 2);
    assert.match(both.stderr, /this step already wrote to \$GITHUB_ENV LOCKGUARD_RUN_STORE/);
    // Named runs are also found in the ledger without the environment (GitLab, CircleCI, Azure, Buildkite).
    const bare = { ...job, env: { ...env } };
    assert.equal(runStep(bare, MOVE, { cwd: root }).code, 0);
    const gate = runStep(bare, 'lockguard verify --name store', { cwd: root });
    assert.equal(gate.code, 1, gate.stderr);
    const guess = runStep(bare, 'lockguard verify', { cwd: root });
    assert.equal(guess.code, 2);
    assert.match(guess.stderr, /The latest run is the snapshot named STORE and verify was given no --name/);
    const none = runStep(bare, 'lockguard verify --name turbo', { cwd: root });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /No lockguard snapshot named TURBO found/);
  });

  test('--summary always writes the green gate its section; prune keeps every named run', () => {
    const { root, job } = checkout();
    const step = (script: string) => runStep(job, script, { cwd: root });
    assert.equal(step('lockguard snapshot --name store --github-output').code, 0);
    assert.equal(step('lockguard verify --name store').code, 0);
    assert.equal(job.summary, '');
    assert.equal(step('lockguard verify --name store --summary always').code, 0);
    assert.match(job.summary, /^### lockguard verify --name STORE: nothing moved, the cache may be saved\n/);
    assert.equal(step('lockguard verify --name store --summary sometimes').code, 2);
    assert.equal(step('lockguard snapshot --name turbo --github-output').code, 0);
    assert.equal(step('lockguard snapshot').code, 0);
    const pruned = step('lockguard prune --keep 0');
    assert.equal(pruned.code, 0, pruned.stderr);
    // The newest snapshot is kept anyway; the two named ones because the job names them.
    assert.equal(readdirSync(join(root, '.lockguard', 'runs')).length, 3, pruned.stdout);
    assert.match(pruned.stdout, /2 named by LOCKGUARD_RUN/);
  });
});
