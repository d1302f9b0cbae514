// The Azure Pipelines and Buildkite recipes (examples/azure-pipelines, examples/buildkite) against an
// emulation of their caches' save: Cache@2's post-job step re-resolves the key from the files at job end
// and saves under it when the job succeeded and no entry exists; the Buildkite cache plugin's
// post-command hook re-hashes its manifest and saves when the command exited 0 and no entry exists.
// The recipe's own lines run in order with bash in a real pnpm workspace (lockguard's `pnpm exec
// lockguard` swapped for the built CLI, as the GitLab test swaps $LOCKGUARD; a no-op corepack); the build
// runs `pnpm add` when the commit holds MOVE. Control: the same recipe with its lockguard lines as no-ops saves
// under the re-hashed key after the move (what these CIs do); with the recipe, the job fails and nothing
// is saved. Schemas: the files validate against each CI's published schema in ci-schemas.test.ts (vendored
// under test/fixtures/ci-schemas/) and are held to their table row in ci-table.test.ts.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { BIN } from '../helpers/cli.js';
import { isolatedEnv } from '../helpers/env.js';
import { localPackage, mustRun, PNPM10, REPO_ROOT } from '../helpers/tools.js';
import { writeTree } from '../helpers/workspace.js';

const BUILD_JS = `const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const root = path.resolve(__dirname, '..', '..');
if (fs.existsSync(path.join(root, 'MOVE'))) execFileSync('pnpm', ['add', 'dep@file:../../vendor/dep-6.0.0.tgz'], { stdio: 'inherit' });
fs.writeFileSync(path.join(root, 'built.txt'), 'built with dep ' + require('dep') + '\\n');
`;

let shared = '';
let base = '';
let env: Record<string, string> = {};
let jobs = 0;

interface Ci {
  readonly name: string;
  /** The job's scripts, in order, from the recipe. */
  scripts(text: string): string[];
  /** The cache key the CI resolves from the workspace now. */
  key(root: string): string;
}

const digest = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

const CIS: readonly (Ci & { readonly file: string })[] = [
  {
    name: 'Azure Pipelines Cache@2',
    file: join(REPO_ROOT, 'examples', 'azure-pipelines', 'azure-pipelines.yml'),
    scripts: (text) =>
      ((parse(text) as { steps: { bash?: string }[] }).steps ?? []).flatMap((step) =>
        step.bash === undefined ? [] : [step.bash],
      ),
    // key: 'pnpm-store | "$(Agent.OS)" | pnpm-lock.yaml': a string, a string, a file's hash.
    key: (root) => digest(`pnpm-store|Linux|${digest(readFileSync(join(root, 'pnpm-lock.yaml')))}`),
  },
  {
    name: 'Buildkite cache plugin',
    file: join(REPO_ROOT, 'examples', 'buildkite', 'pipeline.yml'),
    // The agent runs the command list as one script (bash -e -c).
    scripts: (text) => [((parse(text) as { steps: { command: string[] }[] }).steps[0]?.command ?? []).join('\n')],
    key: (root) => digest(readFileSync(join(root, 'pnpm-lock.yaml'))),
  },
];

/** One job: restore key, the scripts in order (stop at the first failure), then the CI's own save rule. */
function job(ci: Ci, text: string, cache: Set<string>, move: boolean) {
  const root = join(shared, `job-${++jobs}`);
  cpSync(base, root, { recursive: true, verbatimSymlinks: true });
  if (move) writeFileSync(join(root, 'MOVE'), '');
  const restored = ci.key(root);
  let failed = false;
  let log = '';
  for (const script of ci.scripts(text)) {
    const swapped = script.replaceAll('pnpm exec lockguard', join(shared, 'bin', 'lockguard'));
    const result = spawnSync('bash', ['-e', '-c', swapped], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
    log += `${swapped}: exit ${result.status}\n${result.stdout}${result.stderr}\n`;
    if (result.status !== 0) {
      failed = true;
      break;
    }
  }
  const after = ci.key(root);
  const saved = !failed && !cache.has(after) ? after : undefined;
  if (saved !== undefined) cache.add(saved);
  return { failed, restored, saved, log };
}

before(() => {
  shared = realpathSync(mkdtempSync(join(tmpdir(), 'lockguard-post-job-')));
  const bin = join(shared, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'lockguard'), `#!/bin/sh\nexec "${process.execPath}" ${JSON.stringify(BIN)} "$@"\n`);
  writeFileSync(join(bin, 'pnpm'), `#!/bin/sh\nexec "${process.execPath}" ${JSON.stringify(PNPM10.prefix[0])} "$@"\n`);
  writeFileSync(join(bin, 'corepack'), '#!/bin/sh\n# pnpm is already on PATH (the pinned pnpm 10).\nexit 0\n');
  for (const name of ['lockguard', 'pnpm', 'corepack']) chmodSync(join(bin, name), 0o755);
  env = isolatedEnv(shared, { path: [bin], extra: { PNPM_STORE: join(shared, 'store') } });
  base = join(shared, 'base');
  writeTree(base, {
    'package.json': `${JSON.stringify({ name: 'root', private: true }, null, 2)}\n`,
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
    vendor: {},
    packages: {
      app: {
        'package.json': `${JSON.stringify({ name: 'app', version: '1.0.0', scripts: { build: 'node build.js' }, dependencies: { dep: 'file:../../vendor/dep-7.0.0.tgz' } }, null, 2)}\n`,
        'build.js': BUILD_JS,
      },
    },
  });
  for (const version of ['7.0.0', '6.0.0'])
    cpSync(localPackage(join(shared, 'tarballs'), 'dep', version, env), join(base, 'vendor', `dep-${version}.tgz`));
  mustRun(PNPM10, ['install', '--store-dir', join(shared, 'store')], base, env);
});
after(() => rmSync(shared, { recursive: true, force: true }));

for (const ci of CIS) {
  describe(ci.name, () => {
    const text = readFileSync(ci.file, 'utf8');
    // The recipe with its two lockguard commands turned into no-ops: what a team has before adopting it.
    const control = text.replace(/pnpm exec lockguard (snapshot|verify)[^\n]*/g, 'echo no lockguard');

    test('without the lockguard lines a moving job saves under the re-hashed key (the poisoning)', () => {
      assert.equal(
        text.match(/pnpm exec lockguard (snapshot|verify)/g)?.length,
        2,
        'the recipe has its two lockguard lines',
      );
      const moving = job(ci, control, new Set(), true);
      assert.equal(moving.failed, false, moving.log);
      assert.ok(moving.saved !== undefined && moving.saved !== moving.restored, 'saved under the new lockfile key');
    });

    test('with the recipe: a moving job fails and saves nothing; a clean job saves under the key it restored', () => {
      const cache = new Set<string>();
      const moving = job(ci, text, cache, true);
      assert.equal(moving.failed, true, moving.log);
      assert.match(moving.log, /pnpm-lock\.yaml was rewritten since the snapshot/);
      assert.equal(moving.saved, undefined);
      const clean = job(ci, text, cache, false);
      assert.equal(clean.failed, false, clean.log);
      assert.equal(clean.saved, clean.restored);
    });
  });
}
