// The size limit of each kind of workspace file lockguard reads, and the refusal of a file over it.
//
// Owns: `READ_LIMITS`, `ReadKind`, `tooLarge` (the LockguardError naming the path, the limit and the fix),
// shared by the bounded reader (core/bounded-read.ts) and the fingerprint table's reads (core/file-probe.ts).
// Invariants: a limit is a byte count checked before a read and again while reading; the message never
// holds the file's bytes.

import { LockguardError } from './errors.js';

const MiB = 1024 * 1024;

/**
 * The largest file of each kind lockguard reads. Lockfiles: hundreds of times a large real one (vite's is
 * 0.5 MB), and half the longest string V8 can hold (512 MiB), so a lockfile's text always fits; configs,
 * manifests and ignore files are written by hand or by a tool from a few settings. A table entry (any file of
 * the fingerprint table: a lockfile, a workspace manifest, a patch, an install marker) is read under the
 * lockfile's limit, and named as what it is.
 */
export const READ_LIMITS = { config: 16 * MiB, lockfile: 256 * MiB, entry: 256 * MiB } as const;

/** Which limit a file is read under. */
export type ReadKind = keyof typeof READ_LIMITS;

const NAMES: Record<ReadKind, string> = {
  config: 'a configuration file or manifest',
  lockfile: 'a lockfile',
  entry: 'a file of the fingerprint table (a lockfile, workspace manifest, patch or install marker)',
};

function sizeOf(bytes: number): string {
  if (bytes >= 1024 * MiB) return `${(bytes / (1024 * MiB)).toFixed(1)} GiB`;
  return bytes >= MiB ? `${Math.round(bytes / MiB)} MiB` : `${bytes} bytes`;
}

/** The refusal of a file over its kind's limit. */
export function tooLarge(absPath: string, kind: ReadKind, found?: number): LockguardError {
  const limit = READ_LIMITS[kind];
  const what = NAMES[kind];
  const size = found === undefined ? 'more than that' : sizeOf(found);
  return new LockguardError(
    'ERR_LOCKGUARD_TOO_LARGE',
    `"${absPath}" is too large to be ${what}: lockguard reads at most ${sizeOf(limit)}, and it holds ${size}.`,
    {
      path: absPath,
      hint: `Check that it is the file you meant (regenerate it with the tool that writes it); lockguard reads no ${kind === 'entry' ? 'such file' : kind} over ${sizeOf(limit)}.`,
    },
  );
}
