// Atomic file writes and appends for the ledger.
//
// Owns: write-to-a-unique-stage-then-rename in the same folder, append-only lines, and fsync where a
// caller needs the bytes on disk before it acts (the quarantine journal's intents and outcomes), with the
// folders that make it durable: a durable write (`fsync`) also syncs the folder its name is in (the stage's
// rename, a newly created journal), and a durable append first syncs every folder a rename noted since the
// last one (`noteRenamed`: the quarantine's moves), so an outcome line never survives a power cut that the
// move it records did not.
// Invariants: a reader never sees a half-written file; two concurrent writers never share a stage name;
// a failed write leaves no stage file behind; nothing is written through a symlink (the stage is created
// O_EXCL, appends are O_NOFOLLOW; rename replaces a link at the target, never follows it); every fault is
// a LockguardError naming the path (ENOSPC, EROFS, EACCES, ... are setup errors, never a crash).

import { nodeCrypto } from '../core/lazy-builtins.js';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fsFault } from '../core/fs-fault.js';
import { recordJson } from '../core/printable.js';

/** The mode of ledger files that may hold a command or a lockfile's bytes (run.json, events, report, blobs). */
export const PRIVATE = 0o600;

const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  let at = 0;
  while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
}

/** fsync a folder, so a rename or a new name in it survives a power cut (best effort where unsupported). */
function syncFolder(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY);
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on folders: the rename is still atomic, only less durable.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The folders renames went out of and into since the last durable append (quarantine/move.ts notes them). */
const renamedFolders = new Set<string>();

/** Note a rename of `from` to `to`: both folders are synced before the next durable append (the step's outcome). */
export function noteRenamed(from: string, to: string): void {
  renamedFolders.add(dirname(from));
  renamedFolders.add(dirname(to));
}

/** The folder, or if it was removed since (a restore empties an entry's folder), its nearest ancestor still there. */
function nearestExisting(folder: string): string {
  let at = folder;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return at;
}

/** fsync every folder noted since the last call (a removed one: the ancestor its removal is recorded in). */
function syncRenamedFolders(): void {
  for (const folder of new Set([...renamedFolders].map(nearestExisting))) syncFolder(folder);
  renamedFolders.clear();
}

/** `mode`: the new file's permissions (default 0644; 0600 for what may hold a command or a lockfile's bytes). */
export function writeAtomic(
  path: string,
  data: string | Uint8Array,
  options: { fsync?: boolean; mode?: number } = {},
): void {
  const stage = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${nodeCrypto().randomBytes(4).toString('hex')}.stage`,
  );
  let fd: number | undefined;
  try {
    fd = openSync(stage, CREATE_FLAGS, options.mode ?? 0o644);
    writeAll(fd, data);
    if (options.fsync === true) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(stage, path);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    rmSync(stage, { force: true });
    throw fsFault(error, path, 'write');
  }
  // Durable means the name too: the rename is in the folder, which is synced after it.
  if (options.fsync === true) syncFolder(dirname(path));
}

/** Create an empty file; refused when anything (a link included) is already there. */
export function createEmpty(path: string, mode = 0o644): void {
  try {
    closeSync(openSync(path, CREATE_FLAGS, mode));
  } catch (error) {
    throw fsFault(error, path, 'create');
  }
}

/** True when the file is empty or ends with a newline (a torn last line from a killed or full append does not). */
function endsWholeLine(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  return readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === 10;
}

/**
 * Append text (whole lines) to a file in one write; O_APPEND keeps concurrent appenders' lines whole on
 * local file systems. After a torn last line (a writer killed mid-append, or a full disk), a newline goes
 * first, so the torn line stays one skipped line and never swallows the next. `create`: make the file when
 * it is missing (never through a link).
 */
export function appendText(path: string, text: string, options: { create?: boolean; fsync?: boolean } = {}): void {
  let fd: number | undefined;
  // A durable append commits a step: the renames it records are made durable first.
  if (options.fsync === true) syncRenamedFolders();
  const creating = options.create === true && options.fsync === true && !existsSync(path);
  try {
    fd = openSync(
      path,
      constants.O_RDWR | constants.O_APPEND | constants.O_NOFOLLOW | (options.create === true ? constants.O_CREAT : 0),
      0o644,
    );
    writeAll(fd, endsWholeLine(fd) ? text : `\n${text}`);
    if (options.fsync === true) fsyncSync(fd);
  } catch (error) {
    throw fsFault(error, path, 'append to');
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (creating) syncFolder(dirname(path));
}

/** One JSON object per line. */
export function appendLine(path: string, value: unknown, options: { create?: boolean; fsync?: boolean } = {}): void {
  appendText(path, `${recordJson(value)}\n`, options);
}
