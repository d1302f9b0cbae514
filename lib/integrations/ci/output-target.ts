// Where a CI output file may be written: `snapshot --key-file`, `--dotenv`, and the files GitHub names
// ($GITHUB_OUTPUT, $GITHUB_ENV, $GITHUB_STEP_SUMMARY).
//
// Owns: the rule that an output goes only where a file belongs: an existing regular file, or a missing one
// (in a folder, made if missing). Anything else is refused with ERR_LOCKGUARD_NOT_A_FILE naming the path and
// the fix: a character or block device (`/dev/full`, `/dev/null`), a FIFO, a socket, a folder, and every
// symbolic link (to a device, to `/proc/self/fd/1`, dangling, or to a regular file: see below).
// Invariants: nothing is opened before lstat says it is a regular file or missing; an append opens with
// O_NOFOLLOW | O_NONBLOCK and checks the opened file again (fstat), so a FIFO or a link swapped in between
// is never written and never blocks; a stage file is never renamed over anything but a regular file.
// A link to a regular file is refused too, not written through: the path often comes from a checkout a
// pull request controls (`--key-file out/key` where `out/key` is a committed link), and writing through
// would replace a file outside the checkout (a dotfile, a log) with the key; the fix is to name the file itself.

import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats, writeSync } from 'node:fs';
import { LockguardError } from '../../core/errors.js';
import { fsFault } from '../../core/fs-fault.js';
import { printableUpTo } from '../../core/printable.js';

/** What is at an output path: a regular file, nothing (to be created), or the kind that refuses it. */
function kindOf(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

function refusal(path: string, what: string, found: string): LockguardError {
  return new LockguardError(
    'ERR_LOCKGUARD_NOT_A_FILE',
    `Cannot write ${what}: "${printableUpTo(path, 400)}" is ${found}, not a file.`,
    {
      path,
      hint: `Give ${what} the path of a regular file, or of a new file in an existing folder (for example /tmp/lockguard-out); lockguard never writes into a device, pipe, folder or link.`,
    },
  );
}

/**
 * Whether `path` may take an output: 'file' (a regular file is there) or 'missing'; a LockguardError for
 * anything else (see the module comment). `what` names the flag or variable in the message.
 */
export function outputTarget(path: string, what: string): 'file' | 'missing' {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'missing';
    if (code === 'ENOTDIR') throw refusal(path, what, 'under something that is not a folder');
    throw fsFault(error, path, 'check');
  }
  const found = kindOf(stats);
  if (found !== undefined) throw refusal(path, what, found);
  return 'file';
}

/** Append `text` to the regular file at `path` (created when missing); refused for anything else. */
export function appendToOutput(path: string, text: string, what: string): void {
  outputTarget(path, what);
  let fd: number | undefined;
  try {
    fd = openSync(
      path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      0o644,
    );
    const found = kindOf(fstatSync(fd));
    if (found !== undefined) throw refusal(path, what, found);
    const bytes = Buffer.from(text);
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
  } catch (error) {
    if (error instanceof LockguardError) throw error;
    // ELOOP: a link was swapped in after the lstat (O_NOFOLLOW); ENXIO: a FIFO with no reader (O_NONBLOCK).
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw refusal(path, what, 'a symbolic link');
    if (code === 'ENXIO') throw refusal(path, what, 'a FIFO (named pipe)');
    throw fsFault(error, path, 'append to');
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
