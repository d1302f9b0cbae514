// lib/ci/install-lockguard.mjs: what the GitHub Action installs lockguard from, the workspace's own
// lockfile. On npm's package-lock.json (this repository's own, with a lockguard entry added that depends on
// execa, which the lockfile holds with its real tree) and on a pnpm-lock.yaml v9: exactly lockguard's
// closure, each package at the lockfile's version, tarball and integrity, laid out so that node finds every
// dependency; nothing else.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers/tools.js';

interface Entry {
  version: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
}
interface Tree {
  version: string;
  packages: Record<string, Entry>;
}
const script = (await import(pathToFileURL(join(REPO_ROOT, 'lib', 'ci', 'install-lockguard.mjs')).href)) as {
  fromPackageLock(lock: unknown): Tree | undefined;
  fromPnpmLock(text: string): Tree | undefined;
};

/** Every dependency of every kept package resolves (node's lookup upwards) to a kept package. */
function resolvable(tree: Tree): string[] {
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(tree.packages)) {
    for (const name of Object.keys(entry.dependencies ?? {})) {
      let at = path;
      let found = false;
      for (;;) {
        if (tree.packages[`${at}/node_modules/${name}`] !== undefined) found = true;
        const up = at.lastIndexOf('/node_modules/');
        if (found || up === -1) break;
        at = at.slice(0, up);
      }
      if (!found && tree.packages[`node_modules/${name}`] === undefined) missing.push(`${path} → ${name}`);
    }
  }
  return missing;
}

test("npm: lockguard's closure cut out of the lockfile's own tree", () => {
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, Entry>;
  };
  const execa = lock.packages['node_modules/execa'];
  assert.ok(execa, 'this repository locks execa');
  lock.packages['node_modules/lockguard'] = {
    version: '0.1.0',
    resolved: 'https://registry.npmjs.org/lockguard/-/lockguard-0.1.0.tgz',
    integrity: 'sha512-test',
    dependencies: { execa: '^9.6.1' },
  };
  const tree = script.fromPackageLock(lock);
  assert.ok(tree);
  assert.equal(tree.version, '0.1.0');
  assert.deepEqual(tree.packages['node_modules/execa'], execa);
  assert.ok(Object.keys(tree.packages).length > 5, 'execa brings its dependencies');
  assert.equal(tree.packages['node_modules/typescript'], undefined, 'nothing lockguard does not reach');
  assert.deepEqual(resolvable(tree), []);
  for (const [path, entry] of Object.entries(tree.packages)) assert.deepEqual(entry, lock.packages[path], path);
  delete lock.packages['node_modules/lockguard'];
  assert.equal(script.fromPackageLock(lock), undefined, 'no lockguard in the lockfile: nothing to install');
});

const PNPM_LOCK = `lockfileVersion: '9.0'

importers:

  .:
    devDependencies:
      lockguard:
        specifier: 0.1.0
        version: 0.1.0
      other:
        specifier: 1.0.0
        version: 1.0.0

packages:

  lockguard@0.1.0:
    resolution: {integrity: sha512-lg}
    hasBin: true

  execa@9.6.1:
    resolution: {integrity: sha512-ex}

  is-stream@4.0.1:
    resolution: {integrity: sha512-is4}

  is-stream@2.0.1:
    resolution: {integrity: sha512-is2}

  '@scope/tool@1.2.3':
    resolution: {integrity: sha512-sc}

  other@1.0.0:
    resolution: {integrity: sha512-other}

snapshots:

  lockguard@0.1.0:
    dependencies:
      execa: 9.6.1
      is-stream: 2.0.1
      '@scope/tool': 1.2.3

  execa@9.6.1:
    dependencies:
      is-stream: 4.0.1

  is-stream@4.0.1: {}

  is-stream@2.0.1: {}

  '@scope/tool@1.2.3': {}

  other@1.0.0: {}
`;

test("pnpm: lockguard's closure from packages and snapshots, two versions of one package nested", () => {
  const tree = script.fromPnpmLock(PNPM_LOCK);
  assert.ok(tree);
  // Depth first: execa's is-stream 4 takes the top level, lockguard's own is-stream 2 nests under it.
  assert.deepEqual(Object.keys(tree.packages), [
    'node_modules/@scope/tool',
    'node_modules/execa',
    'node_modules/is-stream',
    'node_modules/lockguard',
    'node_modules/lockguard/node_modules/is-stream',
  ]);
  assert.equal(tree.packages['node_modules/is-stream']?.integrity, 'sha512-is4');
  assert.equal(tree.packages['node_modules/lockguard/node_modules/is-stream']?.version, '2.0.1');
  assert.equal(
    tree.packages['node_modules/@scope/tool']?.resolved,
    'https://registry.npmjs.org/@scope/tool/-/tool-1.2.3.tgz',
  );
  assert.deepEqual(resolvable(tree), []);
  assert.equal(script.fromPnpmLock(PNPM_LOCK.replace(/ {6}lockguard:\n.*\n.*\n/, '')), undefined);
});
