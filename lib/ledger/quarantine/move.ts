// Moving cache entries without losing a byte: the file-system half of quarantine.
//
// Owns: checking that a path stays inside its cache dir without crossing a symlink, recording a tree
// (kind, size, sha256 of every regular file; a link's target, never what it points at), comparing trees,
// and moving a tree by rename, falling back (on EXDEV only) to a copy under a stage name, verified, then
// renamed into place, then the source removed.
// Invariants:
// - Never follows a symlink: trees are walked with lstat, links are recorded and moved as links; the
//   target's parent folders are created one checked component at a time (ledger-fs.ts safeFolder).
// - Never opens anything but a regular file (a FIFO or device is recorded by kind, never read).
// - Never deletes a source before its copy verified equal; a failed copy removes only the copy.
// - A copy is made under `.lockguard-stage-<name>` next to its target and renamed only once verified, so a
//   copy torn by a kill is never taken for an entry (repair removes stages: repair.ts).

import { nodeCrypto } from '../../core/lazy-builtins.js';
import {
  closeSync,
  constants,
  cpSync,
  lstatSync,
  openSync,
  readSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { errnoCode, LockguardError } from '../../core/errors.js';
import { fsFault } from '../../core/fs-fault.js';
import { noteRenamed } from '../atomic.js';
import { safeFolder } from '../ledger-fs.js';

type TreeKind = 'file' | 'dir' | 'link' | 'special';

/** One node of a recorded tree, path relative to the cache dir (POSIX separators). */
export interface TreeFile {
  readonly path: string;
  readonly kind: TreeKind;
  readonly size: number;
  readonly mode: number;
  /** sha256 of the bytes, regular files only. */
  readonly sha256?: string;
  /** A link's target as written, links only. */
  readonly target?: string;
}

export type RenameFn = (from: string, to: string) => void;

/** The name a copy across file systems is made under before it is verified and renamed into place. */
const STAGE_PREFIX = '.lockguard-stage-';

export function stageOf(path: string): string {
  return join(dirname(path), `${STAGE_PREFIX}${basename(path)}`);
}

/** A relative path that is safe to join under a folder: no `..`, not absolute, not empty. */
export function isSafeRelative(path: string): boolean {
  if (path === '' || path.includes('\0') || isAbsolute(path)) return false;
  const clean = normalize(path);
  return clean !== '..' && !clean.startsWith(`..${sep}`) && !clean.split(sep).includes('..') && clean !== '.';
}

/**
 * The first component between `base` and `base/rel` (exclusive of the leaf) that is not a real folder,
 * or undefined when every parent is one. A symlinked parent could lead out of the cache dir.
 */
export function crossedLink(base: string, rel: string): string | undefined {
  const parts = normalize(rel).split(sep);
  let current = base;
  for (const part of parts.slice(0, -1)) {
    current = join(current, part);
    const stats = lstatSync(current, { throwIfNoEntry: false });
    if (stats === undefined) return undefined;
    if (!stats.isDirectory()) return current;
  }
  return undefined;
}

/** One read buffer for every hash (the pass is synchronous between units). */
const HASH_BUFFER = Buffer.allocUnsafe(1 << 16);

function hashFile(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const hash = nodeCrypto().createHash('sha256');
    const buffer = HASH_BUFFER;
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
    return hash.digest('hex');
  } finally {
    closeSync(fd);
  }
}

/** Record `base/rel` and everything below it (lstat only; links are not followed). `known`: its lstat, when the caller has it. */
export function recordTree(base: string, rel: string, out: TreeFile[] = [], known?: Stats): TreeFile[] {
  const abs = join(base, rel);
  const stats = known ?? lstatSync(abs);
  const posix = rel.split(sep).join('/');
  if (stats.isSymbolicLink()) {
    out.push({ path: posix, kind: 'link', size: stats.size, mode: stats.mode, target: readlinkSync(abs) });
  } else if (stats.isDirectory()) {
    out.push({ path: posix, kind: 'dir', size: 0, mode: stats.mode });
    for (const name of readdirSync(abs).sort()) recordTree(base, join(rel, name), out);
  } else if (stats.isFile()) {
    out.push({ path: posix, kind: 'file', size: stats.size, mode: stats.mode, sha256: hashFile(abs) });
  } else {
    out.push({ path: posix, kind: 'special', size: 0, mode: stats.mode });
  }
  return out;
}

/** The recorded files of one of a unit's paths (the path itself and everything below it). */
export function filesUnder(files: readonly TreeFile[], path: string): TreeFile[] {
  const posix = path.split(sep).join('/');
  return files.filter((file) => file.path === posix || file.path.startsWith(`${posix}/`));
}

function sameNode(a: TreeFile, b: TreeFile): boolean {
  return (
    a.kind === b.kind && a.sha256 === b.sha256 && a.target === b.target && (a.kind !== 'file' || a.size === b.size)
  );
}

/** Differences between two recordings of the same tree (paths re-based), empty when equal. */
export function treeDifferences(expected: readonly TreeFile[], actual: readonly TreeFile[]): string[] {
  const byPath = new Map(actual.map((file) => [file.path, file]));
  const problems: string[] = [];
  for (const file of expected) {
    const found = byPath.get(file.path);
    if (found === undefined) problems.push(`${file.path}: missing`);
    else if (found.kind !== file.kind) problems.push(`${file.path}: ${file.kind} became ${found.kind}`);
    else if (!sameNode(found, file)) problems.push(`${file.path}: bytes differ`);
    byPath.delete(file.path);
  }
  for (const path of byPath.keys()) problems.push(`${path}: unexpected`);
  return problems;
}

/** True when every node of `actual` is in `expected` with the same bytes: a partly removed copy of it. */
export function isPartOf(expected: readonly TreeFile[], actual: readonly TreeFile[]): boolean {
  const byPath = new Map(expected.map((file) => [file.path, file]));
  return actual.every((file) => {
    const want = byPath.get(file.path);
    return want !== undefined && sameNode(want, file);
  });
}

/** Re-base a recorded tree from one relative root to another (for comparing a copy with its source). */
function rebase(files: readonly TreeFile[], from: string, to: string): TreeFile[] {
  return files.map((file) => ({ ...file, path: to + file.path.slice(from.length) }));
}

/** Record `base/rel` when it is there (undefined when not), never throwing for a vanished node. */
export function recordIfThere(base: string, rel: string): TreeFile[] | undefined {
  if (lstatSync(join(base, rel), { throwIfNoEntry: false }) === undefined) return undefined;
  try {
    return recordTree(base, rel);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Create `toBase/<dirname of toRel>` one checked component at a time (never through a link). */
function parentsOf(toBase: string, toRel: string): void {
  const parent = dirname(normalize(toRel));
  if (parent !== '.') safeFolder(toBase, parent.split(sep), true);
}

/**
 * Move `fromBase/fromRel` to `toBase/toRel` (parents of the target are created). Rename first; on EXDEV,
 * copy to a stage name next to the target, verify it against `recorded` (the source's recording), rename
 * it into place, then remove the source.
 */
export function moveTree(
  fromBase: string,
  fromRel: string,
  toBase: string,
  toRel: string,
  recorded: readonly TreeFile[],
  rename: RenameFn = renameSync,
): void {
  const from = join(fromBase, fromRel);
  const to = join(toBase, toRel);
  makeRoomFor(toBase, toRel, from);
  try {
    rename(from, to);
    // Made durable before the journal's outcome for it (ledger/atomic.ts syncRenamedFolders).
    noteRenamed(from, to);
    return;
  } catch (error) {
    if (errnoCode(error) !== 'EXDEV') throw ioError(from, to, error);
  }
  copyAcross(fromRel, toBase, toRel, recorded, { from, to });
}

/** The target's parent folders made; a target that already exists refuses the move (nothing moved). */
function makeRoomFor(toBase: string, toRel: string, from: string): void {
  const to = join(toBase, toRel);
  try {
    parentsOf(toBase, toRel);
  } catch (error) {
    throw fsFault(error, dirname(to), 'create the folder');
  }
  if (lstatSync(to, { throwIfNoEntry: false }) !== undefined) {
    throw new LockguardError('ERR_LOCKGUARD_EXISTS', `Cannot move "${from}" to "${to}": something is already there.`, {
      path: to,
      hint: 'Nothing was moved. Move the existing file away, then retry.',
    });
  }
}

/** Across file systems: a copy into a stage beside the target, verified against `recorded`, renamed in, then the source removed. */
function copyAcross(
  fromRel: string,
  toBase: string,
  toRel: string,
  recorded: readonly TreeFile[],
  { from, to }: { from: string; to: string },
): void {
  if (recorded.some((file) => file.kind === 'special')) {
    throw new LockguardError(
      'ERR_LOCKGUARD_IO',
      `Cannot copy "${from}" across file systems: it holds a FIFO, socket or device.`,
      {
        path: from,
        hint: "Nothing was moved. Put lockguard's folder (.lockguard) on the same file system as the cache.",
      },
    );
  }
  const stage = stageOf(to);
  try {
    // A stage left by a killed copy is never an entry (its source is still in place): start afresh.
    rmSync(stage, { recursive: true, force: true });
    cpSync(from, stage, {
      recursive: true,
      verbatimSymlinks: true,
      errorOnExist: true,
      force: false,
      preserveTimestamps: true,
    });
    const fromPosix = fromRel.split(sep).join('/');
    const stageRel = join(dirname(toRel), basename(stage)).split(sep).join('/');
    const problems = treeDifferences(rebase(recorded, fromPosix, stageRel), recordTree(toBase, stageRel));
    if (problems.length > 0) throw new Error(`copy differs from its source: ${problems.slice(0, 3).join('; ')}`);
    renameSync(stage, to);
    noteRenamed(from, to);
  } catch (error) {
    rmSync(stage, { recursive: true, force: true });
    throw ioError(from, to, error);
  }
  try {
    rmSync(from, { recursive: true, force: true });
  } catch (error) {
    // The verified copy is in place; what is left of the source is finished by the repair pass.
    throw ioError(from, to, error);
  }
}

function ioError(from: string, to: string, cause: unknown): LockguardError {
  if (cause instanceof LockguardError) return cause;
  const code = errnoCode(cause);
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EROFS') return fsFault(cause, to, 'move a cache entry to');
  return new LockguardError(
    code === 'EACCES' || code === 'EPERM' ? 'ERR_LOCKGUARD_ACCESS' : 'ERR_LOCKGUARD_IO',
    `Cannot move "${from}" to "${to}" (${code ?? (cause instanceof Error ? cause.message : 'unknown error')}).`,
    {
      path: from,
      cause,
      hint: 'Nothing was lost: the entry stays where it was. Check the permissions of both folders.',
    },
  );
}
