// The pre-run check agrees with pnpm 10.34.8, 11.9.0 and 12.4.2 after a frozen install on a fresh clone of a
// workspace where a package sets `publishConfig.directory` (issue 28: TanStack/query's layout, two packages
// reproduce it; test/fixtures/install-check/pnpm-publish-dir). pnpm 10 and 11's frozen install leaves
// `publishDirectory` out of node_modules/.pnpm/lock.yaml; `lockguard run -- true` exits 0 on all three, and the
// per-project narrowing's test (`pnpmMarkerHolds`) holds in that state. A deleted package is still refused.
// pnpm 11 needs Node >= 22.13: it runs on the Node 22 of .ci/nodes.

import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pnpmMarkerHolds } from '../../lib/core/install-check.js';
import { repoRoot } from '../helpers/fixtures.js';
import {
  assertInstalled,
  assertRefused,
  fixtureWorkspace,
  makeRig,
  mustRunOnline,
} from '../helpers/install-check-rig.js';
import { PNPM10, PNPM12 } from '../helpers/tools.js';

const rig = makeRig('lockguard-install-pnpm-');
after(() => rmSync(rig.tmp, { recursive: true, force: true }));

const PNPM11 = [
  join(repoRoot(), '.ci/nodes/node_modules/node22/bin/node'),
  join(repoRoot(), '.ci/nodes/node_modules/pnpm11/bin/pnpm.mjs'),
];

const VERSIONS: readonly [string, readonly string[], boolean][] = [
  ['pnpm 10.34.8', [PNPM10.command, ...PNPM10.prefix], true],
  ['pnpm 11.9.0', PNPM11, true],
  ['pnpm 12.4.2', [PNPM12.command, ...PNPM12.prefix], false],
];

for (const [name, pnpm, drops] of VERSIONS) {
  test(`${name}: publishConfig.directory, a frozen install on a fresh clone passes the check`, () => {
    const root = fixtureWorkspace(rig, 'pnpm-publish-dir', name.replace(/\W/g, '-'));
    mustRunOnline([...pnpm, 'install'], root, rig.env);
    for (const folder of ['node_modules', 'packages/a/node_modules', 'packages/b/node_modules'])
      rmSync(join(root, folder), { recursive: true, force: true });
    mustRunOnline([...pnpm, 'install', '--frozen-lockfile'], root, rig.env);
    const lock = readFileSync(join(root, 'pnpm-lock.yaml'));
    const marker = readFileSync(join(root, 'node_modules/.pnpm/lock.yaml'));
    // The state under test: pnpm 10 and 11 drop the field from the marker, pnpm 12 keeps it.
    assert.equal(!marker.toString().includes('publishDirectory: publish'), drops, `${name}'s marker:\n${marker}`);
    assert.ok(lock.toString().includes('publishDirectory: publish'));
    assertInstalled(root, rig.env, `${name} install --frozen-lockfile`);
    assert.equal(pnpmMarkerHolds(lock, marker), true, 'the per-project narrowing sees the tree holding the lockfile');
    rmSync(join(root, 'node_modules/.pnpm/is-number@7.0.0'), { recursive: true });
    assertRefused(root, rig.env, ['is-number@7.0.0'], `${name}: the store folder is-number@7.0.0 deleted`);
  });
}
