// The ledger's folders and reads: nothing under `<root>/.lockguard/` is ever reached through a link.
//
// Owns: walking `<root>/.lockguard/<part>/...` component by component with lstat (creating what is missing
// when asked), reading a ledger file whole or line by line (never through a link, never a FIFO), and the
// bounded-memory line scan the event log and the quarantine journal are read with.
// Invariants:
// - `.lockguard` itself, `runs`, `blobs`, `live`, `quarantine` and every folder below them must be real
//   folders: a symlink is ERR_LOCKGUARD_UNSAFE_LEDGER, a file where a folder belongs ERR_LOCKGUARD_BROKEN_LEDGER
//   (both name the path). The workspace root itself is the caller's (it may be reached through links).
// - Files are opened with O_NOFOLLOW | O_NONBLOCK and fstat'ed before reading: a link is refused (ELOOP),
//   a FIFO or device is never waited on.
// - A line scan holds at most one chunk plus one line (lines longer than `maxLine` are skipped whole), so a
//   1 GB log is read in a few MB. ENOENT is a value everywhere (undefined / false).
// - JSON from the ledger nests at most MAX_JSON_DEPTH levels (`parseLedgerJson`): what lockguard writes nests a
//   few; a deeper one is hostile, and every recursive walk over it (redaction, JSON.stringify) would overflow.

import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';
import { errnoCode, LockguardError } from '../core/errors.js';
import { fsFault } from '../core/fs-fault.js';
import { LEDGER_DIR } from './ledger-layout.js';

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CHUNK = 1 << 20;
/** Longest event or journal line kept (a journal intent lists a unit's files; 8 MB holds ~40,000 of them). */
const MAX_LINE = 8 << 20;

function linkError(path: string): LockguardError {
  return new LockguardError(
    'ERR_LOCKGUARD_UNSAFE_LEDGER',
    `Expected "${path}" to be a folder of lockguard's ledger, but it is a symbolic link; lockguard never follows links there.`,
    {
      path,
      hint: 'Remove the link (lockguard recreates the folder inside the workspace), then run the command again.',
    },
  );
}

function notFolderError(path: string): LockguardError {
  return new LockguardError(
    'ERR_LOCKGUARD_BROKEN_LEDGER',
    `Expected "${path}" to be lockguard's ledger folder, but it is not a folder.`,
    {
      path,
      hint: 'Move or remove it: lockguard keeps its run records there.',
    },
  );
}

function lstatOrFault(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    throw fsFault(error, path, 'inspect');
  }
}

/** One checked component: a real folder, or created as one. undefined when missing and not created. */
function folderStep(path: string, create: boolean): boolean {
  let stats = lstatOrFault(path);
  if (stats === undefined) {
    if (!create) return false;
    try {
      mkdirSync(path);
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw fsFault(error, path, 'create the folder');
    }
    stats = lstatOrFault(path);
    if (stats === undefined)
      throw fsFault(Object.assign(new Error('vanished'), { code: 'EIO' }), path, 'create the folder');
  }
  if (stats.isSymbolicLink()) throw linkError(path);
  if (!stats.isDirectory()) throw notFolderError(path);
  return true;
}

/**
 * `<base>/<parts...>` checked one component at a time (each a real folder, never a link); missing ones are
 * created when `create`, else the result is undefined. `base` itself is trusted (the caller checked it).
 */
export function safeFolder(base: string, parts: readonly string[], create: boolean): string | undefined {
  let current = base;
  for (const part of parts) {
    current = join(current, part);
    if (!folderStep(current, create)) return undefined;
  }
  return current;
}

/** `<root>/.lockguard/<parts...>`, `.lockguard` included in the check; undefined when missing (create false). */
export function ledgerFolder(root: string, parts: readonly string[], create: boolean): string | undefined {
  const ledger = join(root, LEDGER_DIR);
  if (!folderStep(ledger, create)) return undefined;
  return safeFolder(ledger, parts, create);
}

/** The names in `folder`; none when it is undefined or gone. */
export function listFolder(folder: string | undefined): string[] {
  if (folder === undefined) return [];
  try {
    return readdirSync(folder);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw fsFault(error, folder, 'list');
  }
}

/** The names in `<root>/.lockguard/<part>`, reached as ledgerFolder reaches it; none when it is missing. */
export function listLedgerFolder(root: string, part: string): string[] {
  return listFolder(ledgerFolder(root, [part], false));
}

/** Open a ledger file for reading: undefined when absent; refused when a link or not a regular file. */
function openForRead(path: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw fsFault(error, path, 'read');
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      throw new LockguardError(
        'ERR_LOCKGUARD_BROKEN_LEDGER',
        `Expected "${path}" to be a file of lockguard's ledger, but it is not a regular file.`,
        {
          path,
          hint: 'Remove it; lockguard writes its own files there.',
        },
      );
    }
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** A ledger file's bytes, or undefined when it is absent. Files over `maxBytes` are refused (a forged giant). */
export function readLedgerFile(path: string, maxBytes = 64 << 20): Buffer | undefined {
  const fd = openForRead(path);
  if (fd === undefined) return undefined;
  try {
    const size = fstatSync(fd).size;
    if (size > maxBytes) {
      throw new LockguardError(
        'ERR_LOCKGUARD_BROKEN_LEDGER',
        `The lockguard record "${path}" is ${size} bytes, more than lockguard ever writes there (${maxBytes}).`,
        {
          path,
          hint: 'Delete it (or its run folder) and take a new snapshot.',
        },
      );
    }
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    while (at < size) {
      const read = readSync(fd, out, at, size - at, at);
      if (read === 0) break;
      at += read;
    }
    return out.subarray(0, at);
  } catch (error) {
    throw fsFault(error, path, 'read');
  } finally {
    closeSync(fd);
  }
}

/**
 * Call `visit` with every line of the file (without its newline), in order, holding one chunk and one
 * line at a time. `only`: skip (unparsed) lines that contain none of these byte strings (a cheap filter
 * before JSON.parse). Lines longer than `maxLine` are skipped. Returns false when the file is absent.
 */
export function scanLines(
  path: string,
  visit: (line: Buffer) => void,
  options: { only?: readonly Buffer[]; maxLine?: number } = {},
): boolean {
  const fd = openForRead(path);
  if (fd === undefined) return false;
  const maxLine = options.maxLine ?? MAX_LINE;
  const only = options.only;
  const wanted = (line: Buffer): boolean => only === undefined || only.some((needle) => line.indexOf(needle) !== -1);
  const chunk = Buffer.allocUnsafe(CHUNK);
  const lines = new LineSplitter(maxLine, (line) => {
    if (wanted(line)) visit(line);
  });
  try {
    for (;;) {
      const read = readSync(fd, chunk, 0, CHUNK, null);
      if (read === 0) break;
      lines.feed(chunk.subarray(0, read));
    }
    lines.end();
    return true;
  } catch (error) {
    throw fsFault(error, path, 'read');
  } finally {
    closeSync(fd);
  }
}

/** Splits a stream of chunks into lines (no newline), each at most `maxLine` bytes: a longer one is skipped whole. */
class LineSplitter {
  readonly #maxLine: number;
  readonly #emit: (line: Buffer) => void;
  #carry: Buffer[] = [];
  #carried = 0;
  #skipping = false;

  constructor(maxLine: number, emit: (line: Buffer) => void) {
    this.#maxLine = maxLine;
    this.#emit = emit;
  }

  /** Every line the chunk completes, emitted; its tail carried to the next chunk (or skipped, when too long). */
  feed(data: Buffer): void {
    let start = 0;
    for (let newline = data.indexOf(10, start); newline !== -1; newline = data.indexOf(10, start)) {
      const piece = data.subarray(start, newline);
      start = newline + 1;
      if (this.#skipping) {
        this.#skipping = false;
        this.#drop();
        continue;
      }
      if (this.#carried + piece.length > this.#maxLine) {
        this.#drop();
        continue;
      }
      const line = this.#carried === 0 ? piece : Buffer.concat([...this.#carry, piece]);
      this.#drop();
      this.#emit(line);
    }
    if (start < data.length && !this.#skipping) {
      const rest = data.subarray(start);
      if (this.#carried + rest.length > this.#maxLine) {
        this.#drop();
        this.#skipping = true;
      } else {
        this.#carry.push(Buffer.from(rest));
        this.#carried += rest.length;
      }
    }
  }

  /** A last line without its newline: a torn append, or a complete one; the parser decides. */
  end(): void {
    if (!this.#skipping && this.#carried > 0) this.#emit(Buffer.concat(this.#carry));
  }

  #drop(): void {
    this.#carry = [];
    this.#carried = 0;
  }
}

/** The complete lines in the last `maxBytes` of a file (oldest first), or undefined when it is absent. */
export function tailLines(path: string, maxBytes: number): Buffer[] | undefined {
  const fd = openForRead(path);
  if (fd === undefined) return undefined;
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - maxBytes);
    const buffer = Buffer.allocUnsafe(size - start);
    let at = 0;
    while (at < buffer.length) {
      const read = readSync(fd, buffer, at, buffer.length - at, start + at);
      if (read === 0) break;
      at += read;
    }
    const data = buffer.subarray(0, at);
    const lines: Buffer[] = [];
    // Past the start of the file, the first piece is the tail of a line cut in two: not a line.
    let from = start === 0 ? 0 : data.indexOf(10) + 1;
    if (from === 0 && start !== 0) return [];
    for (let newline = data.indexOf(10, from); newline !== -1; newline = data.indexOf(10, from)) {
      lines.push(data.subarray(from, newline));
      from = newline + 1;
    }
    if (from < data.length) lines.push(data.subarray(from));
    return lines;
  } catch (error) {
    throw fsFault(error, path, 'read');
  } finally {
    closeSync(fd);
  }
}

/** How deep JSON read from the ledger may nest (lockguard's own records nest a few levels). */
const MAX_JSON_DEPTH = 64;

/**
 * JSON.parse of a ledger file's text; a SyntaxError for garbage, and for a value nested deeper than
 * MAX_JSON_DEPTH (checked without recursion).
 */
export function parseLedgerJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  const stack: [unknown, number][] = [[value, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) throw new SyntaxError(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return value;
}

/** One line as ledger JSON, or undefined for a torn, garbage or too deeply nested line (never throws). */
export function parseLine(line: Buffer): unknown {
  try {
    return parseLedgerJson(line.toString('utf8'));
  } catch {
    return undefined;
  }
}
