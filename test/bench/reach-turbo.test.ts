// turbo's own keys on a workspace rebuilt from a lockfile alone (reach-turbo.ts, for reach.bench.ts): the
// manifests carry each importer's specifiers and linked names, the pinned turbo plans it without an install,
// and its hashOfExternalDependencies moves for the project whose entry moved, not for the project whose
// dependency's code resolves that entry through hoisting (the miss issue 29 is about).

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { importerManifests, turboHashes, writeWorkspace } from './reach-turbo.js';

const lockfile = (tiny: string): string => `lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

catalogs:
  default:
    shared-dep:
      specifier: ^1.0.0
      version: 1.0.0

importers:

  .:
    devDependencies:
      shared-dep:
        specifier: 'catalog:'
        version: 1.0.0

  packages/a:
    dependencies:
      '@scope/w':
        specifier: workspace:*
        version: link:../w
      phantom-x:
        specifier: 1.0.0
        version: 1.0.0

  packages/b:
    devDependencies:
      tiny-dep:
        specifier: ${tiny}
        version: ${tiny}

  packages/w: {}

packages:

  phantom-x@1.0.0:
    resolution: {integrity: sha512-cGhhbnRvbQ==}

  shared-dep@1.0.0:
    resolution: {integrity: sha512-c2hhcmVk}

  tiny-dep@${tiny}:
    resolution: {integrity: sha512-dGlueS${tiny.replace(/\./g, '')}=}

snapshots:

  phantom-x@1.0.0: {}

  shared-dep@1.0.0: {}

  tiny-dep@${tiny}: {}
`;

test('importerManifests: sections, specifiers (catalog: kept) and the names links give', () => {
  const manifests = importerManifests(lockfile('7.0.0'));
  assert.deepEqual(
    manifests.map((m) => [m.id, m.name]),
    [
      ['.', 'history-root'],
      ['packages/a', 'history-packages-a'],
      ['packages/b', 'history-packages-b'],
      ['packages/w', '@scope/w'],
    ],
  );
  assert.deepEqual(manifests[0]?.sections, { devDependencies: { 'shared-dep': 'catalog:' } });
  assert.deepEqual(manifests[1]?.sections, { dependencies: { '@scope/w': 'workspace:*', 'phantom-x': '1.0.0' } });
  assert.deepEqual(manifests[2]?.sections, { devDependencies: { 'tiny-dep': '7.0.0' } });
});

test("the pinned turbo plans the rebuilt workspace: b's bump moves b's external hash, never a's", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lockguard-reach-turbo-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeWorkspace(join(dir, 'ws'), lockfile('7.0.0'));
  assert.match(
    readFileSync(join(dir, 'ws', 'pnpm-workspace.yaml'), 'utf8'),
    /catalogs:\n {2}default:\n {4}shared-dep: \^1\.0\.0/,
  );
  const before = turboHashes(join(dir, 'ws'), join(dir, 'home'));
  writeWorkspace(join(dir, 'ws'), lockfile('6.0.0'));
  const after = turboHashes(join(dir, 'ws'), join(dir, 'home'));
  assert.deepEqual([...before.keys()].sort(), ['packages/a', 'packages/b', 'packages/w']);
  // b's own entry moved: turbo sees it.
  assert.notEqual(before.get('packages/b')?.external, after.get('packages/b')?.external);
  // a's phantom-x resolves b's tiny-dep through the private hoist: turbo's key for a stays.
  assert.equal(before.get('packages/a')?.external, after.get('packages/a')?.external);
  assert.equal(before.get('packages/a')?.task, after.get('packages/a')?.task);
});
