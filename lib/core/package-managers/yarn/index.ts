// yarn's core half (berry and v1 are one manager): its table entries, patch sources, install check, layout
// and slices.
//
// Owns: the `PackageManagerCore` of yarn (adapter.ts), listed in registry.ts.
// Invariants: values only; each member delegates to a module of this folder (the install check and the slice
// reader through ../chunk-load.ts, which a CLI bundle loads as a chunk) or a shared reader of core/.
// Each flavour's files are absent in the other's workspace, and an absent entry costs one lstat. Measured
// with yarn 4.18.1 and yarn 1.22.22 (core/README.md has the table).

import { configText, yamlKey } from '../../config-settings.js';
import { managerChunk } from '../chunk-load.js';
import type { PackageManagerCore } from '../adapter.js';
import { yarnPatchPaths } from './patches.js';

/** yarn's lockfile (berry or v1: init tells them apart by it). */
export const YARN_LOCKFILE = 'yarn.lock';
const LOCKFILE = YARN_LOCKFILE;
const NO_BYTES = /* @__PURE__ */ Buffer.alloc(0);

/** yarn v1 and berry's `node-modules` and `pnpm` linkers hoist to the root; PnP (berry's default) does not. */
function yarnPoolAtRoot(root: string, lockfileHead: string): boolean {
  if (!/^__metadata:/m.test(lockfileHead)) return true;
  const linker = yamlKey(configText(root, '.yarnrc.yml'), 'nodeLinker');
  return linker !== undefined && linker !== '' && linker !== 'pnp';
}

export const yarn: PackageManagerCore = {
  name: 'yarn',
  lockfiles: [LOCKFILE],
  rootMarkers: [],
  entries: [
    { path: LOCKFILE, kind: 'lockfile' },
    // berry: its settings (nodeLinker, the cache, ...); classic: .yarnrc (its flags, the registry).
    { path: '.yarnrc.yml', kind: 'config' },
    { path: '.yarnrc', kind: 'config' },
    // Not `.yarn/install-state.gz`: its bytes vary between installs of one lockfile (state.ts), and
    // the one field that does not costs a gunzip of the whole state (42 ms for 2,500 packages, against
    // 2.4 ms to hash it): the pre-run check reads it itself. What it records shows in these:
    // berry PnP (the default linker): the resolution map Node loads; the loader and the data file exist
    // only with ESM packages or pnpEnableInlining: false.
    { path: '.pnp.cjs', kind: 'install-marker' },
    { path: '.pnp.loader.mjs', kind: 'install-marker' },
    { path: '.pnp.data.json', kind: 'install-marker' },
    // berry nodeLinker: node-modules (every installed package and its locations).
    { path: 'node_modules/.yarn-state.yml', kind: 'install-marker' },
    // classic: the lockfile entries the last install linked.
    { path: 'node_modules/.yarn-integrity', kind: 'install-marker' },
  ],
  patches: {
    rootManifest: false,
    // yarn names patch files in its own `patch:` descriptors, found by yarnPatchPaths, not in a block.
    lockfileRegion: () => NO_BYTES,
    fromLockfile(files) {
      const lock = files.get(LOCKFILE);
      return lock === undefined ? [] : yarnPatchPaths(lock);
    },
  },
  checkInstall: (table) => managerChunk('yarn').checkYarn(table),
  poolAtRoot: yarnPoolAtRoot,
  slices: {
    lockfiles: [LOCKFILE],
    graph: (bytes, absPath, options) =>
      managerChunk('yarn').yarnSliceGraph(bytes.toString('utf8'), absPath, options.root, options.redacted),
  },
};
