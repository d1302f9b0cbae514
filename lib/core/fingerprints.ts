// The fingerprint table: every file a cache key folds, read once, with digests, identities and bytes.
//
// Owns: `readWorkspaceFingerprints` and the table's value types, and the table key.
// Invariants:
// - `at` is taken before the first read: any write after it has a ctime at or after it.
// - The key depends only on entries' paths and bytes (or absence), never on stat data, so two machines
//   with the same files compute the same key.
// - Hashes bytes, never parses the lockfile: pnpm 12's two-document lockfile is just bytes here.
// - An absent file is an entry too (recorded absent): appearing later is a move.

import { join } from 'node:path';
import { canonicalJson, fileDigest, sha256Hex, type FileDigest, type TableKey } from './digest.js';
import { baseEntries, normalizeBytes, patchPaths, type EntryKind, type EntrySpec, type Normalizer, type Scope } from './entries.js';
import { checkLockfileShape } from './lockfile-shape.js';
import { readEntry, realFileSystem, type FileSystem, type StatIdentity } from './file-probe.js';
import { detectManager, type PackageManager } from './workspace.js';

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

export interface ReadOptions {
  /** `full` (default) includes the install-tree markers; `inputs` is what an install reads. */
  readonly scope?: Scope;
  /** Override the package manager detected from the root's files. */
  readonly manager?: PackageManager;
  /** Injected file system (tests count syscalls with it). */
  readonly fs?: FileSystem;
}

/** Read the whole table of the workspace at `root`. Throws LockguardError for anything it cannot establish. */
export function readWorkspaceFingerprints(root: string, options: ReadOptions = {}): WorkspaceFingerprints {
  const at = Date.now();
  const fs = options.fs ?? realFileSystem;
  const scope = options.scope ?? 'full';
  const manager = options.manager ?? detectManager(root);
  const specs = baseEntries(manager, scope);
  const entries: FingerprintEntry[] = [];
  const files = new Map<string, Buffer>();
  const patches = new Set<string>();

  const readSpec = (spec: EntrySpec): void => {
    const result = readEntry(fs, join(root, spec.path));
    if (result.state === 'absent') {
      entries.push({ ...spec, digest: null, identity: null });
      return;
    }
    if (spec.kind === 'lockfile') checkLockfileShape(join(root, spec.path), spec.path, result.bytes);
    files.set(spec.path, result.bytes);
    const hashed = spec.normalize === undefined ? result.bytes : normalizeBytes(spec.normalize, result.bytes);
    entries.push({ ...spec, digest: fileDigest(hashed), identity: result.identity });
    if (spec.kind === 'lockfile' || spec.kind === 'workspace-manifest') {
      for (const patch of patchPaths(result.bytes.toString('utf8'))) patches.add(patch);
    }
  };

  for (const spec of specs) readSpec(spec);
  if (manager === 'pnpm') {
    for (const patch of rootManifestPatches(fs, root)) patches.add(patch);
  }
  for (const path of [...patches].sort()) {
    if (!entries.some((entry) => entry.path === path)) readSpec({ path, kind: 'patch' });
  }
  return { root, manager, scope, at, entries, files, key: tableKey(entries) };
}

// pnpm 9/10 also accept `pnpm.patchedDependencies` in the root package.json.
function rootManifestPatches(fs: FileSystem, root: string): string[] {
  const result = readEntry(fs, join(root, 'package.json'));
  if (result.state === 'absent') return [];
  const text = result.bytes.toString('utf8');
  return text.includes('patchedDependencies') ? patchPaths(text) : [];
}

/** The key of a list of entries: only paths and digests (or absence) count. */
export function tableKey(entries: readonly Pick<FingerprintEntry, 'path' | 'digest'>[]): TableKey {
  const pairs = [...entries].map((entry) => [entry.path, entry.digest] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256Hex(canonicalJson({ lockguardTable: 1, entries: pairs })) as TableKey;
}
