// pnpm 12 with the setup `lockguard init` gives it: no pnpmfile (any pnpmfile makes every pnpm 12 command
// start node helpers). What `lockguard run --policy refuse` still refuses at the source through the child's
// environment, measured with the real pnpm 12.4.2, and what it catches after the fact. This is the
// refuse matrix of lib/integrations/pnpmfile/README.md for the default pnpm 12 setup.

import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import { editManifestOfB, pnpmCommand, pnpmFixture, spawn, type Spawned } from '../helpers/hooks.js';
import { scenario } from '../helpers/runner-scenario.js';

const both = (result: Spawned): string => `${result.stdout}\n${result.stderr}`;

function pnpm12(args: readonly string[]): string[] {
  const [file, prefix] = pnpmCommand(12);
  return [file, ...prefix, ...args];
}

test('pnpm 12 without a pnpmfile: init writes none; under refuse, install and run after a manifest edit are refused at the source, add fails the run after the rewrite', (t) => {
  const fixture = pnpmFixture(t, 12, {
    tree: {
      '.pnpmfile.cjs': null,
      'package.json': `${JSON.stringify({ name: 'root', private: true, packageManager: 'pnpm@12.4.2' })}\n`,
    },
  });
  const run = (argv: readonly string[]): Spawned =>
    spawn(process.execPath, [BIN, 'run', '--policy', 'refuse', '--', ...argv], fixture.root, fixture.env);
  {
    // init on pnpm 12 writes no pnpmfile.
    const init = spawn(process.execPath, [BIN, 'init'], fixture.root, fixture.env);
    assert.equal(init.code, 0, both(init));
    assert.match(init.stdout, /no \.pnpmfile\.cjs written/);
    assert.equal(existsSync(join(fixture.root, '.pnpmfile.cjs')), false);
  }
  {
    // A no-op install and a plain pnpm run: nothing to refuse, rc 0.
    const noop = run(pnpm12(['install']));
    assert.equal(noop.code, 0, both(noop));
    assert.match(noop.stderr, /--policy refuse without a pnpmfile/, 'it says what will not be refused');
    assert.equal(run(pnpm12(['--filter', 'b', 'run', 'noop'])).code, 0);
  }
  const lockfile = fixture.read('pnpm-lock.yaml');
  editManifestOfB(fixture);
  {
    // pnpm install after a manifest edit: refused by pnpm_config_frozen_lockfile, lockfile untouched.
    const install = run(pnpm12(['install']));
    assert.notEqual(install.code, 0, both(install));
    assert.deepEqual(fixture.read('pnpm-lock.yaml'), lockfile);
    assert.doesNotMatch(install.stderr, /\[lockguard\] a task/, 'nothing moved');
  }
  {
    // pnpm run after a manifest edit (pnpm 12 installs first by default): refused by verify-deps-before-run=error.
    const script = run(pnpm12(['--filter', 'b', 'run', 'noop']));
    assert.notEqual(script.code, 0, both(script));
    assert.deepEqual(fixture.read('pnpm-lock.yaml'), lockfile);
  }
  {
    // pnpm add is not stopped by any setting: the lockfile is rewritten and the run fails (exit 1), locally too.
    const add = run(pnpm12(['--filter', 'b', 'add', `file:${fixture.depY}`]));
    assert.equal(add.code, 1, both(add));
    assert.notDeepEqual(fixture.read('pnpm-lock.yaml'), lockfile);
    assert.match(add.stderr, /the rewrite was not refused at the source, so the run fails/);
  }
});

test("pnpm 12 without a pnpmfile, inside a turbo task (strict env mode): the env freeze does not reach a task's own pnpm install; the run fails after the rewrite and withholds", (t) => {
  const s = scenario(t, 'turbo', { pnpm: 12, rootScripts: { build: 'turbo run build' } });
  // a#build edits b's manifest, then runs a plain pnpm install (turbo strips pnpm_config_frozen_lockfile from tasks).
  writeFileSync(
    join(s.base, 'a-build.cjs'),
    `const fs = require('fs'), cp = require('child_process');
const f = '../b/package.json', m = JSON.parse(fs.readFileSync(f, 'utf8'));
m.dependencies['tiny-dep'] = 'file:../../vendor/tiny-dep-6.0.0.tgz';
fs.writeFileSync(f, JSON.stringify(m, null, 2));
process.exitCode = cp.spawnSync('pnpm', ['install'], { stdio: 'inherit' }).status;
fs.mkdirSync('dist', { recursive: true });
`,
  );
  const before = readFileSync(s.lockfile);
  const run = s.sh([process.execPath, BIN, 'run', '--policy', 'refuse', '--', 'pnpm', 'build']);
  assert.equal(run.status, 1, `${run.stdout}\n${run.stderr}`);
  assert.notDeepEqual(readFileSync(s.lockfile), before, 'the install inside the task was not refused at the source');
  assert.match(
    run.stderr,
    /the rewrite was not refused at the source, so the run fails; \d+ cache saves? made after it (was|were) withheld/,
  );
});
