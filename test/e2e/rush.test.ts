// Rush 5.179.0 in pnpm mode, end to end (issue 32): a Rush repository is a workspace whose lockfile is
// common/config/rush/pnpm-lock.yaml (rush.json at the root, no pnpm-workspace.yaml, no root lockfile).
// `snapshot` then `verify` are green; a lockfile change is a move verify reports; `key --projects` names the
// projects by their folders and gives b (which reaches is-number) a new slice and a the same; `run -- rush
// build` says what Rush's build cache does (keys each project on its own dependencies) and exits with Rush's
// code, and an install inside `rush build` is refused by Rush itself ("Another Rush command is already
// running"); the pre-run check compares Rush's lockfile with pnpm's marker in common/temp; `doctor` from a
// project folder says the same, and never "No workspace found"; `init` writes no hook Rush would never run.
// One install (the fixture, test/fixtures/rush/, installed with the real Rush from the npm registry), reused
// by every test in order; HOME (where Rush keeps its pnpm) and XDG_* are isolated in the temp dir. Last, what
// the line claims of Rush's own keys: a lockfile-only bump reaching b rebuilds exactly b.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cliProcess, type CliResult } from '../helpers/cli.js';
import { isolatedEnv } from '../helpers/env.js';
import { repoRoot } from '../helpers/fixtures.js';

const RUSH = join(repoRoot(), 'node_modules/@microsoft/rush/bin/rush');
const FIXTURE = join(repoRoot(), 'test/fixtures/rush');
const LOCK = 'common/config/rush/pnpm-lock.yaml';
const RUSH_WORDS =
  "Rush (rush.json): Rush's build cache (common/temp/build-cache) keys each project on its own dependencies (shrinkwrap-deps.json) and Rush refuses its installs (rush install, update, add) during a build, so there is nothing to withhold; lockguard leaves its cache alone";

let tmp = '';
let root = '';
let env: Record<string, string> = {};

function sh(argv: readonly string[], cwd = root): { status: number | null; out: string } {
  const [command = '', ...args] = argv;
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

function ok(argv: readonly string[]): string {
  const result = sh(argv);
  assert.equal(result.status, 0, `${argv.join(' ')}\n${result.out}`);
  return result.out;
}

const lockguard = (argv: readonly string[], cwd = root): CliResult => cliProcess(argv, cwd, env, 120_000);

/** `key --projects` as {folder: digest}. */
function slices(): Record<string, string> {
  const result = lockguard(['key', '--projects']);
  assert.equal(result.code, 0, result.stderr);
  return Object.fromEntries(
    result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/))
      .map(([digest = '', folder = '']) => [folder, digest]),
  );
}

before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'lockguard-rush-'));
  root = join(tmp, 'repo');
  cpSync(FIXTURE, root, { recursive: true });
  rmSync(join(root, 'bumped'), { recursive: true });
  rmSync(join(root, 'README.md'));
  writeFileSync(join(root, '.gitignore'), 'common/temp/\nnode_modules/\ndist/\n.rush/\nrush-logs/\n');
  // Rush fetches its pnpm and the packages from the registry: reachable, everything else under tmp.
  env = isolatedEnv(tmp, {
    offline: false,
    extra: {
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@lockguard.invalid',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@lockguard.invalid',
    },
  });
  ok(['git', 'init', '-q']);
  ok(['git', 'add', '-A']);
  ok(['git', 'commit', '-qm', 'rush repository']);
  ok([process.execPath, RUSH, 'install']);
});

after(() => {
  if (tmp !== '') rmSync(tmp, { recursive: true, force: true });
});

test('Rush: snapshot then verify is green; a lockfile change is a move verify reports; key --projects moves b only', () => {
  const before = slices();
  assert.deepEqual(Object.keys(before).sort(), ['common/temp', 'packages/a', 'packages/b']);
  {
    // The lockfile as Rush wrote it: nothing moved.
    const snapshot = lockguard(['snapshot']);
    assert.equal(snapshot.code, 0, snapshot.stderr);
    const verify = lockguard(['verify']);
    assert.equal(verify.code, 0, verify.stderr);
    assert.match(`${verify.stdout}${verify.stderr}`, /nothing moved since/);
  }
  copyFileSync(join(FIXTURE, 'bumped/pnpm-lock.yaml'), join(root, LOCK));
  try {
    // b's is-number moves to 6.0.0: verify refuses the save and names Rush's lockfile and b's slice.
    const verify = lockguard(['verify']);
    assert.equal(verify.code, 1, verify.stderr);
    assert.match(
      `${verify.stdout}${verify.stderr}`,
      /common\/config\/rush\/pnpm-lock\.yaml was rewritten since the snapshot/,
    );
    assert.match(
      `${verify.stdout}${verify.stderr}`,
      /the slice of packages\/b changed \(is-number 7\.0\.0 → 6\.0\.0\)/,
    );
    const now = slices();
    assert.notEqual(now['packages/b'], before['packages/b'], 'b reaches is-number: a new slice');
    assert.equal(now['packages/a'], before['packages/a'], 'a reaches nothing that moved: the same slice');
    // The pre-run check compares Rush's lockfile with pnpm's marker in common/temp, and names Rush's install.
    const run = lockguard(['run', '--', 'true']);
    assert.equal(run.code, 3, run.stderr);
    assert.match(
      run.stderr,
      /common\/temp\/node_modules\/\.pnpm\/lock\.yaml: importers entry \.\.\/\.\.\/packages\/b differs/,
    );
    assert.match(run.stderr, /Install first \(rush install\)/);
  } finally {
    ok(['git', 'checkout', '--', LOCK]);
  }
});

test('Rush: run -- rush build says what Rush does and exits with its code; an install inside the build is refused by Rush', () => {
  {
    // A build that moves nothing: Rush's own code (0), the line, no withholding, Rush's cache kept.
    const build = lockguard(['run', '--', process.execPath, RUSH, 'build']);
    assert.equal(build.code, 0, build.stderr);
    assert.ok(build.stderr.includes(`[lockguard] ${RUSH_WORDS}`), build.stderr);
    assert.doesNotMatch(build.stderr, /not guarded|withheld/);
    assert.equal(readFileSync(join(root, 'packages/b/dist/out.txt'), 'utf8'), '7.0.0\n');
    const again = lockguard(['run', '--', process.execPath, RUSH, 'build', '--verbose']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /"b" was restored from the build cache/);
  }
  writeFileSync(join(root, 'install-inside'), RUSH);
  try {
    // a's build runs rush install: Rush refuses it, the build fails, lockguard exits with Rush's code.
    const build = lockguard(['run', '--', process.execPath, RUSH, 'rebuild']);
    assert.equal(build.code, 1, build.stderr);
    assert.match(`${build.stdout}${build.stderr}`, /Another Rush command is already running/);
    assert.ok(build.stderr.includes(`[lockguard] ${RUSH_WORDS}`), build.stderr);
    assert.doesNotMatch(build.stderr, /during the run/, 'nothing moved');
  } finally {
    rmSync(join(root, 'install-inside'));
  }
});

test('Rush: doctor from a project folder finds the repository and says what Rush does; no "No workspace found"; init writes no hook', () => {
  const doctor = lockguard(['doctor', '--json'], join(root, 'packages/a'));
  assert.doesNotMatch(doctor.stderr, /No workspace found/);
  const findings = JSON.parse(doctor.stdout) as { check: string; level: string; detail: string }[];
  const rush = findings.filter((finding) => finding.check === 'rush');
  assert.deepEqual(rush, [{ check: 'rush', level: 'ok', detail: RUSH_WORDS }]);
  const table = findings.find((finding) => finding.check === 'table');
  assert.equal(table?.level, 'ok', JSON.stringify(table));
  assert.match(table?.detail ?? '', /common\/config\/rush\/pnpm-lock\.yaml/);
  assert.deepEqual(
    findings.find((finding) => finding.check === 'install'),
    { check: 'install', level: 'ok', detail: 'the installed tree holds what the lockfile says' },
  );
  assert.equal(findings.find((finding) => finding.check === 'hooks')?.level, 'ok');
  assert.ok(!findings.some((finding) => finding.check === 'pnpmfile'), 'no advice to add a pnpmfile Rush never loads');
  {
    // plan names Rush's lockfile, not a root one.
    const plan = lockguard(['plan', '--', process.execPath, RUSH, 'build']);
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /lockfile common\/config\/rush\/pnpm-lock\.yaml/);
  }
  {
    // init writes no hook Rush would never run (a root .pnpmfile.cjs, root scripts), and says why.
    const init = lockguard(['init'], join(root, 'packages/a'));
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stdout, /Rush: no install hook written: Rush installs with its own pnpm and pnpmfile/);
    assert.equal(sh(['git', 'status', '--porcelain', '--untracked-files=all']).out, ' M .gitignore\n');
  }
});

test("Rush's own keys: a lockfile-only bump reaching b rebuilds exactly b (what the line says, measured)", () => {
  // b's is-number as a range, the lockfile Rush wrote for it (7.0.0): built once, a restored from the cache.
  copyFileSync(join(FIXTURE, 'lockfile-only/package.json'), join(root, 'packages/b/package.json'));
  copyFileSync(join(FIXTURE, 'lockfile-only/pnpm-lock.yaml'), join(root, LOCK));
  ok(['git', 'add', '-A']);
  ok(['git', 'commit', '-qm', 'b: a range']);
  ok([process.execPath, RUSH, 'install']);
  ok([process.execPath, RUSH, 'build']);
  assert.equal(readFileSync(join(root, 'packages/b/dist/out.txt'), 'utf8'), '7.0.0\n');
  // The same manifests, the lockfile alone moves b to 6.0.0: Rush restores a and rebuilds b with what is installed.
  copyFileSync(join(FIXTURE, 'lockfile-only/pnpm-lock-6.yaml'), join(root, LOCK));
  ok(['git', 'add', '-A']);
  ok(['git', 'commit', '-qm', 'lockfile-only bump']);
  ok([process.execPath, RUSH, 'install']);
  const build = ok([process.execPath, RUSH, 'build', '--verbose']);
  assert.match(build, /"a" was restored from the build cache/);
  assert.match(build, /"b" completed successfully/);
  assert.equal(readFileSync(join(root, 'packages/b/dist/out.txt'), 'utf8'), '6.0.0\n');
  assert.match(readFileSync(join(root, 'packages/b/.rush/temp/shrinkwrap-deps.json'), 'utf8'), /is-number@6\.0\.0/);
});
