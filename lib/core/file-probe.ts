// Safe, never-blocking access to one fingerprint entry on disk.
//
// Owns: the few file-system calls the table and the watch make, behind an injectable `FileSystem` so tests
// can count them, and the translation of what is found into values or loud errors.
// Invariants:
// - Reads no entry over the lockfile limit (core/read-limits.ts), even one that grows while it is read.
// - Never blocks: files are opened with O_NONBLOCK and checked with fstat before any read, so a FIFO,
//   socket or device swapped in at any moment is refused, never waited on.
// - Links are followed (a symlinked lockfile is judged by its target); a dangling link is reported.
// - ENOENT is a value (`absent`); EACCES and everything else unexpected is a LockguardError naming the path.
//   Nothing here ever concludes "unchanged" from a failure.

import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  type Stats,
  statSync,
} from 'node:fs';
import { LockguardError, errnoCode } from './errors.js';
import { READ_LIMITS, tooLarge } from './read-limits.js';

/** The slice of `node:fs` lockguard's core uses; injectable for tests that count syscalls. */
export interface FileSystem {
  statSync(path: string): Stats;
  /** With `throwIfNoEntry: false`, a missing file is `undefined` (no exception: the watch's hot path). */
  statSync(path: string, options: { throwIfNoEntry: false }): Stats | undefined;
  lstatSync(path: string): Stats;
  lstatSync(path: string, options: { throwIfNoEntry: false }): Stats | undefined;
  readlinkSync(path: string): string;
  openSync(path: string, flags: number): number;
  fstatSync(fd: number): Stats;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  closeSync(fd: number): void;
}

// Named imports, not the namespace: esbuild copies a namespace import of a builtin property by property at
// start-up (its __toESM: 230 KB of allocations in `lockguard run`, heap sampling).
export const realFileSystem: FileSystem = {
  statSync,
  lstatSync,
  readlinkSync,
  openSync,
  fstatSync,
  readSync,
  closeSync,
} as FileSystem;

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;
// Missing files come back as undefined, not as exceptions: an exception costs more than the syscall.
const NO_THROW = { throwIfNoEntry: false } as const;

/** Stat identity kept per entry: what the watch compares before deciding to read. */
export interface StatIdentity {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly ctimeMs: number;
  readonly mtimeMs: number;
}

export type Probe =
  | { readonly state: 'absent' }
  | { readonly state: 'directory' }
  | { readonly state: 'file'; readonly identity: StatIdentity };

function identityOf(stats: Stats): StatIdentity {
  return { dev: stats.dev, ino: stats.ino, size: stats.size, ctimeMs: stats.ctimeMs, mtimeMs: stats.mtimeMs };
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'directory';
  if (stats.isFIFO()) return 'FIFO (named pipe)';
  if (stats.isSocket()) return 'socket';
  if (stats.isCharacterDevice()) return 'character device';
  if (stats.isBlockDevice()) return 'block device';
  return 'special file';
}

export function notAFile(absPath: string, stats: Stats): LockguardError {
  return new LockguardError(
    'ERR_LOCKGUARD_NOT_A_FILE',
    `Expected "${absPath}" to be a regular file, but it is a ${kindOf(stats)}.`,
    { path: absPath, hint: 'Replace it with the real file (or remove it), then run lockguard again.' },
  );
}

/** The LockguardError for a failed open, stat or read of `absPath` (never ENOENT: that is a value). */
export function readFailure(absPath: string, error: unknown): LockguardError {
  const code = errnoCode(error);
  if (code === 'EACCES' || code === 'EPERM') {
    return new LockguardError('ERR_LOCKGUARD_ACCESS', `Cannot read "${absPath}": permission denied.`, {
      path: absPath,
      cause: error,
      hint: 'Give the user running lockguard read access to it (and search access to its folders).',
    });
  }
  if (code === 'ENOTDIR') {
    return new LockguardError('ERR_LOCKGUARD_NOT_A_FILE', `A parent of "${absPath}" is not a directory.`, {
      path: absPath,
      cause: error,
      hint: 'Replace the file that stands where a folder should be, then run lockguard again.',
    });
  }
  if (code === 'ELOOP') {
    return new LockguardError('ERR_LOCKGUARD_DANGLING_LINK', `"${absPath}" is a symbolic link loop.`, {
      path: absPath,
      cause: error,
      hint: 'Point the link at a real file, or remove it.',
    });
  }
  return new LockguardError('ERR_LOCKGUARD_IO', `Cannot read "${absPath}" (${code ?? 'unknown error'}).`, {
    path: absPath,
    cause: error,
    hint: 'Check the file and the disk, then run lockguard again.',
  });
}

/**
 * After ENOENT through a followed path: plain absence, or a link whose target is missing.
 * `danglingIsAbsent` is for the watch (the file went: a move); the table read refuses it.
 */
function absentOrDangling(fs: FileSystem, absPath: string, danglingIsAbsent: boolean): { readonly state: 'absent' } {
  let link: Stats | undefined;
  try {
    // An injected fs may ignore the option and throw ENOENT instead: both mean absent.
    link = fs.lstatSync(absPath, NO_THROW);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { state: 'absent' };
    throw readFailure(absPath, error);
  }
  if (link === undefined || !link.isSymbolicLink() || danglingIsAbsent) return { state: 'absent' };
  let target = '?';
  try {
    target = fs.readlinkSync(absPath);
  } catch {
    // The link vanished between calls; the message still names the path.
  }
  throw new LockguardError(
    'ERR_LOCKGUARD_DANGLING_LINK',
    `"${absPath}" is a symbolic link to "${target}", which does not exist.`,
    { path: absPath, hint: 'Point the link at an existing file, or remove the link.' },
  );
}

/**
 * lstat without an exception for a missing file: the Stats, undefined when nothing is there, null when
 * unclear (the caller's readEntry then reports it). The table read asks this first: most absent entries stay
 * absent (pnpmfiles, markers before an install), and a failed open costs an exception.
 */
export function lstatQuiet(fs: FileSystem, absPath: string): Stats | undefined | null {
  try {
    return fs.lstatSync(absPath, NO_THROW);
  } catch (error) {
    return errnoCode(error) === 'ENOENT' ? undefined : null;
  }
}

const ABSENT = { state: 'absent' } as const;

/**
 * One stat, following links. Used by the watch: never reads; a dangling link is absent; a directory is a value
 * (a type change, which the watch counts as a move: DESIGN.md); a FIFO, socket or device is a loud error.
 */
export function probe(fs: FileSystem, absPath: string): Probe {
  let stats: Stats | undefined;
  try {
    stats = fs.statSync(absPath, NO_THROW);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return ABSENT;
    throw readFailure(absPath, error);
  }
  // Absent, or a link whose target is gone: for the watch both mean the file went (no lstat needed).
  if (stats === undefined) return ABSENT;
  if (stats.isDirectory()) return { state: 'directory' };
  if (!stats.isFile()) throw notAFile(absPath, stats);
  return { state: 'file', identity: identityOf(stats) };
}

export type ReadResult =
  | { readonly state: 'absent' }
  | { readonly state: 'file'; readonly identity: StatIdentity; readonly bytes: Buffer };

/**
 * Open without blocking, confirm a regular file with fstat, read it whole.
 * `danglingIsAbsent`: true for the watch's re-read, false for the table read (which refuses dangling links).
 */
export function readEntry(fs: FileSystem, absPath: string, danglingIsAbsent = false): ReadResult {
  let fd: number;
  try {
    fd = fs.openSync(absPath, OPEN_FLAGS);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT') return absentOrDangling(fs, absPath, danglingIsAbsent);
    if (code === 'ENXIO') {
      // A socket, or a FIFO opened for writing with no reader: never a regular file.
      throw notAFile(absPath, fs.statSync(absPath));
    }
    throw readFailure(absPath, error);
  }
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isFile()) throw notAFile(absPath, stats);
    // Every entry is read under the lockfile limit (core/read-limits.ts): a 1 GiB file is refused unread.
    if (stats.size > READ_LIMITS.entry) throw tooLarge(absPath, 'entry', stats.size);
    return { state: 'file', identity: identityOf(stats), bytes: readWhole(fs, fd, stats.size, absPath) };
  } finally {
    fs.closeSync(fd);
  }
}

// Where the end-of-file read lands (and the rest of a file that grew since its fstat); one per process.
let scratch: Buffer | undefined;

function readWhole(fs: FileSystem, fd: number, expected: number, absPath: string): Buffer {
  const read = (into: Buffer, offset: number): number => {
    try {
      return fs.readSync(fd, into, offset, into.length - offset, null);
    } catch (error) {
      throw readFailure(absPath, error);
    }
  };
  // A buffer of exactly the size fstat said, as readFileSync allocates: the bench measured a bigger or
  // doubling one costing more than the read itself. A file that shrank since the fstat ends early.
  const buffer = Buffer.allocUnsafe(expected);
  let length = 0;
  while (length < buffer.length) {
    const n = read(buffer, length);
    if (n === 0) return buffer.subarray(0, length);
    length += n;
  }
  // Full: the end-of-file read goes to a small shared buffer; a file that grew keeps being read.
  scratch ??= Buffer.allocUnsafe(64 * 1024);
  const chunks = [buffer];
  for (let n = read(scratch, 0); n > 0; n = read(scratch, 0)) {
    length += n;
    if (length > READ_LIMITS.entry) throw tooLarge(absPath, 'entry');
    chunks.push(Buffer.from(scratch.subarray(0, n)));
  }
  return chunks.length === 1 ? buffer : Buffer.concat(chunks);
}
