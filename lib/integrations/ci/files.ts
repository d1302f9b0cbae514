// Files a CI step reads after lockguard: the key file (`snapshot --key-file`) and a dotenv report
// (`verify --dotenv`, GitLab's `artifacts:reports:dotenv`).
//
// Owns: writing such a file whole or not at all (ledger/atomic.ts: a stage in the same folder, then a rename:
// a reader such as CircleCI's `{{ checksum }}` never sees half a key), and the dotenv text.
// Invariants: every value is one printable line (control characters escaped by core/printable.ts, so a
// path cannot forge a second variable); a fault is an ERR_LOCKGUARD_* error naming the path and the fix.

import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { isLockguardError, LockguardError } from '../../core/errors.js';
import { fsFault } from '../../core/fs-fault.js';
import { printable } from '../../core/printable.js';
import { writeAtomic } from '../../ledger/atomic.js';
import { outputTarget } from './output-target.js';

/** `NAME=value` lines, one per pair, each value made one printable line. */
export function dotenvText(pairs: Readonly<Record<string, string>>): string {
  return Object.entries(pairs)
    .map(([name, value]) => `${name}=${printable(value)}\n`)
    .join('');
}

/**
 * Write `text` to `path` atomically (ledger/atomic.ts; missing parent folders made), only over a regular file or
 * where nothing is (output-target.ts); `what` names the flag in an error.
 */
export function writeWhole(path: string, text: string, what: string): void {
  // Only where a file belongs: never a stage renamed over a device, a FIFO, a folder or a link (output-target.ts).
  outputTarget(path, what);
  try {
    // One folder at a time, never mkdirSync's recursive mode (it can spin on a path under /proc).
    const missing: string[] = [];
    for (let dir = dirname(path); !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) missing.push(dir);
    for (const dir of missing.reverse()) mkdirSync(dir);
    writeAtomic(path, text);
  } catch (error) {
    const fault = isLockguardError(error) ? error : fsFault(error, path, 'write');
    throw new LockguardError(fault.code, `Cannot write ${what}: ${fault.message}`, {
      path,
      cause: error,
      hint: `Give ${what} a file path in a writable folder (not a folder itself).`,
    });
  }
}
