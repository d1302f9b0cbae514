// Which projects fold the hoisted pool (core/slices/reach.ts): a project that installs a package does; a
// pnpm `link:` to a folder that is no importer (outside the workspace, or a plain folder in it) installs
// nothing, so it does not make its project fold the pool (Node resolves a linked folder from its real path).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slicesFromLockfile } from '../../../lib/core/slices/index.js';

const LOCK = `lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

importers:

  .: {}

  packages/a:
    dependencies:
      outside:
        specifier: link:../../../outside
        version: link:../../../outside

  packages/b:
    dependencies:
      inside:
        specifier: link:../../vendor/inside
        version: link:../../vendor/inside

  packages/c:
    dependencies:
      a:
        specifier: workspace:*
        version: link:../a
      is-number:
        specifier: ^7.0.0
        version: 7.0.0

packages:

  is-number@7.0.0:
    resolution: {integrity: sha512-41Cifkg6e8TylSpdtTpeLVMqvSBEVzTttHvERD741+pnZ8ANv0004MRL43QKPDlK9cGvNp6NZWZUBlbGXYxxng==}
    engines: {node: '>=0.12.0'}

snapshots:

  is-number@7.0.0: {}
`;

test('a link: to a folder outside the workspace, or to a plain folder in it, does not fold the pool; a package does', () => {
  const sliced = slicesFromLockfile(Buffer.from(LOCK), {
    lockfile: 'pnpm-lock.yaml',
    root: '/nonexistent-lockguard-root',
    poolAtRoot: false,
  });
  const reach = Object.fromEntries(sliced.slices.map((slice) => [slice.importer, slice.reach]));
  assert.deepEqual(reach, {
    '.': undefined,
    'packages/a': undefined,
    'packages/b': undefined,
    'packages/c': sliced.pool,
  });
  // The link is still in a's own slice: moving it moves a.
  const moved = slicesFromLockfile(Buffer.from(LOCK.replaceAll('../../../outside', '../../../elsewhere')), {
    lockfile: 'pnpm-lock.yaml',
    root: '/nonexistent-lockguard-root',
    poolAtRoot: false,
  });
  const digest = (of: typeof sliced, importer: string): string | undefined =>
    of.slices.find((slice) => slice.importer === importer)?.digest;
  assert.notEqual(digest(moved, 'packages/a'), digest(sliced, 'packages/a'));
  assert.equal(digest(moved, 'packages/b'), digest(sliced, 'packages/b'));
});
