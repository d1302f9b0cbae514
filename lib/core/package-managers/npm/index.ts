// npm's core half: its table entries, install check, layout and slices.
//
// Owns: the `PackageManagerCore` of npm (adapter.ts), listed in registry.ts.
// Invariants: values only; each member delegates to a module of this folder (the install check and the slice
// reader through ../chunk-load.ts, which a CLI bundle loads as a chunk) or a shared reader of core/.
// npm's lockfiles never name patch files; its pool is always at the root (measured:
// test/e2e/reach-npm-yarn.test.ts, a's own undeclared require resolves b's tiny-dep from the root).

import type { PackageManagerCore } from '../adapter.js';
import { managerChunk } from '../chunk-load.js';

const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json'] as const;
const NO_BYTES = /* @__PURE__ */ Buffer.alloc(0);

export const npm: PackageManagerCore = {
  name: 'npm',
  lockfiles: LOCKFILES,
  rootMarkers: [],
  entries: [
    { path: 'package-lock.json', kind: 'lockfile' },
    { path: 'npm-shrinkwrap.json', kind: 'lockfile' },
    { path: 'node_modules/.package-lock.json', kind: 'install-marker' },
  ],
  patches: { rootManifest: false, lockfileRegion: () => NO_BYTES },
  checkInstall: (table) => managerChunk('npm').checkNpm(table),
  poolAtRoot: () => true,
  slices: { lockfiles: LOCKFILES, graph: (bytes, absPath) => managerChunk('npm').npmSliceGraph(bytes, absPath) },
};
