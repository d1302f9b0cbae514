// One slice-file pass: from the workspace's lockfile (bytes the caller already read, or read here) to the
// per-project files (slice-files.ts), costing nothing beyond a stat per project when the lockfile is the one
// the files were last written for.
//
// Owns: `writeSliceFiles` (async: pnpm lockfileVersion 6.x included, for the CLI and `lockguard run`) and
// `writeSliceFilesSync` (for the install hooks, which run inside a package manager's exit: 9.x, npm, yarn, bun),
// `expectedSliceFiles` (what a pass would write, for `lockguard plan`), and `staleSliceFiles` (which files
// differ from that, for `lockguard key --check-slices` and doctor: committed files checked, nothing written).
// Invariants: the fast path reads the record and lstats each file it names, nothing else (no lockfile parse,
// no slice pass); a workspace without a sliceable lockfile (bun.lockb, pnpm 5.x) writes nothing and says why
// (the LockguardError of core/slices, thrown).

import { lstatSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileDigest } from '../core/digest.js';
import { readEntry, realFileSystem } from '../core/file-probe.js';
import { SLICE_LOCKFILES, slicesFromLockfile, slicesFromLockfileAsync } from '../core/slices/slices.js';
import { applySliceFiles, checkProjectFolders } from './slice-files-write.js';
import {
  recordDigest,
  SLICE_FILE,
  sliceFilesCurrent,
  sliceFilesIgnored,
  sliceFileText,
  type SliceLockfile,
  type SlicePass,
} from './slice-files.js';
import { aboveDigest, readAncestorMarkers, type FingerprintEntry } from '../core/fingerprints.js';
import { readConfigText } from '../core/bounded-read.js';

/** The lockfile a slice pass reads: from a table (its bytes and digests by path) when it holds one, else from disk. */
export function sliceLockfileOf(
  root: string,
  table?: {
    readonly files: ReadonlyMap<string, Buffer>;
    readonly entries: readonly { readonly path: string; readonly digest: string | null }[];
  },
): SliceLockfile | undefined {
  for (const [name] of SLICE_LOCKFILES) {
    const bytes = table?.files.get(name);
    const digest = table?.entries.find((entry) => entry.path === name)?.digest ?? undefined;
    if (bytes !== undefined) return digest === undefined ? { name, bytes } : { name, bytes, digest };
  }
  for (const [name] of SLICE_LOCKFILES) {
    const result = readEntry(realFileSystem, join(root, name));
    if (result.state === 'file') return { name, bytes: result.bytes };
  }
  return undefined;
}

/**
 * The above line every project's file folds (slice-files.ts): the digest of the install markers of the
 * `node_modules` folders above the root (`entries`: a table's, else read here), where any is present and the
 * files are gitignored; else undefined. One stat per ancestor when none holds a node_modules.
 */
function aboveFor(
  root: string,
  entries?: readonly Pick<FingerprintEntry, 'path' | 'kind' | 'digest'>[],
): string | undefined {
  const digest = aboveDigest(entries ?? readAncestorMarkers(root));
  return digest !== undefined && sliceFilesIgnored(root) ? digest : undefined;
}

/** The record digest when the files need a pass, or undefined when the record says they are current. */
function staleDigest(root: string, lockfile: SliceLockfile, above: string | undefined): string | undefined {
  const digest = recordDigest(lockfile.digest ?? fileDigest(lockfile.bytes), above);
  return sliceFilesCurrent(root, lockfile.name, digest) ? undefined : digest;
}

/** Write the workspace's slice files where they differ (undefined: no lockfile with slices, nothing written). */
export async function writeSliceFiles(
  root: string,
  lockfile: SliceLockfile | undefined = sliceLockfileOf(root),
  above: string | undefined = aboveFor(root),
): Promise<SlicePass | undefined> {
  if (lockfile === undefined) return undefined;
  const digest = staleDigest(root, lockfile, above);
  if (digest === undefined) return { kind: 'current' };
  const slices = await slicesFromLockfileAsync(lockfile.bytes, { lockfile: lockfile.name, root, names: false });
  return { kind: 'written', ...applySliceFiles(root, slices, digest, above) };
}

/** writeSliceFiles for the install hooks, synchronous (pnpm 6.x lockfiles are refused by core/slices). */
export function writeSliceFilesSync(
  root: string,
  lockfile: SliceLockfile | undefined = sliceLockfileOf(root),
): SlicePass | undefined {
  if (lockfile === undefined) return undefined;
  const above = aboveFor(root);
  const digest = staleDigest(root, lockfile, above);
  if (digest === undefined) return { kind: 'current' };
  return {
    kind: 'written',
    ...applySliceFiles(
      root,
      slicesFromLockfile(lockfile.bytes, { lockfile: lockfile.name, root, names: false }),
      digest,
      above,
    ),
  };
}

/** What the writer would write now, workspace-relative file → text; nothing written (`plan`'s "keys would change"). */
export async function expectedSliceFiles(
  root: string,
  lockfile: SliceLockfile | undefined = sliceLockfileOf(root),
): Promise<Map<string, string>> {
  const expected = new Map<string, string>();
  if (lockfile === undefined) return expected;
  const above = aboveFor(root);
  const slices = await slicesFromLockfileAsync(lockfile.bytes, { lockfile: lockfile.name, root, names: false });
  const rootDigest = slices.slices.find((slice) => slice.importer === '.')?.digest;
  for (const slice of slices.slices) {
    const file = slice.importer === '.' ? SLICE_FILE : `${slice.importer}/${SLICE_FILE}`;
    expected.set(
      file,
      sliceFileText(slice.importer, slice.digest, slice.importer === '.' ? undefined : rootDigest, slice.reach, above),
    );
  }
  return expected;
}

/** The files that are not what the writer would write now (workspace-relative; a link or folder there differs); nothing written. */
export async function staleSliceFiles(
  root: string,
  lockfile: SliceLockfile | undefined = sliceLockfileOf(root),
): Promise<{ files: string[]; missing: string[]; differ: string[] } | undefined> {
  if (lockfile === undefined) return undefined;
  const missing: string[] = [];
  const differ: string[] = [];
  const expected = await expectedSliceFiles(root, lockfile);
  // A project folder linked outside the workspace is refused by name ("outside"), never compared as "stale".
  checkProjectFolders(
    root,
    [...expected.keys()].map((file) => posix.dirname(file)),
  );
  for (const [file, text] of expected) {
    const path = join(root, file);
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats === undefined) missing.push(file);
    else if (!stats.isFile() || readConfigText(path, root) !== text) differ.push(file);
  }
  return { files: [...expected.keys()], missing, differ };
}
