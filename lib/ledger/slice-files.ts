// Per-project slice files: `<project>/.lockguard-slice`, the lockfile slice a runner's key should fold.
//
// Owns: the file's text (`sliceFileText`), the record of what was written (`.lockguard/slice-files.json`: the
// lockfile digest it was written for and each file's stat identity) and the stat-level answer "nothing to do"
// (`sliceFilesCurrent`). Writing every project's file that is missing or differs and removing the files of
// projects that left the workspace (`applySliceFiles`) is slice-files-write.ts.
// The text (version 2), one field a line, nothing secret (digests and the importer path only):
//   lockguard-slice/2
//   importer packages/vue
//   slice <sha256 hex: the project's slice digest, core/slices/slices.ts>
//   root <sha256 hex: the root importer's slice digest>      (every project but the root itself)
//   reach <sha256 hex: the hoisted pool's digest>            (projects that install a package: core/slices/reach.ts)
//   above <sha256 hex: the install markers of a node_modules above the root>   (every project; only where one
//                                                            is there and the files are gitignored, below)
// The reach line (version 2) is there because a package a project installs resolves names it does not
// declare from where the linker hoists (pnpm's default hoist-pattern `*`, hoisted linkers): issue 29.
// Upgrade from version 1: the record's version is 2 too, so a version-1 record is not current and the next
// pass (the next guarded run or hooked install) rewrites every file; committed files are rewritten by
// `lockguard key --write-slices` (then commit them), and `key --check-slices` names them until then.
// The above line is there because Node resolves from every ancestor's node_modules what a project's own
// lacks (core/entries.ts `ancestor-marker`): it is written only on a machine that has such a folder, and only
// where the files are gitignored (committed files must agree between machines: there doctor warns instead);
// the record's digest then covers it too (`recordDigest`), so a change up there makes the next pass rewrite.
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

import { lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { isLockguardError } from '../core/errors.js';
import { writeAtomic } from './atomic.js';
import { ensureLedger } from './ledger.js';
import { readLedgerFile } from './ledger-fs.js';
import { ledgerPath, SLICE_FILES_RECORD } from './ledger-layout.js';
import { recordJson } from '../core/printable.js';
import { sha256Hex } from '../core/digest.js';
import { readConfigText } from '../core/bounded-read.js';

/** The file's name, in every project folder (next to its package.json). */
export const SLICE_FILE = '.lockguard-slice';
/** What commits the slice files, new, changed and removed ones (committed mode: `init --sound-keys=committed`). */
export const GIT_ADD_SLICES = `git add -A -- '*${SLICE_FILE}'`;
/** The first line of every slice file: the digest definition's version (test/core/golden.test.ts pins it). */
export const SLICE_FILE_VERSION = 'lockguard-slice/2';

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
  readonly version: 2;
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

/**
 * The text of one project's file; `root` is the root importer's digest (omitted for the root project),
 * `reach` the hoisted pool's digest (omitted for a project that installs no package).
 */
export function sliceFileText(
  importer: string,
  digest: string,
  root: string | undefined,
  reach?: string,
  above?: string,
): string {
  return `${SLICE_FILE_VERSION}\nimporter ${importer}\nslice ${digest}\n${root === undefined ? '' : `root ${root}\n`}${reach === undefined ? '' : `reach ${reach}\n`}${above === undefined ? '' : `above ${above}\n`}`;
}

/** What the record keeps as the digest the files were written for: the lockfile's, and the above line's when folded. */
export function recordDigest(lockfileDigest: string, above: string | undefined): string {
  return above === undefined ? lockfileDigest : sha256Hex(`${lockfileDigest}\nabove ${above}\n`);
}

/** The root .gitignore lines that ignore the slice file in every folder (ignored mode: integrations/sound-keys). */
export const SLICE_IGNORE_LINES: ReadonlySet<string> = new Set([SLICE_FILE, `**/${SLICE_FILE}`, `/${SLICE_FILE}`]);

/** Whether the root .gitignore ignores the slice files (written on every machine, never committed). */
export function sliceFilesIgnored(root: string): boolean {
  let text: string | undefined;
  try {
    text = readConfigText(join(root, '.gitignore'), root);
  } catch {
    return false;
  }
  return (text ?? '').split('\n').some((line) => SLICE_IGNORE_LINES.has(line.trim()));
}

function recordPath(root: string): string {
  return ledgerPath(root, SLICE_FILES_RECORD);
}

function isRecord(value: unknown): value is SliceRecord {
  if (value === null || typeof value !== 'object') return false;
  const record = value as Partial<SliceRecord>;
  if (
    record.version !== 2 ||
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
  writeAtomic(recordPath(root), `${recordJson(record)}\n`);
}

/**
 * Whether the workspace uses slice files as far as this machine's files say: a record (a pass ran here once),
 * else the root project's own slice file (a fresh clone of a workspace that commits them: `init
 * --sound-keys=committed`). One lstat, two without a record; a runner's configuration naming the file is
 * the other way in (integrations/slice-files/folded-by.ts).
 */
export function sliceFilesAdopted(root: string): boolean {
  return hasSliceRecord(root) || rootSliceFileExists(root);
}

/** Whether the root project's slice file is there (a regular file): one lstat. */
export function rootSliceFileExists(root: string): boolean {
  try {
    return lstatSync(join(root, SLICE_FILE), { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
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

/** The workspace's lockfile for slices: its name and bytes. */
export interface SliceLockfile {
  readonly name: string;
  readonly bytes: Buffer;
  /** sha256 of the bytes, when the caller has it (a table entry's digest): the fast path then hashes nothing. */
  readonly digest?: string;
}

/** A pass's answer: nothing to do (the record matched), or what it did. */
export type SlicePass = { readonly kind: 'current' } | ({ readonly kind: 'written' } & SliceFilesOutcome);
