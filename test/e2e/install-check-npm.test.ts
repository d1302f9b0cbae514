// The pre-run check agrees with npm 11.19.1 on registry packages (issue 28): test/fixtures/install-check/npm-peer
// (use-sync-external-store and zustand, whose peer react npm installs with `"peer": true`; esbuild with its
// per-platform optional packages). After `npm ci`, and after a plain `npm install` over it, `lockguard run --
// true` exits 0; a deleted package is still refused. (Flags npm recomputes per tree are not compared:
// test/core/install-check.test.ts, on hand-made lockfiles: no flag-only difference between the two files
// was produced by npm 11.19.1 in this workspace.)

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { NPM_BIN } from '../helpers/env.js';
import {
  assertInstalled,
  assertRefused,
  fixtureWorkspace,
  makeRig,
  mustRunOnline,
} from '../helpers/install-check-rig.js';

const rig = makeRig('lockguard-install-npm-');
after(() => rmSync(rig.tmp, { recursive: true, force: true }));

test('npm: a registry install with an auto-installed peer passes; a deleted peer is refused', () => {
  const root = fixtureWorkspace(rig, 'npm-peer');
  const npm = join(NPM_BIN, 'npm');
  mustRunOnline([npm, 'ci', '--no-audit', '--no-fund'], root, rig.env);
  assertInstalled(root, rig.env, 'npm ci');
  mustRunOnline([npm, 'install', '--no-audit', '--no-fund'], root, rig.env);
  assertInstalled(root, rig.env, 'npm install after npm ci');
  rmSync(join(root, 'node_modules', 'react'), { recursive: true });
  assertRefused(root, rig.env, ['node_modules/react'], 'the peer react deleted');
});
