// The GitLab CI recipe (examples/gitlab-ci/) run by gitlab-ci-local 4.75.1 (a pinned devDependency) under
// its Node 22 (the pinned .ci/nodes build, installed by npm test's pretest, .ci/nodes/ensure.mjs), shell
// executor with --shell-isolation: the mode in which it implements `cache:` (restored before the script,
// saved after it under the key computed from the checkout's lockfile, overwritten, only on success with `when: on_success`).
//
// One small real pnpm workspace in a git repo (pnpm 10.34.8 from `packageManager`, offline: its one
// dependency is a vendored tarball). Its `build` task is the whole story: it reuses `.build-cache/app.txt`
// when the cache restored one, else builds it from the installed `dep`; when the commit holds a `MOVE`
// file, it first runs `pnpm add` of another dep version (the task that rewrites the lockfile) and rebuilds.
// Pipelines run in order on that one repository (commits: clean, MOVE added, MOVE removed), first with the
// recipe's lockguard lines removed (the poisoning), then with the recipe as written.
//
// The job's `corepack enable` runs a no-op `corepack` first on PATH: pnpm is already there (the pinned
// pnpm 10), and corepack would fetch it from the network. `$LOCKGUARD` (npx in the recipe) is set with
// --variable to the built lockguard, the way the recipe's variable is meant to be swapped.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import { isolatedEnv } from '../helpers/env.js';
import { REPO_ROOT, localPackage, PNPM10 } from '../helpers/tools.js';
import { fileDigests, writeTree } from '../helpers/workspace.js';

const RECIPE = readFileSync(join(REPO_ROOT, 'examples', 'gitlab-ci', '.gitlab-ci.yml'), 'utf8');
const ALLOW_FAILURE = readFileSync(join(REPO_ROOT, 'examples', 'gitlab-ci', 'allow-failure.gitlab-ci.yml'), 'utf8');
const TEMPLATE = readFileSync(join(REPO_ROOT, 'lib', 'ci', 'gitlab', 'lockguard.gitlab-ci.yml'), 'utf8');
/** A job that uses the include template (lib/ci/gitlab/), as its header shows: two caches, one gate. */
const TEMPLATE_JOB = `include:
  - local: .gitlab/lockguard.gitlab-ci.yml
    inputs:
      lockguard: $LOCKGUARD
      build-paths: [.build-cache/]

default:
  before_script:
    - corepack enable

build:
  extends: .lockguard-caches
  script:
    - pnpm install --frozen-lockfile --store-dir .pnpm-store
    - !reference [.lockguard, snapshot]
    - pnpm -r run build
    - !reference [.lockguard, verify]
  artifacts:
    when: always
    reports:
      dotenv: lockguard.env
`;
const GITLAB_CI_LOCAL = join(REPO_ROOT, 'node_modules', 'gitlab-ci-local', 'dist', 'index.js');
const NODE22 = join(REPO_ROOT, '.ci', 'nodes', 'node_modules', 'node22', 'bin', 'node');

const BUILD_JS = `// The build task: reuse the cached output, or build it from the installed dep; MOVE rewrites the lockfile first.
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const root = path.resolve(__dirname, '..', '..');
const out = path.join(root, '.build-cache', 'app.txt');
if (fs.existsSync(path.join(root, 'MOVE'))) {
  execFileSync('pnpm', ['add', 'dep@file:../../vendor/dep-6.0.0.tgz', '--store-dir', path.join(root, '.pnpm-store')], { stdio: 'inherit' });
  fs.rmSync(out, { force: true });
}
if (fs.existsSync(out)) {
  console.log('app build: reused ' + fs.readFileSync(out, 'utf8').trim());
} else {
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, 'built with dep ' + require('dep') + '\\n');
  console.log('app build: built with dep ' + require('dep'));
}
`;

interface Pipeline {
  readonly code: number;
  readonly output: string;
}

let shared = '';
let repo = '';
let env: Record<string, string> = {};

function sh(args: readonly string[], cwd = repo): string {
  const [command = '', ...rest] = args;
  const result = spawnSync(command, rest, { cwd, env, encoding: 'utf8', timeout: 120_000 });
  assert.equal(result.status, 0, `${args.join(' ')} failed in ${cwd}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

function commit(message: string): void {
  sh(['git', 'add', '-A']);
  sh(['git', '-c', 'user.email=ci@example.test', '-c', 'user.name=ci', 'commit', '-qm', message]);
}

/** One pipeline of `file` (the repo's .gitlab-ci.yml unless named), as gitlab-ci-local runs it. */
function pipeline(file = '.gitlab-ci.yml', jobs: readonly string[] = []): Pipeline {
  const args = [
    GITLAB_CI_LOCAL,
    '--file',
    file,
    '--shell-isolation',
    '--force-shell-executor',
    '--no-color',
    '--variable',
    `LOCKGUARD=${join(shared, 'bin', 'lockguard')}`,
    ...jobs,
  ];
  const result = spawnSync(NODE22, args, { cwd: repo, env, encoding: 'utf8', timeout: 300_000 });
  return { code: result.status ?? -1, output: `${result.stdout}\n${result.stderr}` };
}

/** The saved cache entries: key folder → its files' digests. */
function caches(): Map<string, Map<string, string>> {
  const base = join(repo, '.gitlab-ci-local', 'cache');
  const out = new Map<string, Map<string, string>>();
  if (!existsSync(base)) return out;
  for (const name of readdirSync(base)) out.set(name, fileDigests(join(base, name)));
  return out;
}

/** The one cache entry's build output (there is one key: every commit has the same lockfile). */
function cachedBuild(): string | undefined {
  const all = [...caches().keys()];
  assert.ok(all.length <= 1, `one cache key, got ${all.join(', ')}`);
  const [name] = all;
  if (name === undefined) return undefined;
  const path = join(repo, '.gitlab-ci-local', 'cache', name, '.build-cache', 'app.txt');
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** The recipe without its lockguard lines: what a team has before adopting it. */
function withoutLockguard(recipe: string): string {
  const kept = recipe.split('\n').filter((line) => !/^\s+- \$LOCKGUARD /.test(line));
  assert.equal(kept.length, recipe.split('\n').length - 2, 'the recipe has a snapshot and a verify line');
  return kept.join('\n');
}

function useCi(text: string, name = '.gitlab-ci.yml'): void {
  writeFileSync(join(repo, name), text);
}

/** The include template (as given, or a variant) under .gitlab/, and the job that includes it. */
function useTemplate(template = TEMPLATE, job = TEMPLATE_JOB): void {
  mkdirSync(join(repo, '.gitlab'), { recursive: true });
  useCi(template, '.gitlab/lockguard.gitlab-ci.yml');
  useCi(job);
}

/** The three commits every scenario runs: clean, a commit whose build moves the lockfile, clean again. */
function scenario(run: () => Pipeline, pipelines = 3): Pipeline[] {
  rmSync(join(repo, '.gitlab-ci-local'), { recursive: true, force: true });
  rmSync(join(repo, 'MOVE'), { force: true });
  commit('clean');
  const clean = run();
  writeFileSync(join(repo, 'MOVE'), 'the build task runs pnpm add\n');
  commit('a build that moves the lockfile');
  const moving = run();
  if (pipelines === 2) return [clean, moving];
  rmSync(join(repo, 'MOVE'));
  commit('clean again');
  const later = run();
  return [clean, moving, later];
}

describe('the GitLab CI recipe under gitlab-ci-local', { timeout: 600_000 }, () => {
  after(() => rmSync(shared, { recursive: true, force: true }));
  before(() => {
    assert.ok(
      existsSync(NODE22),
      `Node 22 is missing at ${NODE22}: npm test installs it first (node .ci/nodes/ensure.mjs)`,
    );
    assert.ok(existsSync(GITLAB_CI_LOCAL), 'gitlab-ci-local is a devDependency: run npm ci');
    assert.equal(
      spawnSync('rsync', ['--version'], { stdio: 'ignore' }).status,
      0,
      "rsync is missing: gitlab-ci-local's shell executor copies the checkout with it (npm test installs it first: node .ci/tools.mjs)",
    );
    shared = realpathSync(mkdtempSync(join(tmpdir(), 'lockguard-gitlab-')));
    const bin = join(shared, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'lockguard'), `#!/bin/sh\nexec node ${JSON.stringify(BIN)} "$@"\n`);
    writeFileSync(join(bin, 'pnpm'), `#!/bin/sh\nexec node ${JSON.stringify(PNPM10.prefix[0])} "$@"\n`);
    writeFileSync(
      join(bin, 'corepack'),
      '#!/bin/sh\n# pnpm is already first on PATH (the pinned pnpm 10); corepack would fetch it.\nexit 0\n',
    );
    for (const name of ['lockguard', 'pnpm', 'corepack']) chmodSync(join(bin, name), 0o755);
    env = isolatedEnv(shared, { path: [bin, join(NODE22, '..')] });
    const tarballs = join(shared, 'tarballs');
    const dep7 = localPackage(tarballs, 'dep', '7.0.0', env);
    const dep6 = localPackage(tarballs, 'dep', '6.0.0', env);
    repo = join(shared, 'repo');
    writeTree(repo, {
      '.gitignore': 'node_modules/\n.pnpm-store/\n.build-cache/\n.lockguard/\n.gitlab-ci-local/\nlockguard.env\n',
      'package.json': `${JSON.stringify({ name: 'root', private: true, packageManager: 'pnpm@10.34.8' }, null, 2)}\n`,
      'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
      vendor: {},
      packages: {
        app: {
          'package.json': `${JSON.stringify({ name: 'app', version: '1.0.0', scripts: { build: 'node build.js', test: 'node -e "require(\'dep\')"' }, dependencies: { dep: 'file:../../vendor/dep-7.0.0.tgz' } }, null, 2)}\n`,
          'build.js': BUILD_JS,
        },
      },
    });
    cpSync(dep7, join(repo, 'vendor', 'dep-7.0.0.tgz'));
    cpSync(dep6, join(repo, 'vendor', 'dep-6.0.0.tgz'));
    sh(['pnpm', 'install', '--lockfile-only', '--store-dir', join(shared, 'lock-store')]);
    sh(['git', 'init', '-q', '-b', 'main']);
    // gitlab-ci-local reads the remote for CI_PROJECT_* (no network is used).
    sh(['git', 'remote', 'add', 'origin', 'https://gitlab.example.test/group/repo.git']);
    commit('a pnpm workspace');
  });

  test('without lockguard: the moving job saves its build under the old key, and a later pipeline restores it', () => {
    useCi(withoutLockguard(RECIPE));
    const [clean, moving, later] = scenario(() => pipeline('.gitlab-ci.yml', ['build']));
    assert.equal(clean?.code, 0, clean?.output);
    assert.match(clean?.output ?? '', /app build: built with dep 7\.0\.0/);
    assert.equal(moving?.code, 0, moving?.output);
    assert.match(moving?.output ?? '', /app build: built with dep 6\.0\.0/);
    // The lockfile the job ended with says dep 6; the key is the commit's (dep 7): the stale build is saved there.
    assert.equal(cachedBuild(), 'built with dep 6.0.0\n');
    assert.equal(later?.code, 0, later?.output);
    assert.match(
      later?.output ?? '',
      /app build: reused built with dep 6\.0\.0/,
      'the later pipeline, on the dep 7 lockfile, restored the dep 6 build',
    );
  });

  test('with the recipe: the moving job fails and saves nothing (the good cache byte for byte); a later pipeline restores the good build', () => {
    useCi(RECIPE);
    let good = new Map<string, Map<string, string>>();
    const [clean, moving, later] = scenario(() => {
      const result = pipeline('.gitlab-ci.yml', ['build']);
      if (good.size === 0) good = caches();
      return result;
    });
    assert.equal(clean?.code, 0, clean?.output);
    assert.match(clean?.output ?? '', /nothing moved since/);
    assert.equal(good.size, 1, 'the clean job saved the cache');
    assert.ok([...good.values()][0]?.has('.build-cache/app.txt'));
    assert.notEqual(moving?.code, 0, 'the moving job fails');
    assert.match(moving?.output ?? '', /pnpm-lock\.yaml was rewritten since the snapshot/);
    assert.doesNotMatch(moving?.output ?? '', /cache created in/);
    assert.deepEqual(caches(), good, "the cache is the clean job's, byte for byte");
    assert.equal(cachedBuild(), 'built with dep 7.0.0\n');
    assert.equal(later?.code, 0, later?.output);
    assert.match(later?.output ?? '', /app build: reused built with dep 7\.0\.0/);
    // The dotenv report of the clean job (artifacts:reports:dotenv) says the save may happen.
    assert.match(
      readFileSync(join(repo, '.gitlab-ci-local', 'builds', 'build', 'lockguard.env'), 'utf8'),
      /^LOCKGUARD_SAVE=true\nLOCKGUARD_KEY=[0-9a-f]{64}\nLOCKGUARD_MOVED=\n$/,
    );
  });

  /** The saved cache whose key starts with `prefix`: its files' digests. */
  const cacheOf = (all: Map<string, Map<string, string>>, prefix: string): Map<string, string> | undefined =>
    [...all].find(([name]) => name.replace(/^\d+_/, '').startsWith(prefix))?.[1];

  test('the include template (spec:inputs, two caches): the moving job fails and saves neither; a later pipeline restores both', () => {
    useTemplate();
    let good = new Map<string, Map<string, string>>();
    const [clean, moving, later] = scenario(() => {
      const result = pipeline('.gitlab-ci.yml', ['build']);
      if (good.size === 0) good = caches();
      return result;
    });
    assert.equal(clean?.code, 0, clean?.output);
    assert.match(clean?.output ?? '', /nothing moved since/);
    assert.deepEqual([...good.keys()].map((name) => name.replace(/^\d+_/, '').replace(/-[^-]+$/, '')).sort(), [
      'lockguard-build',
      'lockguard-store',
    ]);
    assert.ok(cacheOf(good, 'lockguard-build')?.has('.build-cache/app.txt'), 'the build cache holds the build');
    assert.ok((cacheOf(good, 'lockguard-store')?.size ?? 0) > 0, 'the store cache holds the store');
    assert.notEqual(moving?.code, 0, 'the moving job fails');
    assert.match(moving?.output ?? '', /pnpm-lock\.yaml was rewritten since the snapshot/);
    assert.deepEqual(caches(), good, "both caches are the clean job's, byte for byte");
    assert.equal(later?.code, 0, later?.output);
    assert.match(later?.output ?? '', /app build: reused built with dep 7\.0\.0/);
  });

  test('the include template: without its verify line the moving job saves its build under the old key (the run rejects the mutant); an input of the wrong type is refused', () => {
    const verify = '    - $[[ inputs.lockguard ]] verify --dotenv lockguard.env';
    assert.ok(TEMPLATE.includes(verify));
    useTemplate(TEMPLATE.replace(verify, '    - "true"'));
    const [clean, moving] = scenario(() => pipeline('.gitlab-ci.yml', ['build']), 2);
    assert.equal(clean?.code, 0, clean?.output);
    assert.equal(moving?.code, 0, moving?.output);
    const build = [...caches().keys()].find((name) => name.replace(/^\d+_/, '').startsWith('lockguard-build'));
    assert.equal(
      readFileSync(join(repo, '.gitlab-ci-local', 'cache', build ?? 'none', '.build-cache', 'app.txt'), 'utf8'),
      'built with dep 6.0.0\n',
      'the mutant saved the moved build under the commit lockfile key',
    );
    // gitlab-ci-local checks the inputs against the template's spec, as GitLab does (an input of the wrong type).
    useTemplate(
      TEMPLATE,
      TEMPLATE_JOB.replace('      build-paths: [.build-cache/]', '      build-paths: .build-cache/'),
    );
    const bad = pipeline('.gitlab-ci.yml', ['build']);
    assert.notEqual(bad.code, 0, bad.output);
    assert.match(bad.output, /`build-paths` input: provided value is not a array/);
    rmSync(join(repo, '.gitlab'), { recursive: true, force: true });
  });

  test('the allow-failure variant: the moving pipeline passes with a warning and saves nothing', () => {
    useCi(ALLOW_FAILURE, 'allow-failure.gitlab-ci.yml');
    let good = new Map<string, Map<string, string>>();
    const [clean, moving] = scenario(() => {
      const result = pipeline('allow-failure.gitlab-ci.yml');
      if (good.size === 0) good = caches();
      return result;
    }, 2);
    assert.equal(clean?.code, 0, clean?.output);
    assert.equal(good.size, 1, 'the clean job saved the cache');
    assert.equal(moving?.code, 0, `the pipeline passes:\n${moving?.output}`);
    assert.match(moving?.output ?? '', /WARN/);
    assert.doesNotMatch(moving?.output ?? '', /cache created in/);
    assert.deepEqual(caches(), good, 'nothing saved');
    assert.match(
      readFileSync(join(repo, '.gitlab-ci-local', 'builds', 'build', 'lockguard.env'), 'utf8'),
      /^LOCKGUARD_SAVE=false\nLOCKGUARD_KEY=[0-9a-f]{64}\nLOCKGUARD_MOVED=pnpm-lock\.yaml\n$/,
    );
  });
});
