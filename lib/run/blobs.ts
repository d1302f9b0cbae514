// Content-addressed copies of lockfile bytes, so a later process can tell how a lockfile moved.
//
// Owns: `<root>/.lockguard/blobs/<sha256>`; written once (atomic), read back by digest.
// Invariants: a blob's name is the sha256 of its bytes (checked on read: a corrupt blob reads as missing);
// only lockfiles are kept (slices and reports need them); never the user's other files; never written or
// read through a symlink (`blobs` itself included: ledger-fs.ts).

import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { fileDigest, type FileDigest } from '../core/digest.js';
import { isLockguardError } from '../core/errors.js';
import { PRIVATE, writeAtomic } from './atomic.js';
import { ledgerFolder, readLedgerFile } from './ledger-fs.js';
import { LEDGER, ledgerPath } from './ledger-layout.js';

const DIGEST = /^[0-9a-f]{64}$/;
/** The largest blob read back (a lockfile; the largest real ones are tens of MB). */
const MAX_BLOB_BYTES = 1 << 30;

export function saveBlob(root: string, digest: FileDigest, bytes: Uint8Array): void {
  const folder = ledgerFolder(root, [LEDGER.blobs], true) ?? ledgerPath(root, LEDGER.blobs);
  const path = join(folder, digest);
  if (lstatSync(path, { throwIfNoEntry: false }) !== undefined) return;
  // A copy of the lockfile, credentials in its URLs included: for this user only.
  writeAtomic(path, bytes, { mode: PRIVATE });
}

/** The bytes whose digest is `digest`, or undefined when not kept, corrupt, or not reachable without a link. */
export function readBlob(root: string, digest: FileDigest): Buffer | undefined {
  if (!DIGEST.test(digest)) return undefined;
  try {
    const folder = ledgerFolder(root, [LEDGER.blobs], false);
    if (folder === undefined) return undefined;
    const bytes = readLedgerFile(join(folder, digest), MAX_BLOB_BYTES);
    return bytes !== undefined && fileDigest(bytes) === digest ? bytes : undefined;
  } catch (error) {
    if (isLockguardError(error)) return undefined;
    throw error;
  }
}
