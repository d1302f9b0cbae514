// pnpm's core half: its table entries, patch sources, workspace root, install check, layout and slices.
//
// Owns: the `PackageManagerCore` of pnpm (adapter.ts), listed in registry.ts.
// Invariants: values only; each member delegates to a module of this folder (the install check and the slice
// reader through ../chunk-load.ts, which a CLI bundle loads as a chunk) or a shared reader of core/.
// Facts measured with pnpm 10 and 12 (test/e2e/*pnpm*.test.ts); what a module reads is in its header.

import { startsWith } from '../../digest.js';
import { configText, npmrcKey, yamlKey } from '../../config-settings.js';
import type { PackageManagerCore } from '../adapter.js';
import { managerChunk } from '../chunk-load.js';
import { findPnpmRoot } from './workspace-root.js';
import { isRushLockfile, readRushConfig, RUSH_JSON, RUSH_PNPM_ENTRIES, rushProjectFolder } from './rush.js';

/** pnpm's lockfile (init and uninstall edit its pnpmfileChecksum line). */
export const PNPM_LOCKFILE = 'pnpm-lock.yaml';
const LOCKFILE = PNPM_LOCKFILE;

function pnpmPoolAtRoot(root: string): boolean {
  const npmrc = configText(root, '.npmrc');
  const yaml = configText(root, 'pnpm-workspace.yaml');
  const linker = yamlKey(yaml, 'nodeLinker') ?? npmrcKey(npmrc, 'node-linker');
  const shameful = yamlKey(yaml, 'shamefullyHoist') ?? npmrcKey(npmrc, 'shamefully-hoist');
  // YAML: a block list (`publicHoistPattern:` then `  - x`) reads as an empty first line, counted as set;
  // .npmrc: `public-hoist-pattern=` (empty) is the empty list.
  const yamlPublic = yamlKey(yaml, 'publicHoistPattern');
  const npmrcPublic = npmrcKey(npmrc, 'public-hoist-pattern');
  const publicSet =
    yamlPublic !== undefined
      ? yamlPublic !== '[]' && yamlPublic !== "''"
      : npmrcPublic !== undefined && npmrcPublic !== '' && npmrcPublic !== '[]';
  return linker === 'hoisted' || shameful === 'true' || publicSet;
}

/**
 * pnpm names patch files in its main document's header, before `importers:`, where it writes
 * `patchedDependencies` (pnpm 12's env document is skipped). Only the header is searched because a search
 * for an absent needle through a whole lockfile costs about half of hashing it (measured: 150 µs of 290 µs on
 * vite's 0.5 MB lockfile). A block placed after `importers:` by hand is not seen; the lockfile's own bytes
 * are in the key either way.
 */
function lockfileRegion(_relPath: string, bytes: Buffer): Buffer {
  let start = 0;
  if (startsWith(bytes, '---\n')) {
    const second = bytes.indexOf('\n---\n', 3);
    if (second !== -1) start = second + 5;
  }
  const end = bytes.indexOf('\nimporters:', start);
  return bytes.subarray(start, end === -1 ? bytes.length : end + 1);
}

export const pnpm: PackageManagerCore = {
  name: 'pnpm',
  lockfiles: [LOCKFILE],
  rootMarkers: ['pnpm-workspace.yaml'],
  findRoot: findPnpmRoot,
  // A Rush repository in pnpm mode: its lockfile is common/config/rush/pnpm-lock.yaml (rush.ts).
  layout: {
    marker: RUSH_JSON,
    entriesAt: (root) => (readRushConfig(root) === undefined ? undefined : RUSH_PNPM_ENTRIES),
    entries: RUSH_PNPM_ENTRIES,
  },
  entries: [
    { path: LOCKFILE, kind: 'lockfile' },
    { path: 'pnpm-workspace.yaml', kind: 'workspace-manifest' },
    { path: '.pnpmfile.cjs', kind: 'pnpmfile' },
    { path: '.pnpmfile.mjs', kind: 'pnpmfile' },
    { path: 'node_modules/.pnpm/lock.yaml', kind: 'install-marker' },
    { path: 'node_modules/.modules.yaml', kind: 'install-marker', normalize: 'modules-yaml' },
  ],
  // pnpm 9/10 accept `pnpm.patchedDependencies` in the root package.json.
  patches: { rootManifest: true, lockfileRegion },
  checkInstall: (table) => managerChunk('pnpm').checkPnpm(table),
  poolAtRoot: pnpmPoolAtRoot,
  slices: {
    lockfiles: [LOCKFILE],
    importerFolder: (lockfile, importer) => (isRushLockfile(lockfile) ? rushProjectFolder(importer) : importer),
    graph: (bytes, absPath) => managerChunk('pnpm').pnpmLockfileSliceGraph(bytes, absPath),
  },
};
