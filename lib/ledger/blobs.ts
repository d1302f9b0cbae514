// Copies of lockfile bytes by the lockfile's digest, so a later process can tell how a lockfile moved.
//
// Owns: `<root>/.lockguard/blobs/<sha256>`: written (atomic) by the run that read those bytes, read back by
// digest. A copy is the lockfile's bytes redacted (core/redact.ts `redactLockfile`): a lockfile that
// holds no credential is kept as it is, one that does with each credential replaced by the marker and its
// tag, and one whose credential cannot be cut without touching the file's structure is not kept at all.
// The name is always the sha256 of the real bytes (what the run's table and `prune` know); what the copy
// must hash to is returned by `saveBlob` and recorded in the run (`copies`, run-record.ts) where it
// differs from the name; the record's `copiesVersion` says it was written so (every redacted copy named).
// Invariants: no credential bytes in `blobs/`: a verbatim copy an older lockguard kept of a lockfile with
// credentials is replaced (or removed, where no copy can be made) by the next run that reads those bytes.
// A copy read back hashes to what its run recorded, else it is a forged or damaged ledger file
// (ERR_LOCKGUARD_BROKEN_LEDGER naming it; its bytes never printed). Only for a record older than the
// redaction (no `copiesVersion`), whose verbatim copy a later run may have replaced, a redacted copy (one
// holding the marker) is told as not kept: the conservative reading, no per-project detail. Only lockfiles are kept; never the
// user's other files; never written or read through a symlink (`blobs` itself included: ledger-fs.ts).
// The common path (no credential, copy already kept) costs one scan of bytes in memory and one lstat.

import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { fileDigest, type FileDigest } from '../core/digest.js';
import { isLockguardError, LockguardError } from '../core/errors.js';
import { redactLockfile, SECRET_MARKER } from '../core/redact.js';
import { PRIVATE, writeAtomic } from './atomic.js';
import { ledgerFolder, readLedgerFile } from './ledger-fs.js';
import { LEDGER, ledgerPath, PRUNED_PREFIX } from './ledger-layout.js';
import type { KeptCopy } from './run-record.js';
import { setAsideAndDelete } from './set-aside.js';

const DIGEST = /^[0-9a-f]{64}$/;
/** The largest blob read back (a lockfile; the largest real ones are tens of MB). */
const MAX_BLOB_BYTES = 1 << 30;

/**
 * Keep the copy of the lockfile bytes `bytes` (whose sha256 is `digest`). Returns what the copy hashes to:
 * `digest` when nothing was redacted, the redacted copy's sha256, or null when no copy can be kept.
 */
export function saveBlob(root: string, digest: FileDigest, bytes: Buffer): FileDigest | null {
  const copy = redactLockfile(bytes);
  const folder = ledgerFolder(root, [LEDGER.blobs], true) ?? ledgerPath(root, LEDGER.blobs);
  const path = join(folder, digest);
  if (copy === bytes) {
    if (lstatSync(path, { throwIfNoEntry: false }) === undefined) writeAtomic(path, bytes, { mode: PRIVATE });
    return digest;
  }
  // Bytes with credentials: what stands under their name may be a verbatim copy an older lockguard kept.
  const present = lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  if (copy === undefined) {
    if (present) setAsideAndDelete(folder, digest, PRUNED_PREFIX);
    return null;
  }
  const copyDigest = fileDigest(copy);
  if (!present || !sameBytes(path, copyDigest)) writeAtomic(path, copy, { mode: PRIVATE });
  return copyDigest;
}

function sameBytes(path: string, digest: FileDigest): boolean {
  try {
    const kept = readLedgerFile(path, MAX_BLOB_BYTES);
    return kept !== undefined && fileDigest(kept) === digest;
  } catch (error) {
    if (isLockguardError(error)) return false;
    throw error;
  }
}

/**
 * The copy kept of the bytes whose digest is `digest`, which its run recorded to be `expected` (run-record.ts
 * `keptCopy`; default: a record older than the redaction, expecting the bytes themselves). Undefined when not
 * kept, or not reachable without a link; a copy that hashes to anything else is refused
 * (ERR_LOCKGUARD_BROKEN_LEDGER).
 */
export function readBlob(
  root: string,
  digest: FileDigest,
  expected: KeptCopy = { digest, recorded: false },
): Buffer | undefined {
  const copy = expected.digest;
  if (!DIGEST.test(digest) || copy === null) return undefined;
  let bytes: Buffer | undefined;
  try {
    const folder = ledgerFolder(root, [LEDGER.blobs], false);
    if (folder === undefined) return undefined;
    bytes = readLedgerFile(join(folder, digest), MAX_BLOB_BYTES);
  } catch (error) {
    if (isLockguardError(error)) return undefined;
    throw error;
  }
  if (bytes === undefined || fileDigest(bytes) === copy) return bytes;
  // A record older than the redaction names no copy digest; a newer run may since have replaced the verbatim
  // copy under that name with a redacted one: not a forgery, just no longer the bytes that record read.
  if (!expected.recorded && copy === digest && bytes.includes(SECRET_MARKER)) return undefined;
  const path = join(ledgerPath(root, LEDGER.blobs), digest);
  throw new LockguardError(
    'ERR_LOCKGUARD_BROKEN_LEDGER',
    `The lockfile copy "${path}" is not the copy lockguard kept of those bytes (its sha256 is not the one the run recorded): a forged or damaged ledger file.`,
    {
      path,
      hint: `Delete "${path}"; the next lockguard snapshot or run that reads those lockfile bytes keeps a new copy.`,
    },
  );
}
