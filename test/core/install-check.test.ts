// The pre-run check: lockfile vs install marker, and the virtual store's folders.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { checkInstall, mainDocument, pnpmMarkerHolds, storeFolderName } from '../../lib/core/install-check.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

const LOCK = `lockfileVersion: '9.0'

importers:

  .:
    dependencies:
      dep:
        specifier: 7.0.0
        version: 7.0.0

packages:

  dep@7.0.0:
    resolution: {integrity: sha512-x}

  '@scope/thing@1.0.0':
    resolution: {integrity: sha512-y}

snapshots:

  dep@7.0.0: {}

  '@scope/thing@1.0.0': {}
`;

function installed(lock: string, marker = lock) {
  return {
    ...pnpmTree(lock),
    node_modules: {
      '.modules.yaml': '{"skipped":[]}',
      '.pnpm': {
        'lock.yaml': marker,
        'dep@7.0.0': { 'x.txt': '' },
        '@scope+thing@1.0.0': { 'x.txt': '' },
        node_modules: {},
      },
    },
  };
}

test('right after a frozen install the check passes', (t) => {
  const root = tempWorkspace(t, installed(LOCK));
  assert.deepEqual(checkInstall(readWorkspaceFingerprints(root)), { ok: true, checked: 'pnpm' });
});

test('a lockfile-only edit (no manifest touched) is caught', (t) => {
  const root = tempWorkspace(t, installed(LOCK.replaceAll('7.0.0', '6.0.0'), LOCK));
  const verdict = checkInstall(readWorkspaceFingerprints(root));
  assert.equal(verdict.ok, false);
  assert.equal(!verdict.ok && verdict.reason, 'lockfile-differs');
});

test('a package folder deleted from node_modules/.pnpm is caught', (t) => {
  const root = tempWorkspace(t, installed(LOCK));
  fs.rmSync(join(root, 'node_modules/.pnpm/@scope+thing@1.0.0'), { recursive: true });
  const verdict = checkInstall(readWorkspaceFingerprints(root));
  assert.equal(!verdict.ok && verdict.reason, 'package-missing');
});

test('orphans the marker still lists after `pnpm add` do not fail the check', (t) => {
  const marker = LOCK.replace(
    '\nsnapshots:\n',
    '\n  old@1.0.0:\n    resolution: {integrity: sha512-z}\n\nsnapshots:\n',
  );
  const root = tempWorkspace(t, installed(LOCK, marker));
  assert.equal(checkInstall(readWorkspaceFingerprints(root)).ok, true);
});

test('node-linker=hoisted keeps no virtual store: its folders are not asked for, the marker still is', (t) => {
  // pnpm 10 with node-linker=hoisted writes node_modules/.pnpm/lock.yaml but no package folders beside it.
  const tree = installed(LOCK);
  const hoisted = {
    ...tree,
    node_modules: {
      '.modules.yaml': '{"skipped":[],"nodeLinker":"hoisted"}',
      '.pnpm': { 'lock.yaml': LOCK },
      dep: { 'package.json': '{}' },
    },
  };
  const root = tempWorkspace(t, hoisted);
  assert.deepEqual(checkInstall(readWorkspaceFingerprints(root)), { ok: true, checked: 'pnpm' });
  // The isolated layout with the same folders missing is refused.
  fs.writeFileSync(join(root, 'node_modules/.modules.yaml'), '{"skipped":[],"nodeLinker":"isolated"}');
  assert.equal(checkInstall(readWorkspaceFingerprints(root)).ok, false);
});

test('nothing installed: not-installed', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const verdict = checkInstall(readWorkspaceFingerprints(root));
  assert.equal(!verdict.ok && verdict.reason, 'not-installed');
});

test("pnpm 12's two-document lockfile: the marker holds the main document", (t) => {
  const twoDocs = `---\nlockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    packageManagerDependencies: {}\n\n---\n${LOCK}`;
  assert.equal(mainDocument(Buffer.from(twoDocs)).toString(), LOCK);
  const root = tempWorkspace(t, installed(twoDocs, LOCK));
  assert.equal(checkInstall(readWorkspaceFingerprints(root)).ok, true);
});

test("a frozen install's marker: publishDirectory, dependenciesMeta and another platform's optional dependency left out still hold; a changed field does not", () => {
  const head = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n\n";
  const lock = Buffer.from(
    `${head}  packages/a:\n    publishDirectory: dist\n\n  packages/b:\n    dependencies:\n      a:\n        specifier: workspace:*\n        version: link:../a\n    optionalDependencies:\n      fsevents:\n        specifier: 2.3.3\n        version: 2.3.3\n      is-number:\n        specifier: 7.0.0\n        version: 7.0.0\n    dependenciesMeta:\n      a:\n        injected: true\n`,
  );
  const frozen = Buffer.from(
    `${head}  packages/a: {}\n\n  packages/b:\n    dependencies:\n      a:\n        specifier: workspace:*\n        version: link:../a\n    optionalDependencies:\n      is-number:\n        specifier: 7.0.0\n        version: 7.0.0\n`,
  );
  assert.equal(pnpmMarkerHolds(lock, frozen), true);
  assert.equal(pnpmMarkerHolds(lock, Buffer.from(frozen.toString().replace('link:../a', 'link:../c'))), false);
  assert.equal(
    pnpmMarkerHolds(
      lock,
      Buffer.from(frozen.toString().replace('  packages/a: {}', '  packages/a:\n    publishDirectory: out')),
    ),
    false,
  );
  assert.equal(
    pnpmMarkerHolds(
      lock,
      Buffer.from(
        frozen
          .toString()
          .replace(
            'is-number:\n        specifier: 7.0.0\n        version: 7.0.0',
            'is-number:\n        specifier: 7.0.0\n        version: 6.0.0',
          ),
      ),
    ),
    false,
  );
});

test('store folder names follow pnpm (scopes, peers, file: specs; hashed ones are not named)', () => {
  assert.equal(storeFolderName('@babel/core@7.0.0'), '@babel+core@7.0.0');
  assert.equal(storeFolderName('foo@1.0.0(react@18.0.0)'), 'foo@1.0.0_react@18.0.0');
  assert.equal(storeFolderName('dep@file:../tarballs/dep-7.0.0.tgz'), 'dep@file+..+tarballs+dep-7.0.0.tgz');
  assert.equal(storeFolderName('Upper@1.0.0'), undefined);
  assert.equal(storeFolderName(`x@1.0.0(${'a'.repeat(130)}@1.0.0)`), undefined);
});

test('npm: .package-lock.json must equal the lockfile minus the root entry', (t) => {
  const lock = {
    name: 'r',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'r' },
      'node_modules/dep': { version: '7.0.0' },
      'node_modules/opt': { version: '1.0.0', optional: true },
    },
  };
  const hidden = {
    name: 'r',
    lockfileVersion: 3,
    requires: true,
    packages: { 'node_modules/dep': { version: '7.0.0' } },
  };
  const root = tempWorkspace(t, {
    'package.json': '{}',
    'package-lock.json': JSON.stringify(lock),
    node_modules: { '.package-lock.json': JSON.stringify(hidden), dep: { 'package.json': '{}' } },
  });
  assert.equal(checkInstall(readWorkspaceFingerprints(root)).ok, true, 'a skipped optional package is fine');
  lock.packages['node_modules/dep'].version = '6.0.0';
  fs.writeFileSync(join(root, 'package-lock.json'), JSON.stringify(lock));
  const verdict = checkInstall(readWorkspaceFingerprints(root));
  assert.equal(!verdict.ok && verdict.reason, 'lockfile-differs');
});

test('npm: entries that differ only by the flags npm recomputes per tree (peer, dev, optional, devOptional) hold', (t) => {
  const entry = { version: '19.1.0', resolved: 'https://registry.example/react-19.1.0.tgz', integrity: 'sha512-r' };
  const lock = {
    name: 'r',
    lockfileVersion: 3,
    requires: true,
    packages: { '': { name: 'r' }, 'node_modules/react': { ...entry, peer: true } },
  };
  const hidden = {
    name: 'r',
    lockfileVersion: 3,
    requires: true,
    packages: { 'node_modules/react': { ...entry, dev: true } },
  };
  const root = tempWorkspace(t, {
    'package.json': '{}',
    'package-lock.json': JSON.stringify(lock),
    node_modules: { '.package-lock.json': JSON.stringify(hidden), react: { 'package.json': '{}' } },
  });
  assert.deepEqual(checkInstall(readWorkspaceFingerprints(root)), { ok: true, checked: 'npm' });
  lock.packages['node_modules/react'].version = '19.0.0';
  fs.writeFileSync(join(root, 'package-lock.json'), JSON.stringify(lock));
  const verdict = checkInstall(readWorkspaceFingerprints(root));
  assert.equal(
    !verdict.ok && verdict.detail,
    'node_modules/react is installed with another "version" than package-lock.json says',
  );
});

const NPM_LOCK = {
  name: 'root',
  lockfileVersion: 3,
  requires: true,
  packages: {
    '': { name: 'root', dependencies: { dep: '1.0.0', '@s/x': '2.0.0' } },
    'node_modules/dep': { version: '1.0.0', resolved: 'https://registry.example/dep-1.0.0.tgz', integrity: 'sha512-a' },
    'node_modules/@s/x': { version: '2.0.0', resolved: 'https://registry.example/x-2.0.0.tgz', integrity: 'sha512-b' },
    'node_modules/@s/x/node_modules/dep': {
      version: '0.9.0',
      resolved: 'https://registry.example/dep-0.9.0.tgz',
      integrity: 'sha512-c',
    },
  },
};

function npmTree(lock: typeof NPM_LOCK = NPM_LOCK): Record<string, unknown> {
  const { '': _root, ...installed } = lock.packages;
  return {
    'package.json': '{"name":"root"}',
    'package-lock.json': JSON.stringify(lock, null, 2),
    node_modules: {
      '.package-lock.json': JSON.stringify({ ...lock, packages: installed }, null, 2),
      dep: { 'package.json': '{}' },
      '@s': { x: { 'package.json': '{}', node_modules: { dep: { 'package.json': '{}' } } } },
    },
  };
}

test('npm: the installed tree holds the lockfile; a deleted package folder (also nested) is caught', (t) => {
  const root = tempWorkspace(t, npmTree() as never);
  assert.deepEqual(checkInstall(readWorkspaceFingerprints(root)), { ok: true, checked: 'npm' });
  fs.rmSync(join(root, 'node_modules/@s/x/node_modules/dep'), { recursive: true });
  const verdict = checkInstall(readWorkspaceFingerprints(root));
  assert.equal(verdict.ok, false);
  assert.equal(verdict.ok === false && verdict.reason, 'package-missing');
  assert.match(verdict.ok === false ? verdict.detail : '', /node_modules\/@s\/x\/node_modules\/dep is missing/);
});

test('npm: a lockfile edit names the field that differs (resolved, not "another version")', (t) => {
  const root = tempWorkspace(t, npmTree() as never);
  const edited = structuredClone(NPM_LOCK);
  edited.packages['node_modules/dep'].resolved = 'https://mirror.example/dep-1.0.0.tgz';
  fs.writeFileSync(join(root, 'package-lock.json'), JSON.stringify(edited, null, 2));
  const verdict = checkInstall(readWorkspaceFingerprints(root));
  assert.equal(verdict.ok === false && verdict.reason, 'lockfile-differs');
  assert.match(verdict.ok === false ? verdict.detail : '', /node_modules\/dep is installed with another "resolved"/);
});
