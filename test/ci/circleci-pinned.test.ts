// examples/circleci/config.yml's lockguard steps run as CircleCI runs a `run:` step (`/bin/bash -eo pipefail`,
// `$BASH_ENV` sourced first, written by an earlier step), in order, on a pnpm workspace whose lockfile real
// pnpm 10 wrote with lockguard as a root devDependency from a loopback registry serving this repository's
// `npm pack`: the pinned step installs exactly the tarball the lockfile's integrity names (no `npx`, nothing
// into the checkout, none of lockguard's dependencies), snapshot and verify run from it, a lockfile move in
// the job makes verify exit 1 (so `save_cache`, `when: on_success`, never runs). Mutants: a registry serving
// other bytes under the pinned version, a lockfile without lockguard: the step fails, nothing installed.
// The recipe's /tmp paths are moved under the test's temp folder (a CircleCI job has its own /tmp).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { isolatedEnv } from '../helpers/env.js';
import { repoRoot } from '../helpers/fixtures.js';
import { startStaticRegistry } from '../helpers/static-registry.js';
import { toolBin } from '../helpers/tool-shims.js';
import { mustRun, NPM } from '../helpers/tools.js';
import { tempWorkspace, writeTree } from '../helpers/workspace.js';

const CONFIG = readFileSync(join(repoRoot(), 'examples', 'circleci', 'config.yml'), 'utf8');

interface Job {
  readonly dir: string;
  readonly root: string;
  readonly env: Record<string, string>;
  /** The registry's copy of lockguard's tarball (a mutant overwrites it). */
  readonly served: string;
}

/** The `run:` step of the build job named `name`, its /tmp paths under `dir`. */
function command(name: string, dir: string): string {
  const config = parse(CONFIG) as { jobs: { build: { steps: unknown[] } } };
  for (const step of config.jobs.build.steps) {
    const run = (step as { run?: { name?: string; command?: string } }).run;
    if (run?.name === name && run.command !== undefined) return run.command.replaceAll('/tmp/', `${dir}/tmp/`);
  }
  throw new Error(`no run step named "${name}" in examples/circleci/config.yml`);
}

/** One step as CircleCI runs it: bash -eo pipefail, $BASH_ENV sourced (bash does that for a non-interactive shell). */
function step(job: Job, name: string): { code: number | null; stderr: string; stdout: string } {
  const result = spawnSync('bash', ['-eo', 'pipefail', '-c', command(name, job.dir)], {
    cwd: job.root,
    env: { ...job.env, BASH_ENV: join(job.dir, 'bash-env') },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stderr: result.stderr, stdout: result.stdout };
}

async function job(t: Parameters<typeof tempWorkspace>[0], lockguardInLockfile = true): Promise<Job> {
  const dir = tempWorkspace(t, {}, 'lockguard-circleci-');
  const root = join(dir, 'ws');
  toolBin(join(dir, 'bin'), { pnpm: 10 });
  const env = isolatedEnv(dir, { settings: 'home', path: [join(dir, 'bin')] });
  const packed = JSON.parse(
    mustRun(NPM, ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], repoRoot(), env).stdout,
  ) as { filename: string }[];
  const manifest = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as {
    version: string;
    bin: unknown;
    engines: unknown;
  };
  // The packument names no dependencies: the pinned step reads lockguard's own entry only and installs none
  // of its dependencies (that is the point), so resolving them would only slow the test.
  const registry = await startStaticRegistry(t, dir, [
    {
      name: 'lockguard',
      version: manifest.version,
      tarball: join(dir, packed[0]?.filename ?? ''),
      manifest: { bin: manifest.bin, engines: manifest.engines },
    },
    { name: 'is-number', version: '7.0.0' },
  ]);
  writeTree(root, {
    'package.json': JSON.stringify({
      name: 'root',
      private: true,
      devDependencies: lockguardInLockfile ? { lockguard: manifest.version } : {},
    }),
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
    '.npmrc': `registry=${registry}\n`,
    packages: { a: { 'package.json': '{"name":"a","version":"1.0.0"}' } },
  });
  const install = spawnSync('pnpm', ['install', '--lockfile-only'], {
    cwd: root,
    env,
    encoding: 'utf8',
    timeout: 90_000,
  });
  assert.equal(install.status, 0, install.stderr + install.stdout);
  return { dir, root, env, served: join(dir, 'registry', 'lockguard', `lockguard-${manifest.version}.tgz`) };
}

test('CircleCI: lockguard pinned by the lockfile, snapshot and verify from it; a move in the job fails verify', async (t) => {
  const ci = await job(t);
  const before = readdirSync(ci.root).sort();
  const pinned = step(ci, 'lockguard, pinned by pnpm-lock.yaml');
  assert.equal(pinned.code, 0, pinned.stderr);
  assert.deepEqual(readdirSync(ci.root).sort(), before, 'nothing written into the checkout');
  const cli = join(ci.dir, 'tmp', 'lockguard-cli', 'package');
  assert.ok(existsSync(join(cli, 'dist', 'lockguard.cjs')), 'the bin unpacked');
  assert.ok(!existsSync(join(cli, 'node_modules')), "none of lockguard's dependencies installed");
  assert.match(readFileSync(join(ci.dir, 'bash-env'), 'utf8'), /^export LOCKGUARD="node .*\/lockguard\.cjs"$/m);

  const snapshot = step(ci, 'Snapshot the lockfile fingerprints');
  assert.equal(snapshot.code, 0, snapshot.stderr);
  const keyFile = join(ci.dir, 'tmp', 'lockguard', 'cache-key');
  const key = readFileSync(keyFile, 'utf8');
  assert.match(key, /^[0-9a-f]{64}\n?$/);
  const clean = step(ci, 'Verify the fingerprints before saving');
  assert.equal(clean.code, 0, clean.stderr);

  // The job's own work rewrites the lockfile (an install without --frozen-lockfile adding a package).
  const add = spawnSync('pnpm', ['add', '-D', 'is-number@7.0.0', '--lockfile-only'], {
    cwd: ci.root,
    env: ci.env,
    encoding: 'utf8',
    timeout: 90_000,
  });
  assert.equal(add.status, 0, add.stderr);
  const moved = step(ci, 'Verify the fingerprints before saving');
  assert.equal(moved.code, 1, `verify after the move: ${moved.stderr}`);
  assert.match(moved.stderr + moved.stdout, /pnpm-lock\.yaml/);
  assert.equal(readFileSync(keyFile, 'utf8'), key, 'the key file, and so both cache keys, unchanged');
});

test('CircleCI mutants: other bytes under the pinned version, or no lockguard in the lockfile: nothing installed', async (t) => {
  const tampered = await job(t);
  appendFileSync(tampered.served, Buffer.from([0]));
  const refused = step(tampered, 'lockguard, pinned by pnpm-lock.yaml');
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(
    refused.stderr,
    /is not the tarball pnpm-lock\.yaml pins \(its integrity differs\); nothing was installed/,
  );
  assert.ok(!existsSync(join(tampered.dir, 'tmp', 'lockguard-cli', 'lockguard.tgz')), 'no tarball kept');
  assert.ok(!existsSync(join(tampered.dir, 'bash-env')), 'no LOCKGUARD for the later steps');

  const absent = await job(t, false);
  const none = step(absent, 'lockguard, pinned by pnpm-lock.yaml');
  assert.equal(none.code, 2, none.stderr);
  assert.match(
    none.stderr,
    /no lockguard entry with an integrity in pnpm-lock\.yaml; add it \(pnpm add -D lockguard\)/,
  );
  writeFileSync(join(absent.dir, 'bash-env'), '');
  assert.notEqual(step(absent, 'Snapshot the lockfile fingerprints').code, 0, 'no snapshot without lockguard');
});
