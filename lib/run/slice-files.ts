// Per-project slice files: `<project>/.lockguard-slice`, the lockfile slice a runner's key should fold.
//
// Owns: the file's text (`sliceFileText`), writing every project's file that is missing or differs and
// removing the files of projects that left the workspace (`applySliceFiles`), the record of what was written
// (`.lockguard/slice-files.json`: the lockfile digest it was written for and each file's stat identity) and
// the stat-level answer "nothing to do" (`sliceFilesCurrent`).
// The text (version 1), one field a line, nothing secret (digests and the importer path only):
//   lockguard-slice/1
//   importer packages/vue
//   slice <sha256 hex: the project's slice digest, core/slices/slices.ts>
//   root <sha256 hex: the root importer's slice digest>      (every project but the root itself)
// The root line is there because the root's bins reach every project's scripts (pnpm 10 and 12 put
// `<root>/node_modules/.bin` on every package script's PATH; npm and bun add every ancestor's .bin), so a
// change to the root's slice may change what any project builds (integrations/runners/affected.ts).
// Invariants: writes only inside the workspace: a project folder is reached from the root without leaving it
// (its real path is under the root's real path), and the file is never written or removed through a link;
// every write is atomic (a stage in the same folder, then rename: atomic.ts); only files whose text differs
// are written; a file is removed only when the record names it and it still holds a slice file's text
// (never a file lockguard did not write); a FIFO, folder or link where the file belongs is a setup error
// naming the path, never opened. Problems are collected: every other project is still written, the record
// then keeps no digest (the next call does the pass again), and the first problem is thrown.

import { closeSync, constants, lstatSync, openSync, readSync, realpathSync, rmSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import { sha256Hex } from '../core/digest.js';
import { errnoCode, isLockguardError, LockguardError } from '../core/errors.js';
import { fsFault } from '../core/fs-fault.js';
import type { LockfileSlices } from '../core/slices/slices.js';
import { writeAtomic } from './atomic.js';
import { ensureLedger } from './ledger.js';
import { readLedgerFile } from './ledger-fs.js';
import { ledgerPath, SLICE_FILES_RECORD } from './ledger-layout.js';

/** The file's name, in every project folder (next to its package.json). */
export const SLICE_FILE = '.lockguard-slice';
/** The first line of every slice file: the digest definition's version (test/core/golden.test.ts pins it). */
export const SLICE_FILE_VERSION = 'lockguard-slice/1';

const MAX_SLICE_FILE = 4096;

/** One file as written: where (its project's importer path), its text's sha256 and its stat identity right after. */
export interface WrittenFile {
  readonly importer: string;
  readonly sha: string;
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly ctimeMs: number;
}

/**
 * `.lockguard/slice-files.json`. `digest` null: the last pass did not complete (a problem). `seen`: the files
 * as the last guarded run found them (slice-seen.ts), so a run can say what changed since, whoever wrote it.
 */
export interface SliceRecord {
  readonly version: 1;
  readonly lockfile: string;
  readonly digest: string | null;
  readonly files: readonly WrittenFile[];
  readonly seen?: { readonly digest: string | null; readonly files: Readonly<Record<string, string>> };
}

/** What a pass did, per importer path. `changed`: a file was there with other text. */
export interface SliceFilesOutcome {
  readonly created: readonly string[];
  readonly changed: readonly string[];
  readonly removed: readonly string[];
  /** Projects whose file already held its text. */
  readonly unchanged: number;
}

/** The text of one project's file; `root` is the root importer's digest (omitted for the root project). */
export function sliceFileText(importer: string, digest: string, root: string | undefined): string {
  return `${SLICE_FILE_VERSION}\nimporter ${importer}\nslice ${digest}\n${root === undefined ? '' : `root ${root}\n`}`;
}

function recordPath(root: string): string {
  return ledgerPath(root, SLICE_FILES_RECORD);
}

function isRecord(value: unknown): value is SliceRecord {
  if (value === null || typeof value !== 'object') return false;
  const record = value as Partial<SliceRecord>;
  if (
    record.version !== 1 ||
    typeof record.lockfile !== 'string' ||
    (record.digest !== null && typeof record.digest !== 'string') ||
    !Array.isArray(record.files)
  )
    return false;
  const seen = record.seen as { digest?: unknown; files?: unknown } | undefined;
  if (
    seen !== undefined &&
    (seen === null ||
      typeof seen !== 'object' ||
      (seen.digest !== null && typeof seen.digest !== 'string') ||
      seen.files === null ||
      typeof seen.files !== 'object' ||
      Object.values(seen.files).some((sha) => typeof sha !== 'string'))
  )
    return false;
  return record.files.every(
    (file: Partial<WrittenFile> | null) =>
      file !== null &&
      typeof file === 'object' &&
      typeof file.importer === 'string' &&
      typeof file.sha === 'string' &&
      typeof file.dev === 'number' &&
      typeof file.ino === 'number' &&
      typeof file.size === 'number' &&
      typeof file.ctimeMs === 'number',
  );
}

/** The record, or undefined when there is none or it cannot be read as one (then it is rewritten). */
export function readSliceRecord(root: string): SliceRecord | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = readLedgerFile(recordPath(root), 8 << 20);
  } catch (error) {
    if (isLockguardError(error)) return undefined;
    throw error;
  }
  if (bytes === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Write the record (the ledger folder created with its .gitignore when missing). */
export function writeSliceRecord(root: string, record: SliceRecord): void {
  ensureLedger(root);
  writeAtomic(recordPath(root), `${JSON.stringify(record)}\n`);
}

/** Whether the workspace has a record at all (a pass ran here once): one stat. */
export function hasSliceRecord(root: string): boolean {
  try {
    return lstatSync(recordPath(root), { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

/**
 * True when the last pass was for this lockfile (name and digest) and every file it wrote is still there,
 * untouched (same device, inode, size and ctime): then a pass would write nothing. One read and one lstat
 * per project. `seenByRun`: and the last guarded run saw them as they are.
 */
export function sliceFilesCurrent(
  root: string,
  lockfile: string,
  digest: string,
  options: { seenByRun?: boolean } = {},
): boolean {
  const record = readSliceRecord(root);
  if (record === undefined || record.digest !== digest || record.lockfile !== lockfile) return false;
  // A guarded run also asks whether the last run saw them so (slice-seen.ts): else it has something to say.
  if (options.seenByRun === true && record.seen?.digest !== digest) return false;
  for (const file of record.files) {
    let stats: Stats | undefined;
    try {
      stats = lstatSync(join(root, file.importer, SLICE_FILE), { throwIfNoEntry: false });
    } catch {
      return false;
    }
    if (
      stats === undefined ||
      !stats.isFile() ||
      stats.dev !== file.dev ||
      stats.ino !== file.ino ||
      stats.size !== file.size ||
      stats.ctimeMs !== file.ctimeMs
    )
      return false;
  }
  return true;
}

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
 * Write every project's slice file of `slices` (the workspace's lockfile, whose bytes have `digest`) where it
 * is missing or differs, and remove those the record names whose project left. Throws the first problem
 * (after doing everything else it can).
 */
export function applySliceFiles(root: string, slices: LockfileSlices, digest: string): SliceFilesOutcome {
  const realRoot = realpathSync.native(root);
  const record = readSliceRecord(root);
  const rootDigest = slices.slices.find((slice) => slice.importer === '.')?.digest;
  const created: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  const problems: LockguardError[] = [];
  const written: WrittenFile[] = [];
  const current = new Set<string>();
  const recorded = new Map((record?.files ?? []).map((file) => [file.importer, file]));
  const parents = new Map<string, string | null>();
  let unchanged = 0;
  const attempt = (work: () => void): void => {
    try {
      work();
    } catch (error) {
      if (!isLockguardError(error)) throw error;
      problems.push(error);
    }
  };
  for (const slice of slices.slices) {
    attempt(() => {
      const folder = checkedFolder(root, realRoot, slice.importer, parents);
      if (folder === undefined) return;
      current.add(slice.importer);
      const path = join(folder, SLICE_FILE);
      const text = sliceFileText(slice.importer, slice.digest, slice.importer === '.' ? undefined : rootDigest);
      const sha = sha256Hex(text);
      const known = recorded.get(slice.importer);
      const before = currentFile(path, known?.sha === sha ? { known, text } : undefined);
      // The project's "folder" is a file: no project folder, no slice file.
      if (before === 'no-folder') return;
      let stats: Stats;
      if (before?.text === text) {
        unchanged += 1;
        stats = before.stats;
      } else {
        writeAtomic(path, text);
        (before === undefined ? created : changed).push(slice.importer);
        stats = lstatSync(path);
      }
      written.push({
        importer: slice.importer,
        sha,
        dev: stats.dev,
        ino: stats.ino,
        size: stats.size,
        ctimeMs: stats.ctimeMs,
      });
    });
  }
  for (const file of record?.files ?? []) {
    if (current.has(file.importer)) continue;
    attempt(() => {
      const folder = importerFolder(root, file.importer);
      if (folder === undefined) return;
      let real: string;
      try {
        real = realpathSync.native(folder);
      } catch {
        return;
      }
      if (!within(realRoot, real)) return;
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
      removed.push(file.importer);
    });
  }
  writeSliceRecord(root, {
    version: 1,
    lockfile: slices.lockfile,
    digest: problems.length === 0 ? digest : null,
    files: written,
    ...(record?.seen === undefined ? {} : { seen: record.seen }),
  });
  const first = problems[0];
  if (first !== undefined) {
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
  return { created, changed, removed, unchanged };
}

/** The workspace's lockfile for slices: its name and bytes. */
export interface SliceLockfile {
  readonly name: string;
  readonly bytes: Buffer;
  /** sha256 of the bytes, when the caller has it (a table entry's digest): the fast path then hashes nothing. */
  readonly digest?: string;
}

/** A pass's answer: nothing to do (the record matched), or what it did. */
export type SlicePass = { readonly kind: 'current' } | ({ readonly kind: 'written' } & SliceFilesOutcome);
