// End to end: the CI save gate around real installs (pnpm 10, pnpm 12.4.2, npm 11), offline, with HOME,
// XDG_*, the npm cache and the pnpm store isolated under temp dirs.
//
// Each test clones a template workspace (a lockfile, no node_modules), runs `lockguard snapshot
// --github-output`, one real package-manager step, then `lockguard verify --github-output`, and asserts
// the exit code and the save= / moved= lines a workflow would read.

import assert from 'node:assert/strict';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { cliProcess } from '../helpers/cli.js';
import { snapshotStep, verifyStep } from '../helpers/gate.js';
import { cloneWorkspace, mustRun, NPM, packTarballs, PNPM10, PNPM12, type Tool } from '../helpers/tools.js';
import { isolatedEnv } from '../helpers/env.js';
import { tempWorkspace, writeTree } from '../helpers/workspace.js';

let shared = '';
let env: Record<string, string> = {};
let dep7 = '';
let dep6 = '';

before(() => {
  shared = realpathSync(mkdtempSync(join(tmpdir(), 'lockguard-e2e-')));
  env = isolatedEnv(shared);
  const tarballs = packTarballs(
    join(shared, 'tarballs'),
    [
      { name: 'dep', version: '7.0.0' },
      { name: 'dep', version: '6.0.0' },
    ],
    env,
  );
  dep7 = tarballs[0] ?? '';
  dep6 = tarballs[1] ?? '';
});

after(() => rmSync(shared, { recursive: true, force: true }));

/** Overwrite one byte of `path` in place (same size), at the first `needle`, with `replacement`. */
function editOneByte(path: string, needle: string, replacement: string): void {
  const at = readFileSync(path).indexOf(needle);
  assert.ok(at >= 0, `${needle} is in ${path}`);
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Buffer.from(replacement), 0, 1, at + needle.length - 1);
  } finally {
    closeSync(fd);
  }
}

/** Workspace a + b, b depending on the local dep@7.0.0 tarball (vendored inside, so lockfile paths are relative). */
function monorepoTree(manager: 'pnpm' | 'npm'): Parameters<typeof writeTree>[1] {
  const vendor = { 'dep-7.0.0.tgz': readFileSync(dep7), 'dep-6.0.0.tgz': readFileSync(dep6) };
  const bDeps = { a: manager === 'pnpm' ? 'workspace:*' : '1.0.0', dep: 'file:../../vendor/dep-7.0.0.tgz' };
  return {
    'package.json': JSON.stringify({
      name: 'root',
      private: true,
      ...(manager === 'npm' ? { workspaces: ['packages/*'] } : {}),
    }),
    ...(manager === 'pnpm' ? { 'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n' } : {}),
    vendor,
    packages: {
      a: { 'package.json': JSON.stringify({ name: 'a', version: '1.0.0' }) },
      b: { 'package.json': JSON.stringify({ name: 'b', version: '1.0.0', dependencies: bDeps }) },
    },
  };
}

/** A template workspace with the lockfile `tool` writes; tests clone it without node_modules. */
function template(tool: Tool, manager: 'pnpm' | 'npm'): string {
  const root = join(shared, `template-${tool.name}`);
  writeTree(root, monorepoTree(manager));
  mustRun(tool, ['install'], root, env);
  return root;
}

function freshClone(t: TestContext, from: string): string {
  const root = tempWorkspace(t, {}, 'lockguard-e2e-clone-');
  cloneWorkspace(from, root);
  assert.equal(existsSync(join(root, 'node_modules')), false, 'a fresh clone has no node_modules');
  return root;
}

for (const tool of [PNPM10, PNPM12]) {
  describe(`save gate with ${tool.name}`, { timeout: 120_000 }, () => {
    let tpl = '';
    before(() => {
      tpl = template(tool, 'pnpm');
    });

    test('a first install on a fresh clone (lockfile present) gives save=true', (t) => {
      const root = freshClone(t, tpl);
      const snap = snapshotStep(root, env);
      mustRun(tool, ['install'], root, env);
      assert.ok(existsSync(join(root, 'node_modules/.pnpm/lock.yaml')), 'the install really installed');
      const verdict = verifyStep(root, env, snap);
      assert.equal(verdict.save, 'true');
      assert.deepEqual(verdict.moved, []);
    });

    test('a frozen install on a fresh clone gives save=true', (t) => {
      const root = freshClone(t, tpl);
      const snap = snapshotStep(root, env);
      mustRun(tool, ['install', '--frozen-lockfile'], root, env);
      assert.ok(existsSync(join(root, 'node_modules/.pnpm/lock.yaml')));
      const verdict = verifyStep(root, env, snap);
      assert.equal(verdict.save, 'true');
      assert.equal(
        verdict.result.stdout,
        `lockguard: nothing moved since ${snap.run} (judged on inputs): the cache may be saved\n`,
      );
    });

    test('a CI node_modules cache judged with --scope full: the same frozen install on a fresh clone counts the markers (save=false)', (t) => {
      const root = freshClone(t, tpl);
      const snap = snapshotStep(root, env, ['--scope', 'full']);
      mustRun(tool, ['install', '--frozen-lockfile'], root, env);
      const verdict = verifyStep(root, env, snap);
      assert.equal(verdict.save, 'false');
      assert.deepEqual(verdict.moved, ['node_modules/.pnpm/lock.yaml', 'node_modules/.modules.yaml']);
      assert.deepEqual(
        verdict.result.stderr.split('\n').filter((line) => line.startsWith('[lockguard]')),
        [
          '[lockguard] node_modules/.pnpm/lock.yaml and node_modules/.modules.yaml were created since the snapshot, which its key folds (full scope): the cache save is refused (lockguard status for details)',
        ],
      );
    });

    test('a no-op install gives save=true', (t) => {
      const root = freshClone(t, tpl);
      mustRun(tool, ['install'], root, env);
      const snap = snapshotStep(root, env);
      mustRun(tool, ['install'], root, env);
      assert.equal(verifyStep(root, env, snap).save, 'true');
    });

    test('pnpm --filter b add <6.0.0 tarball> gives save=false naming pnpm-lock.yaml', (t) => {
      const root = freshClone(t, tpl);
      mustRun(tool, ['install'], root, env);
      const snap = snapshotStep(root, env);
      mustRun(tool, ['--filter', 'b', 'add', 'file:../../vendor/dep-6.0.0.tgz'], root, env);
      assert.match(
        readFileSync(join(root, 'pnpm-lock.yaml'), 'utf8'),
        /dep-6\.0\.0\.tgz/,
        'the add rewrote the lockfile',
      );
      const verdict = verifyStep(root, env, snap);
      assert.equal(verdict.save, 'false');
      assert.deepEqual(verdict.moved, ['pnpm-lock.yaml']);
      assert.match(verdict.result.stderr, /pnpm-lock\.yaml/);
    });

    test('under --scope full: a frozen install on an installed tree gives save=true', (t) => {
      const root = freshClone(t, tpl);
      mustRun(tool, ['install', '--frozen-lockfile'], root, env);
      const snap = snapshotStep(root, env, ['--scope', 'full']);
      mustRun(tool, ['install', '--frozen-lockfile'], root, env);
      assert.equal(verifyStep(root, env, snap).save, 'true');
    });

    test('under --scope full: an install that changes the tree gives save=false', (t) => {
      const root = freshClone(t, tpl);
      mustRun(tool, ['install', '--frozen-lockfile'], root, env);
      const snap = snapshotStep(root, env, ['--scope', 'full']);
      mustRun(tool, ['--filter', 'b', 'add', 'file:../../vendor/dep-6.0.0.tgz'], root, env);
      const verdict = verifyStep(root, env, snap);
      assert.equal(verdict.save, 'false');
      assert.ok(verdict.moved.includes('pnpm-lock.yaml'), verdict.moved.join(','));
      assert.ok(verdict.moved.includes('node_modules/.pnpm/lock.yaml'), verdict.moved.join(','));
    });
  });
}

describe('save gate with npm', { timeout: 120_000 }, () => {
  let tpl = '';
  before(() => {
    tpl = template(NPM, 'npm');
  });

  test('npm ci on a fresh clone gives save=true', (t) => {
    const root = freshClone(t, tpl);
    const snap = snapshotStep(root, env);
    mustRun(NPM, ['ci'], root, env);
    assert.ok(existsSync(join(root, 'node_modules/.package-lock.json')), 'npm ci really installed');
    assert.equal(verifyStep(root, env, snap).save, 'true');
  });

  test('a no-op npm install (rewrites package-lock.json with the same bytes) gives save=true', (t) => {
    const root = freshClone(t, tpl);
    mustRun(NPM, ['ci'], root, env);
    const snap = snapshotStep(root, env);
    const before = statSync(join(root, 'package-lock.json'));
    mustRun(NPM, ['install'], root, env);
    const after = statSync(join(root, 'package-lock.json'));
    // Field note: npm 11 rewrites the lockfile on a no-op install, so this exercises the byte re-check.
    assert.notEqual(after.mtimeMs, before.mtimeMs, 'npm rewrote package-lock.json');
    assert.equal(verifyStep(root, env, snap).save, 'true');
  });

  test('npm install <tarball> in a workspace gives save=false naming package-lock.json', (t) => {
    const root = freshClone(t, tpl);
    mustRun(NPM, ['ci'], root, env);
    const snap = snapshotStep(root, env);
    mustRun(NPM, ['install', './vendor/dep-6.0.0.tgz', '-w', 'b'], root, env);
    const verdict = verifyStep(root, env, snap);
    assert.equal(verdict.save, 'false');
    assert.deepEqual(verdict.moved, ['package-lock.json']);
  });

  test('under --scope full: npm ci again gives save=true, npm install <tarball> gives save=false', (t) => {
    const root = freshClone(t, tpl);
    mustRun(NPM, ['ci'], root, env);
    {
      // npm ci replaces node_modules/.package-lock.json with identical bytes: no move.
      const snap = snapshotStep(root, env, ['--scope', 'full']);
      mustRun(NPM, ['ci'], root, env);
      assert.equal(verifyStep(root, env, snap).save, 'true');
    }
    {
      // An install that changes the tree moves the lockfile and the install marker.
      const snap = snapshotStep(root, env, ['--scope', 'full']);
      mustRun(NPM, ['install', './vendor/dep-6.0.0.tgz', '-w', 'b'], root, env);
      const verdict = verifyStep(root, env, snap);
      assert.equal(verdict.save, 'false');
      assert.deepEqual(verdict.moved, ['package-lock.json', 'node_modules/.package-lock.json']);
    }
  });
});

describe('hand edits and keys', () => {
  let pnpmTpl = '';
  let npmTpl = '';
  before(() => {
    pnpmTpl = template(PNPM12, 'pnpm');
    npmTpl = template(NPM, 'npm');
  });

  for (const [manager, lockfile, needle] of [
    ['pnpm', 'pnpm-lock.yaml', 'version: 7'],
    ['npm', 'package-lock.json', '"version": "7'],
  ] as const) {
    test(`${manager}: a same-size, same-second hand edit of ${lockfile} gives save=false (the racy case)`, (t) => {
      const root = freshClone(t, manager === 'pnpm' ? pnpmTpl : npmTpl);
      const path = join(root, lockfile);
      const snap = snapshotStep(root, env);
      const sizeBefore = statSync(path).size;
      editOneByte(path, needle, '6');
      assert.equal(statSync(path).size, sizeBefore, 'same size');
      // verify finds the latest snapshot itself here (no LOCKGUARD_RUN).
      const verdict = verifyStep(root, env);
      assert.equal(verdict.save, 'false');
      assert.deepEqual(verdict.moved, [lockfile]);
      // Once moved, stays moved: writing the byte back does not make the save safe again.
      editOneByte(path, needle.replace(/7$/, '6'), '7');
      assert.equal(verifyStep(root, env, snap).save, 'false');
    });

    test(`${manager}: lockguard key is equal on two copies in different folders, and differs after an edit`, (t) => {
      const tpl = manager === 'pnpm' ? pnpmTpl : npmTpl;
      const one = freshClone(t, tpl);
      const two = freshClone(t, tpl);
      const keyOne = cliProcess(['key'], one, env);
      const keyTwo = cliProcess(['key'], two, env);
      assert.equal(keyOne.code, 0, keyOne.stderr);
      assert.match(keyOne.stdout, /^[0-9a-f]{64}\n$/);
      assert.equal(keyTwo.stdout, keyOne.stdout);
      editOneByte(join(two, lockfile), needle, '6');
      const edited = cliProcess(['key'], two, env);
      assert.equal(edited.code, 0, edited.stderr);
      assert.notEqual(edited.stdout, keyOne.stdout);
    });
  }
});
