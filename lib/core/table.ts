// The fingerprint table's value types, apart from the code that reads it (fingerprints.ts).
//
// Owns: `FingerprintEntry` and `WorkspaceFingerprints`.
// Invariants: types only, a leaf: each package manager's install check (package-managers/<pm>/) takes a
// table without importing the reader, which reaches the package-manager registry (no import cycle).

import type { FileDigest, TableKey } from './digest.js';
import type { EntryKind, Normalizer, Scope } from './entries.js';
import type { StatIdentity } from './file-probe.js';
import type { PackageManager } from './package-managers/names.js';

export interface FingerprintEntry {
  /** Workspace-relative POSIX path. */
  readonly path: string;
  readonly kind: EntryKind;
  readonly normalize?: Normalizer;
  /** sha256 of the (normalized) bytes; null when the file was absent. */
  readonly digest: FileDigest | null;
  /** Stat identity at the read (following links); null when absent. */
  readonly identity: StatIdentity | null;
}

export interface WorkspaceFingerprints {
  /** Absolute workspace root. */
  readonly root: string;
  readonly manager: PackageManager;
  readonly scope: Scope;
  /** Epoch ms taken before the first read. */
  readonly at: number;
  readonly entries: readonly FingerprintEntry[];
  /**
   * The raw bytes each present entry held at the read, by path. Kept so a racy re-check compares bytes,
   * not digests; empty for a table restored from a ledger (the re-check then compares digests).
   */
  readonly files: ReadonlyMap<string, Buffer>;
  /** What a cache key should fold: sha256 over the canonical (path, digest) list. */
  readonly key: TableKey;
}
