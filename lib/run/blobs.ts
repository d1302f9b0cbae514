// Content-addressed copies of lockfile bytes, so a later process can tell how a lockfile moved.
//
// Owns: `<root>/.lockguard/blobs/<sha256>`; written once (atomic), read back by digest.
// Invariants: a blob's name is the sha256 of its bytes (checked on read: a corrupt blob reads as missing);
// only lockfiles are kept (slices and reports need them); never the user's other files.

import { readFileSync, mkdirSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { fileDigest, type FileDigest } from '../core/digest.js';
import { LEDGER_DIR } from './ledger.js';
import { writeAtomic } from './atomic.js';

function blobPath(root: string, digest: FileDigest): string {
  return join(root, LEDGER_DIR, 'blobs', digest);
}

export function saveBlob(root: string, digest: FileDigest, bytes: Uint8Array): void {
  const path = blobPath(root, digest);
  if (lstatSync(path, { throwIfNoEntry: false }) !== undefined) return;
  mkdirSync(join(root, LEDGER_DIR, 'blobs'), { recursive: true });
  writeAtomic(path, bytes);
}

/** The bytes whose digest is `digest`, or undefined when not kept (or corrupt). */
export function readBlob(root: string, digest: FileDigest): Buffer | undefined {
  try {
    const bytes = readFileSync(blobPath(root, digest));
    return fileDigest(bytes) === digest ? bytes : undefined;
  } catch {
    return undefined;
  }
}
