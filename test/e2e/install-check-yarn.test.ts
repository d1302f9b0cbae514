// The pre-run check agrees with yarn 4.18.1 about what "installed" means, on registry packages (issue 28):
// - PnP (test/fixtures/install-check/yarn-pnp: esbuild with its 25 per-platform packages, is-number): the
//   map lists every platform's package, yarn unplugs only those `supportedArchitectures` allows; after
//   `yarn install --immutable` the check passes, by default and with the setting widened, and a deleted
//   unplugged package (this platform's, or a widened one's) is still refused by name and version.
// - node-modules (yarn-nm: zustand, whose peers two workspaces resolve differently, so yarn's hoister
//   merges two virtual instances and records the second as an alias): the check passes, a deleted
//   package is named `zustand@5.0.5`, never by a virtual id, and a deleted node_modules is refused.

import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { assertInstalled, assertRefused, fixtureWorkspace, makeRig } from '../helpers/install-check-rig.js';
import { mustRun, YARN } from '../helpers/tools.js';

const rig = makeRig('lockguard-install-yarn-', { YARN_ENABLE_NETWORK: 'true' });
after(() => rmSync(rig.tmp, { recursive: true, force: true }));

const unplugged = (root: string): string[] => readdirSync(join(root, '.yarn', 'unplugged')).sort();

test('yarn 4 PnP: only the platform packages yarn installs here are checked, by default and widened', () => {
  const root = fixtureWorkspace(rig, 'yarn-pnp');
  mustRun(YARN, ['install', '--immutable'], root, rig.env);
  assertInstalled(root, rig.env, 'yarn install --immutable (PnP)');
  const here = unplugged(root).find((name) => name.startsWith(`@esbuild-${process.platform}-${process.arch}-`));
  if (here === undefined)
    throw new Error(`no unplugged esbuild package for this platform: ${unplugged(root).join(', ')}`);
  rmSync(join(root, '.yarn', 'unplugged', here), { recursive: true });
  assertRefused(root, rig.env, [`@esbuild/${process.platform}-${process.arch}@0.28.2`], 'this platform deleted');

  const other = process.platform === 'darwin' ? 'linux' : 'darwin';
  writeFileSync(
    join(root, '.yarnrc.yml'),
    `supportedArchitectures:\n  os:\n    - current\n    - ${other}\n  cpu: [current, arm64]\n`,
  );
  mustRun(YARN, ['install', '--immutable'], root, rig.env);
  assertInstalled(root, rig.env, `yarn install --immutable with supportedArchitectures widened to ${other}`);
  const widened = unplugged(root).find((name) => name.startsWith(`@esbuild-${other}-arm64-`));
  if (widened === undefined) throw new Error(`yarn did not unplug ${other}-arm64: ${unplugged(root).join(', ')}`);
  rmSync(join(root, '.yarn', 'unplugged', widened), { recursive: true });
  assertRefused(root, rig.env, [`@esbuild/${other}-arm64@0.28.2`], 'a widened platform deleted');
});

test('yarn 4 node-modules: merged virtual instances pass; a deleted package is named by name@version', () => {
  const root = fixtureWorkspace(rig, 'yarn-nm');
  mustRun(YARN, ['install', '--immutable'], root, rig.env);
  const state = readFileSync(join(root, 'node_modules', '.yarn-state.yml'), 'utf8');
  if (!/^ {2}aliases:\n {4}- "virtual:[0-9a-f]{128}#npm:5\.0\.5"$/m.test(state))
    throw new Error(`yarn merged no virtual zustand here (the case under test):\n${state}`);
  assertInstalled(root, rig.env, 'yarn install --immutable (node-modules, aliased virtual zustand)');
  rmSync(join(root, 'node_modules', 'zustand'), { recursive: true });
  assertRefused(root, rig.env, ['zustand@5.0.5'], 'node_modules/zustand deleted');
  // The whole tree removed (its state file with it): refused, never "nothing listed, nothing missing".
  rmSync(join(root, 'node_modules'), { recursive: true });
  assertRefused(root, rig.env, ['node_modules/.yarn-state.yml is missing'], 'node_modules deleted');
});
