// pnpm's lockfile reader for per-project slices: lockfileVersion 9.x from its text index, 6.x (pnpm 8)
// through @pnpm/lockfile-file, asynchronously (slices/slices.ts asks it through pnpm's adapter).
//
// Owns: `pnpmLockfileSliceGraph`, `pnpmSliceGraphAsync` and the refusal of other lockfile versions.
// Invariants: the 9.x path never loads @pnpm/lockfile-file; never echoes lockfile contents in errors.

import { LockguardError } from '../../errors.js';
import { printable } from '../../printable.js';
import type { LockfileGraph } from '../../slices/graph.js';
import { pnpmSliceGraph } from './graph.js';
import { indexPnpmLockfile } from './lockfile-index.js';
import { indexPnpmV6, isPnpmV6, sniffLockfileVersion } from './v6.js';

/** A 9.x lockfile read into the slice graph; another version is ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE. */
export function pnpmLockfileSliceGraph(bytes: Buffer, absPath: string): LockfileGraph {
  const index = indexPnpmLockfile(bytes, absPath);
  if (!/^9\.\d+$/.test(index.lockfileVersion))
    throw unsupportedVersion(absPath, index.lockfileVersion, isPnpmV6(index.lockfileVersion));
  return pnpmSliceGraph(index);
}

/** The same, 6.x included (read with @pnpm/lockfile-file, v6.ts). */
export async function pnpmSliceGraphAsync(bytes: Buffer, absPath: string, _options?: unknown): Promise<LockfileGraph> {
  // Sniffed on the first 4 KiB: lockfileVersion is pnpm's first key (after an env document's few lines).
  if (!isPnpmV6(sniffLockfileVersion(bytes.subarray(0, 4096).toString('utf8'))))
    return pnpmLockfileSliceGraph(bytes, absPath);
  return pnpmSliceGraph(await indexPnpmV6(bytes, absPath));
}

/** A lockfileVersion as an error may print it: a version number as written, anything else not echoed. */
function versionWord(version: string): string {
  if (version === '') return '(none)';
  return /^[0-9][0-9A-Za-z.+-]{0,15}$/.test(version) ? printable(version) : '(not a version number)';
}

function unsupportedVersion(absPath: string, version: string, v6: boolean): LockguardError {
  if (v6) {
    return new LockguardError(
      'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE',
      `The lockfile at "${absPath}" has lockfileVersion ${versionWord(version)} (pnpm 8): its slices are read asynchronously.`,
      {
        path: absPath,
        hint: 'Call slicesFromLockfileAsync / projectSlicesAsync (the CLI does), or upgrade the lockfile with pnpm 9 or later (pnpm install).',
      },
    );
  }
  return new LockguardError(
    'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE',
    `The lockfile at "${absPath}" has lockfileVersion ${versionWord(version)}: per-project slices read pnpm lockfiles 6.x (pnpm 8) and 9.x (pnpm 9 to 12).`,
    {
      path: absPath,
      hint: 'Rewrite it with a supported pnpm (pnpm install with pnpm 8 or later), or use the whole-table key (lockguard key).',
    },
  );
}
