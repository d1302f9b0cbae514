// Files a CI step reads after lockguard: the key file (`snapshot --key-file`) and a dotenv report
// (`verify --dotenv`, GitLab's `artifacts:reports:dotenv`).
//
// Owns: writing such a file whole or not at all (a temporary file in the same folder, then a rename: a
// reader such as CircleCI's `{{ checksum }}` never sees half a key), and the dotenv text.
// Invariants: every value is one printable line (control characters escaped by core/printable.ts, so a
// path cannot forge a second variable); a fault is an ERR_LOCKGUARD_* error naming the path and the fix.

import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { LockguardError, errnoCode } from '../../core/errors.js';
import { printable } from '../../core/printable.js';

/** `NAME=value` lines, one per pair, each value made one printable line. */
export function dotenvText(pairs: Readonly<Record<string, string>>): string {
  return Object.entries(pairs)
    .map(([name, value]) => `${name}=${printable(value)}\n`)
    .join('');
}

/** Write `text` to `path` atomically (parent folders made); `what` names the file in an error (`--key-file`). */
export function writeWhole(path: string, text: string, what: string): void {
  const temp = `${path}.lockguard-${process.pid}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(temp, text);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    const code = errnoCode(error);
    throw new LockguardError(code === 'EACCES' || code === 'EPERM' ? 'ERR_LOCKGUARD_ACCESS' : 'ERR_LOCKGUARD_IO', `Cannot write ${what} "${path}"${code === undefined ? '' : ` (${code})`}.`, {
      path,
      cause: error,
      hint: `Give ${what} a path to a file in a writable folder (not a folder itself).`,
    });
  }
}
