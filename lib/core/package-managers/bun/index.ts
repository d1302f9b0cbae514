// bun's core half: its table entries, patch sources, install check, layout and slices (text bun.lock).
//
// Owns: the `PackageManagerCore` of bun (adapter.ts), listed in registry.ts.
// Invariants: values only; each member delegates to a module of this folder (the install check and the slice
// reader through ../chunk-load.ts, which a CLI bundle loads as a chunk) or a shared reader of core/.
// bun writes no install marker (measured with bun 1.4.5): the pre-run check reads each package's .bun-tag.

import { configText } from '../../config-settings.js';
import { managerChunk } from '../chunk-load.js';
import type { PackageManagerCore } from '../adapter.js';

const TEXT = 'bun.lock';
const BINARY = 'bun.lockb';
const NO_BYTES = /* @__PURE__ */ Buffer.alloc(0);

/** bun.lock names patch files in a top-level `patchedDependencies` map, which bun writes before `packages`. */
function lockfileRegion(relPath: string, bytes: Buffer): Buffer {
  if (relPath !== TEXT) return NO_BYTES;
  const end = bytes.indexOf('\n  "packages": {');
  return bytes.subarray(0, end === -1 ? bytes.length : end + 1);
}

/** bunfig.toml's linker decides; without one, bun 1.3+ (configVersion 1) installs isolated, before hoisted. */
function bunPoolAtRoot(root: string, lockfileHead: string): boolean {
  const linker = /^\s*linker\s*=\s*["'](\w+)["']/m.exec(configText(root, 'bunfig.toml'))?.[1];
  if (linker !== undefined) return linker !== 'isolated';
  // bun 1.3+ writes configVersion 1 and installs a workspace isolated by default (measured with bun 1.4.5:
  // node_modules/.bun/node_modules is the private pool, the root holds the root's own); before, hoisted.
  const config = /"configVersion"\s*:\s*(\d+)/.exec(lockfileHead)?.[1];
  return config === undefined || Number(config) < 1;
}

export const bun: PackageManagerCore = {
  name: 'bun',
  lockfiles: [TEXT, BINARY],
  rootMarkers: [],
  entries: [
    { path: TEXT, kind: 'lockfile' },
    { path: BINARY, kind: 'lockfile' },
    { path: 'bunfig.toml', kind: 'config' },
    // No marker: bun keeps no record of what it installed (each package folder's .bun-tag holds its
    // integrity; the pre-run check reads those).
  ],
  // bun accepts a `patchedDependencies` map in the root package.json too.
  patches: { rootManifest: true, lockfileRegion },
  checkInstall: (table) => managerChunk('bun').checkBun(table),
  poolAtRoot: bunPoolAtRoot,
  slices: {
    lockfiles: [TEXT],
    refused: {
      lockfile: BINARY,
      why: "is bun's binary lockfile",
      hint: 'bun.lockb is binary: let bun write the text lockfile (bun install --save-text-lockfile, bun 1.2+), or use the whole-table key (lockguard key).',
      rootHint:
        'Let bun write the text lockfile (bun install --save-text-lockfile, bun 1.2+; then remove bun.lockb), or use the whole-table key (lockguard key).',
    },
    graph: (bytes, absPath) => {
      const chunk = managerChunk('bun');
      return chunk.bunSliceGraph(chunk.readBunLock(bytes.toString('utf8'), absPath), absPath);
    },
  },
};
