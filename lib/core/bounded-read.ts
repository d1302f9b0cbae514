// The one bounded reader for the workspace files lockguard opens: config files (turbo.json, turbo.jsonc,
// nx.json, project.json, .nxignore, .gitignore, .npmrc, .yarnrc.yml, pnpm-workspace.yaml), package.json
// manifests, slice files, and lockfiles of every format.
//
// Owns: `readBounded` / `readBoundedText` (a file's bytes or text, undefined when nothing is there), the size
// limit of each kind (`READ_LIMITS`), and the refusals: not a regular file, a link that leaves the workspace,
// too large.
// Invariants:
// - lstat first: a regular file is read; a symbolic link is read only when its target is a regular file
//   inside the workspace (`root`, compared after resolving both; without a root only the target's type is
//   checked). Only the last component is judged: a linked folder above it (node_modules in a CI cache) is not.
// - Never a read of a device, FIFO or socket: the file is opened with O_NONBLOCK and checked again with fstat
//   on the open descriptor (a file swapped for a FIFO between the lstat and the open is refused, never waited on).
// - Never more than the kind's limit plus one byte is read, even from a file that grows while it is read;
//   a larger file is a LockguardError naming the path and the limit (exit 2), never a 1 GiB string.
// - ENOENT (nothing there, also below a missing folder) is `undefined`; every refusal is a LockguardError
//   naming the path, what was found and the fix; never the file's bytes.

import { constants, realpathSync, type Stats } from 'node:fs';
import { sep } from 'node:path';
import { errnoCode, LockguardError } from './errors.js';
import { notAFile, readFailure, type FileSystem, realFileSystem } from './file-probe.js';
import { READ_LIMITS, type ReadKind, tooLarge } from './read-limits.js';

export interface BoundedReadOptions {
  readonly kind: ReadKind;
  /** The workspace root a link's target must stay inside; without it only the target's type is checked. */
  readonly root?: string;
  readonly fs?: FileSystem;
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;
const NO_THROW = { throwIfNoEntry: false } as const;

function outside(absPath: string, target: string): LockguardError {
  return new LockguardError(
    'ERR_LOCKGUARD_OUTSIDE_WORKSPACE',
    `"${absPath}" is a symbolic link to "${target}", outside the workspace: lockguard reads no workspace file from there.`,
    { path: absPath, hint: 'Replace the link with the file itself (or a link to a file inside the workspace).' },
  );
}

/** A followed link's target, checked: a regular file inside the workspace (when `root` is given). */
export function checkLink(fs: FileSystem, absPath: string, root: string | undefined): 'absent' | 'file' {
  let target: string;
  try {
    target = realpathSync(absPath);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw readFailure(absPath, error);
    let to = '?';
    try {
      to = fs.readlinkSync(absPath);
    } catch {
      // The link went between calls; the message still names the path.
    }
    throw new LockguardError(
      'ERR_LOCKGUARD_DANGLING_LINK',
      `"${absPath}" is a symbolic link to "${to}", which does not exist.`,
      { path: absPath, hint: 'Point the link at an existing file, or remove the link.' },
    );
  }
  if (root !== undefined) {
    const base = realRoot(root);
    if (target !== base && !target.startsWith(base.endsWith(sep) ? base : `${base}${sep}`)) {
      throw outside(absPath, target);
    }
  }
  const stats = fs.statSync(absPath);
  if (!stats.isFile()) throw notAFile(absPath, stats);
  return 'file';
}

let rootMemo: { readonly root: string; readonly real: string } | undefined;

function realRoot(root: string): string {
  if (rootMemo?.root !== root) {
    let real = root;
    try {
      real = realpathSync(root);
    } catch {
      // A root that cannot be resolved: compare with it as given.
    }
    rootMemo = { root, real };
  }
  return rootMemo.real;
}

/** What stands at `absPath` before it is opened: nothing, or a regular file (directly or through a link). */
function admit(fs: FileSystem, absPath: string, root: string | undefined): 'absent' | 'file' {
  let stats: Stats | undefined;
  try {
    stats = fs.lstatSync(absPath, NO_THROW);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'absent';
    throw readFailure(absPath, error);
  }
  if (stats === undefined) return 'absent';
  if (stats.isSymbolicLink()) return checkLink(fs, absPath, root);
  if (!stats.isFile()) throw notAFile(absPath, stats);
  return 'file';
}

/**
 * The bytes of the workspace file at `absPath`, undefined when nothing is there. Throws a LockguardError for
 * anything but a regular file (or a link to one inside the workspace) of at most its kind's limit.
 */
export function readBounded(absPath: string, options: BoundedReadOptions): Buffer | undefined {
  const fs = options.fs ?? realFileSystem;
  if (admit(fs, absPath, options.root) === 'absent') return undefined;
  let fd: number;
  try {
    fd = fs.openSync(absPath, OPEN_FLAGS);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw readFailure(absPath, error);
  }
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isFile()) throw notAFile(absPath, stats);
    if (stats.size > READ_LIMITS[options.kind]) throw tooLarge(absPath, options.kind, stats.size);
    return readAtMost(fs, fd, absPath, stats.size, options.kind);
  } finally {
    fs.closeSync(fd);
  }
}

/** readBounded, as UTF-8 text. */
export function readBoundedText(absPath: string, options: BoundedReadOptions): string | undefined {
  return readBounded(absPath, options)?.toString('utf8');
}

/** Read `fd` whole, `expected` bytes as fstat said; a file that grows past its kind's limit is refused. */
function readAtMost(fs: FileSystem, fd: number, path: string, expected: number, kind: ReadKind): Buffer {
  const limit = READ_LIMITS[kind];
  // One byte more than fstat said: a read that fills it means the file grew, and is read on in chunks.
  let buffer = Buffer.allocUnsafe(expected + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > limit) throw tooLarge(path, kind);
      const bigger = Buffer.allocUnsafe(Math.min(buffer.length * 2, limit + 1));
      buffer.copy(bigger, 0, 0, length);
      buffer = bigger;
    }
    let n: number;
    try {
      n = fs.readSync(fd, buffer, length, buffer.length - length, null);
    } catch (error) {
      throw readFailure(path, error);
    }
    if (n === 0) return buffer.subarray(0, length);
    length += n;
  }
}

/**
 * A config file, manifest or ignore file as text, under the `config` limit; undefined when absent. `root`:
 * the workspace a link must stay inside (left out where the file may sit above it, as `.git` does).
 */
export function readConfigText(absPath: string, root?: string): string | undefined {
  return readBoundedText(absPath, root === undefined ? { kind: 'config' } : { kind: 'config', root });
}
