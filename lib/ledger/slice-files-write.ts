// Writing the per-project slice files (slice-files.ts owns their text and the record): every project's
// `.lockguard-slice` that is missing or differs, and the removal of those whose project left the workspace.
//
// Invariants (slice-files.ts): writes only inside the workspace, a project folder reached from the root
// without leaving it; never through a link; atomic writes; a file is removed only when the record names it
// and it still holds a slice file's text; problems are collected, the record then keeps no digest, and the
// first is thrown after everything else was done.

import { closeSync, constants, lstatSync, openSync, readSync, realpathSync, rmSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import { sha256Hex } from '../core/digest.js';
import { errnoCode, isLockguardError, LockguardError } from '../core/errors.js';
import { fsFault } from '../core/fs-fault.js';
import type { LockfileSlices } from '../core/slices/slices.js';
import { writeAtomic } from './atomic.js';
import {
  readSliceRecord,
  SLICE_FILE,
  SLICE_FILE_VERSION,
  sliceFileText,
  writeSliceRecord,
  type SliceFilesOutcome,
  type WrittenFile,
} from './slice-files.js';

const MAX_SLICE_FILE = 4096;

/** An importer path as a folder under the workspace, or undefined when it names a place outside it. */
function importerFolder(root: string, importer: string): string | undefined {
  if (importer.includes('\0') || isAbsolute(importer) || importer.startsWith('/')) return undefined;
  const normal = posix.normalize(importer);
  if (normal === '..' || normal.startsWith('../')) return undefined;
  return join(root, normal);
}

function outside(root: string, folder: string, real: string): LockguardError {
  return new LockguardError(
    'ERR_LOCKGUARD_OUTSIDE_WORKSPACE',
    `Cannot write "${join(folder, SLICE_FILE)}": the project folder is a link to "${real}", outside the workspace "${root}"; lockguard writes slice files only inside the workspace.`,
    {
      path: folder,
      hint: 'Make the project a real folder inside the workspace (or a link to one), or remove it from the workspace.',
    },
  );
}

function kindOf(stats: Stats): string {
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

function notAFile(path: string, stats: Stats): LockguardError {
  return new LockguardError(
    'ERR_LOCKGUARD_NOT_A_FILE',
    `Expected "${path}" to be lockguard's slice file (a regular file), but it is ${kindOf(stats)}; lockguard never writes through it.`,
    {
      path,
      hint: `Remove it (rm -r "${path}"); lockguard writes the file itself (lockguard key --write-slices).`,
    },
  );
}

/**
 * A slice file as it is now (its text and lstat), undefined when absent, 'no-folder' when its project
 * "folder" is a file; refuses (throws) anything but a regular file.
 */
function currentFile(
  path: string,
  same?: { readonly known: WrittenFile; readonly text: string },
): { text: string; stats: Stats } | undefined | 'no-folder' {
  let stats: Stats | undefined;
  try {
    stats = lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if (errnoCode(error) === 'ENOTDIR') return 'no-folder';
    throw fsFault(error, path, 'read');
  }
  if (stats === undefined) return undefined;
  if (!stats.isFile()) throw notAFile(path, stats);
  // The very file a writer renamed into place with this text (lockguard's writes always make a new inode).
  const known = same?.known;
  if (
    same !== undefined &&
    known !== undefined &&
    stats.dev === known.dev &&
    stats.ino === known.ino &&
    stats.size === known.size &&
    stats.ctimeMs === known.ctimeMs
  )
    return { text: same.text, stats };
  if (stats.size > MAX_SLICE_FILE) return { text: '', stats };
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const buffer = Buffer.alloc(MAX_SLICE_FILE + 1);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    return { text: buffer.subarray(0, length).toString('utf8'), stats };
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw fsFault(error, path, 'read');
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Whether `real` is the root's real path or under it. */
function within(realRoot: string, real: string): boolean {
  const rel = relative(realRoot, real);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * The project folder, checked: undefined when it does not exist (a project without a folder has no file).
 * `parents` caches each parent folder's real path: a workspace's projects share a few parents, so most
 * projects cost one lstat, not a realpath.
 */
function checkedFolder(
  root: string,
  realRoot: string,
  importer: string,
  parents: Map<string, string | null>,
): string | undefined {
  const folder = importerFolder(root, importer);
  if (folder === undefined) return undefined;
  const realOf = (path: string): string | null => {
    try {
      return realpathSync.native(path);
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw fsFault(error, path, 'read');
    }
  };
  let real: string | null;
  if (folder === root) {
    real = realRoot;
  } else {
    const parent = dirname(folder);
    let realParent = parents.get(parent);
    if (realParent === undefined) {
      realParent = realOf(parent);
      parents.set(parent, realParent);
    }
    if (realParent === null) return undefined;
    let stats: Stats | undefined;
    try {
      stats = lstatSync(folder, { throwIfNoEntry: false });
    } catch (error) {
      if (errnoCode(error) === 'ENOTDIR') return undefined;
      throw fsFault(error, folder, 'read');
    }
    if (stats === undefined) return undefined;
    real = stats.isSymbolicLink() ? realOf(folder) : stats.isDirectory() ? join(realParent, basename(folder)) : null;
  }
  if (real === null) return undefined;
  if (!within(realRoot, real)) throw outside(root, folder, real);
  return folder;
}

/**
 * Refuse (ERR_LOCKGUARD_OUTSIDE_WORKSPACE) the first of `importers` whose project folder leads outside the
 * workspace through a link: what `key --check-slices` asks before it compares a file it would read from there.
 */
export function checkProjectFolders(root: string, importers: Iterable<string>): void {
  const realRoot = realpathSync.native(root);
  const parents = new Map<string, string | null>();
  for (const importer of importers) checkedFolder(root, realRoot, importer, parents);
}

/**
 * Write every project's slice file of `slices` (the workspace's lockfile, whose bytes have `digest`) where it
 * is missing or differs, and remove those the record names whose project left. Throws the first problem
 * (after doing everything else it can).
 */
export function applySliceFiles(
  root: string,
  slices: LockfileSlices,
  digest: string,
  above?: string,
): SliceFilesOutcome {
  const realRoot = realpathSync.native(root);
  const record = readSliceRecord(root);
  const pass: Pass = {
    root,
    realRoot,
    rootDigest: slices.slices.find((slice) => slice.importer === '.')?.digest,
    above,
    recorded: new Map((record?.files ?? []).map((file) => [file.importer, file])),
    parents: new Map(),
    created: [],
    changed: [],
    removed: [],
    problems: [],
    written: [],
    current: new Set(),
    unchanged: 0,
  };
  for (const slice of slices.slices) attempt(pass, () => writeOne(pass, slice));
  for (const file of record?.files ?? []) {
    if (pass.current.has(file.importer)) continue;
    attempt(pass, () => removeLeft(pass, file.importer));
  }
  writeSliceRecord(root, {
    version: 2,
    lockfile: slices.lockfile,
    digest: pass.problems.length === 0 ? digest : null,
    files: pass.written,
    ...(record?.seen === undefined ? {} : { seen: record.seen }),
  });
  throwProblems(pass.problems);
  const { created, changed, removed, unchanged } = pass;
  return { created, changed, removed, unchanged };
}

/** One slice pass: what it reads from, and what it has written, removed and met so far. */
interface Pass {
  readonly root: string;
  readonly realRoot: string;
  readonly rootDigest: string | undefined;
  /** The above line every project's file folds (slice-files.ts), or undefined. */
  readonly above: string | undefined;
  readonly recorded: ReadonlyMap<string, WrittenFile>;
  readonly parents: Map<string, string | null>;
  readonly created: string[];
  readonly changed: string[];
  readonly removed: string[];
  readonly problems: LockguardError[];
  readonly written: WrittenFile[];
  /** The importers whose folder is in the workspace now (their files are never removed). */
  readonly current: Set<string>;
  unchanged: number;
}

/** `work`, a lockguard problem collected into the pass (every other project is still done). */
function attempt(pass: Pass, work: () => void): void {
  try {
    work();
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    pass.problems.push(error);
  }
}

/** One project's slice file, written when it is missing or differs; its stat identity recorded either way. */
function writeOne(pass: Pass, slice: LockfileSlices['slices'][number]): void {
  const folder = checkedFolder(pass.root, pass.realRoot, slice.importer, pass.parents);
  if (folder === undefined) return;
  pass.current.add(slice.importer);
  const path = join(folder, SLICE_FILE);
  const text = sliceFileText(
    slice.importer,
    slice.digest,
    slice.importer === '.' ? undefined : pass.rootDigest,
    slice.reach,
    pass.above,
  );
  const sha = sha256Hex(text);
  const known = pass.recorded.get(slice.importer);
  const before = currentFile(path, known?.sha === sha ? { known, text } : undefined);
  // The project's "folder" is a file: no project folder, no slice file.
  if (before === 'no-folder') return;
  let stats: Stats;
  if (before?.text === text) {
    pass.unchanged += 1;
    stats = before.stats;
  } else {
    writeAtomic(path, text);
    (before === undefined ? pass.created : pass.changed).push(slice.importer);
    stats = lstatSync(path);
  }
  pass.written.push({
    importer: slice.importer,
    sha,
    dev: stats.dev,
    ino: stats.ino,
    size: stats.size,
    ctimeMs: stats.ctimeMs,
  });
}

/** The slice file of a project that left the workspace, removed if it is still inside it and still one of ours. */
function removeLeft(pass: Pass, importer: string): void {
  const folder = importerFolder(pass.root, importer);
  if (folder === undefined) return;
  let real: string;
  try {
    real = realpathSync.native(folder);
  } catch {
    return;
  }
  if (!within(pass.realRoot, real)) return;
  const path = join(folder, SLICE_FILE);
  // Only a regular file that still holds a slice file's text: never a file lockguard did not write.
  let found: ReturnType<typeof currentFile>;
  try {
    found = currentFile(path);
  } catch {
    return;
  }
  const text = typeof found === 'object' ? found.text : undefined;
  if (text === undefined || !text.startsWith(`${SLICE_FILE_VERSION.split('/')[0]}/`)) return;
  try {
    rmSync(path);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw fsFault(error, path, 'remove');
  }
  pass.removed.push(importer);
}

/** The first problem thrown (with how many more there were), if there was one. */
function throwProblems(problems: readonly LockguardError[]): void {
  const first = problems[0];
  if (first === undefined) return;
  if (problems.length === 1) throw first;
  throw new LockguardError(
    first.code,
    `${first.message} (and ${problems.length - 1} more slice file problem${problems.length === 2 ? '' : 's'})`,
    {
      ...(first.path === undefined ? {} : { path: first.path }),
      ...(first.hint === undefined ? {} : { hint: first.hint }),
      cause: first,
    },
  );
}
