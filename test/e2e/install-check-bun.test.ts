// The pre-run check agrees with bun 1.4.5 about what "installed" means, on registry packages (issue 28):
// test/fixtures/install-check/bun (is-number, esbuild and rollup with their per-platform optional packages,
// rollup's split by libc, use-sync-external-store with react as a peer), installed from the npm registry
// with a fresh, isolated cache, by both linkers and a frozen install: `lockguard run -- true` exits 0.
// A deleted package, and another version installed over the lockfile's (`bun add --no-save`), still exit 3
// naming the package by name and version.

import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { assertInstalled, assertRefused, fixtureWorkspace, makeRig } from '../helpers/install-check-rig.js';
import { BUN, mustRun } from '../helpers/tools.js';

const rig = makeRig('lockguard-install-bun-');
after(() => rmSync(rig.tmp, { recursive: true, force: true }));

test('bun hoisted linker: a registry install passes; a deleted package and a swapped version are refused', () => {
  const root = fixtureWorkspace(rig, 'bun', 'hoisted');
  const lock = readFileSync(join(root, 'bun.lock'));
  mustRun(BUN, ['install', '--frozen-lockfile', '--linker', 'hoisted'], root, rig.env);
  assertInstalled(root, rig.env, 'bun install --frozen-lockfile --linker hoisted');
  mustRun(BUN, ['install'], root, rig.env);
  assertInstalled(root, rig.env, 'a plain bun install after it');
  rmSync(join(root, 'node_modules', 'esbuild'), { recursive: true });
  assertRefused(root, rig.env, ['esbuild@0.28.2'], 'node_modules/esbuild deleted');
  mustRun(BUN, ['install', '--frozen-lockfile', '--linker', 'hoisted'], root, rig.env);
  assertInstalled(root, rig.env, 'reinstalled');
  mustRun(BUN, ['add', '--no-save', 'is-number@6.0.0'], root, rig.env);
  assertRefused(root, rig.env, ['is-number@7.0.0'], 'is-number 6.0.0 installed over 7.0.0');
  if (!readFileSync(join(root, 'bun.lock')).equals(lock)) throw new Error('bun.lock changed under the test');
});

test('bun isolated linker: a registry install passes; a deleted store folder and a swapped link are refused', () => {
  const root = fixtureWorkspace(rig, 'bun', 'isolated');
  mustRun(BUN, ['install', '--frozen-lockfile', '--linker', 'isolated'], root, rig.env);
  assertInstalled(root, rig.env, 'bun install --frozen-lockfile --linker isolated');
  rmSync(join(root, 'node_modules', '.bun', 'is-number@7.0.0'), { recursive: true });
  assertRefused(root, rig.env, ['is-number@7.0.0'], 'the store folder is-number@7.0.0 deleted');
  mustRun(BUN, ['install', '--frozen-lockfile', '--linker', 'isolated'], root, rig.env);
  assertInstalled(root, rig.env, 'reinstalled');
  mustRun(BUN, ['add', '--no-save', 'is-number@6.0.0'], root, rig.env);
  assertRefused(root, rig.env, ['is-number@7.0.0'], 'node_modules/is-number linked to 6.0.0');
});
