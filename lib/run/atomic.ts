// Atomic file writes for the ledger.
//
// Owns: write-to-a-unique-stage-then-rename in the same folder, and append-only event lines.
// Invariants: a reader never sees a half-written file; two concurrent writers never share a stage name;
// a failed write leaves no stage file behind.

import { randomBytes } from 'node:crypto';
import { appendFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export function writeAtomic(path: string, data: string | Uint8Array): void {
  const stage = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.stage`);
  try {
    writeFileSync(stage, data, { flag: 'wx' });
    renameSync(stage, path);
  } catch (error) {
    rmSync(stage, { force: true });
    throw error;
  }
}

/** One JSON object per line; O_APPEND keeps concurrent appenders' lines whole on local file systems. */
export function appendLine(path: string, value: unknown): void {
  appendFileSync(path, `${JSON.stringify(value)}\n`, { flag: 'a' });
}
