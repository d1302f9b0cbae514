// The fingerprint table: every file a cache key folds, read once, with digests, identities and bytes.
//
// Owns: `readWorkspaceFingerprints` and the table's value types, and the table key.
// Invariants:
// - `at` is taken before the first read: any write after it has a ctime at or after it.
// - The key depends only on entries' paths and bytes (or absence), never on stat data, so two machines
//   with the same files compute the same key.
// - Hashes bytes, never parses the lockfile: pnpm 12's two-document lockfile is just bytes here.
// - An absent file is an entry too (recorded absent): appearing later is a move.
// - A `node_modules` above the root (Node resolves from every ancestor's) has its install markers read as
//   `ancestor-marker` entries, which the watch re-checks like any other and the key never folds: only
//   ancestors that hold a `node_modules` folder at the read are listed (one stat per ancestor).

import { dirname, join, resolve } from 'node:path';
import { canonicalJson, fileDigest, sha256Hex, type TableKey } from './digest.js';
import { ancestorEntries, normalizeBytes, patchPaths, type EntrySpec, type Scope } from './entries.js';
import { checkLockfileShape } from './lockfile-shape.js';
import { checkLink } from './bounded-read.js';
import { errnoCode, LockguardError } from './errors.js';
import { lstatQuiet, readEntry, readFailure, realFileSystem, type FileSystem } from './file-probe.js';
import { detectManager } from './workspace.js';
import type { PackageManager } from './package-managers/names.js';
import { baseEntries, coreOf, coreOfLockfile, isPackageManager } from './package-managers/registry.js';
import type { FingerprintEntry, WorkspaceFingerprints } from './table.js';

export type { FingerprintEntry, WorkspaceFingerprints } from './table.js';

export interface ReadOptions {
  /** `full` (default) includes the install-tree markers; `inputs` is what an install reads. */
  readonly scope?: Scope;
  /** Override the package manager detected from the root's files. */
  readonly manager?: PackageManager;
  /** Injected file system (tests count syscalls with it). */
  readonly fs?: FileSystem;
}

/** Read the whole table of the workspace at `root`. Throws LockguardError for anything it cannot establish. */
export function readWorkspaceFingerprints(rootGiven: string, optionsGiven?: ReadOptions | null): WorkspaceFingerprints {
  const at = Date.now();
  const options = optionsGiven ?? {};
  const fs = options.fs ?? realFileSystem;
  const root = workspaceFolder(fs, rootGiven);
  const scope = options.scope ?? 'full';
  if (scope !== 'full' && scope !== 'inputs')
    throw new LockguardError(
      'ERR_LOCKGUARD_BAD_SETTING',
      `Expected scope to be "full" or "inputs", got a value it does not take.`,
      {
        hint: 'Pass { scope: "full" } (the default) or { scope: "inputs" }.',
      },
    );
  if (options.manager !== undefined && !isPackageManager(options.manager))
    throw new LockguardError('ERR_LOCKGUARD_BAD_SETTING', 'Expected manager to be "pnpm", "npm", "yarn" or "bun".', {
      hint: "Leave it out: the manager is detected from the root's files.",
    });
  const manager = options.manager ?? detectManager(root);
  const specs = baseEntries(manager, scope, root);
  const entries: FingerprintEntry[] = [];
  const files = new Map<string, Buffer>();
  const patches = new Set<string>();

  const readSpec = (spec: EntrySpec, bound = root): void => {
    const absPath = join(root, spec.path);
    const link = lstatQuiet(fs, absPath);
    // A linked entry is read only when its target is a regular file inside the workspace (core/bounded-read.ts),
    // an ancestor's marker only inside that ancestor.
    if (link?.isSymbolicLink() === true) checkLink(fs, absPath, bound);
    const result = link === undefined ? ABSENT : readEntry(fs, absPath);
    if (result.state === 'absent') {
      entries.push({ ...spec, digest: null, identity: null });
      return;
    }
    if (spec.kind === 'lockfile') checkLockfileShape(join(root, spec.path), spec.path, result.bytes);
    files.set(spec.path, result.bytes);
    const hashed = spec.normalize === undefined ? result.bytes : normalizeBytes(spec.normalize, result.bytes);
    entries.push({ ...spec, digest: fileDigest(hashed), identity: result.identity });
    if (spec.kind === 'lockfile' || spec.kind === 'workspace-manifest') {
      for (const patch of patchPaths(patchBlocks(patchRegion(spec.path, result.bytes)))) patches.add(patch);
    }
  };

  for (const spec of specs) readSpec(spec);
  for (const { spec, dir } of ancestorSpecs(fs, root)) readSpec(spec, dir);
  const { patches: named } = coreOf(manager);
  if (named.rootManifest) for (const patch of rootManifestPatches(fs, root)) patches.add(patch);
  for (const patch of named.fromLockfile?.(files) ?? []) patches.add(patch);
  for (const path of [...patches].sort()) {
    if (!entries.some((entry) => entry.path === path)) readSpec({ path, kind: 'patch' });
  }
  const keyed = entries.filter((entry) => entry.kind !== 'ancestor-marker');
  return { root, manager, scope, at, entries, files, key: tableKey(keyed) };
}

/** Each ancestor marker's spec, with the folder a link to it must stay inside. */
function ancestorSpecs(fs: FileSystem, root: string): { spec: EntrySpec; dir: string }[] {
  return ancestorsWithModules(fs, root).flatMap(({ depth, dir }) =>
    ancestorEntries(depth).map((spec) => ({ spec, dir })),
  );
}

/**
 * The install markers of every `node_modules` above `root` (the table's `ancestor-marker` entries), read
 * alone: what the slice files fold where no table was read (the install hooks, `key --write-slices`). One
 * stat per ancestor when none holds a `node_modules`.
 */
export function readAncestorMarkers(root: string, fs: FileSystem = realFileSystem): FingerprintEntry[] {
  return ancestorSpecs(fs, root).map(({ spec, dir }) => {
    const absPath = join(root, spec.path);
    const link = lstatQuiet(fs, absPath);
    if (link?.isSymbolicLink() === true) checkLink(fs, absPath, dir);
    const result = link === undefined ? ABSENT : readEntry(fs, absPath);
    if (result.state === 'absent') return { ...spec, digest: null, identity: null };
    const hashed = spec.normalize === undefined ? result.bytes : normalizeBytes(spec.normalize, result.bytes);
    return { ...spec, digest: fileDigest(hashed), identity: result.identity };
  });
}

/** sha256 over the present ancestor markers' paths and digests, or undefined when none is present. */
export function aboveDigest(
  entries: readonly Pick<FingerprintEntry, 'path' | 'kind' | 'digest'>[],
): string | undefined {
  const present = entries.filter((entry) => entry.kind === 'ancestor-marker' && entry.digest !== null);
  if (present.length === 0) return undefined;
  return sha256Hex(canonicalJson({ lockguardAbove: 1, entries: present.map((entry) => [entry.path, entry.digest]) }));
}

/** At most this many ancestors are looked at (a deeper path is not a workspace anyone runs). */
const ANCESTORS_MAX = 64;

/**
 * The folders above `root` that hold a `node_modules` folder (or a link to one), nearest first, with their
 * depth. One stat per ancestor; an ancestor that cannot be looked at is taken to hold none (Node could not
 * resolve from it either). Lexical: `..` of the root as given, as the entries' paths are joined.
 */
function ancestorsWithModules(fs: FileSystem, root: string): { depth: number; dir: string }[] {
  const found: { depth: number; dir: string }[] = [];
  let dir = resolve(root);
  for (let depth = 1; depth <= ANCESTORS_MAX; depth++) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
    let stats: ReturnType<FileSystem['statSync']> | undefined;
    try {
      stats = fs.statSync(join(dir, 'node_modules'), { throwIfNoEntry: false });
    } catch {
      stats = undefined;
    }
    if (stats?.isDirectory() === true) found.push({ depth, dir });
  }
  return found;
}

// pnpm 9/10 accept `pnpm.patchedDependencies` in the root package.json, bun its `patchedDependencies`.
function rootManifestPatches(fs: FileSystem, root: string): string[] {
  const result = readEntry(fs, join(root, 'package.json'));
  if (result.state === 'absent') return [];
  return patchPaths(patchBlocks(result.bytes));
}

const ABSENT = { state: 'absent' } as const;
const PATCHED = Buffer.from('patchedDependencies');

/**
 * Where a file can name patch files: a lockfile's own region, as its package manager's adapter says
 * (package-managers/<pm>/: npm and yarn lockfiles never do; pnpm's header, bun.lock's top-level map); a
 * workspace manifest or package.json is small and searched whole.
 */
export function patchRegion(relPath: string, bytes: Buffer): Buffer {
  const owner = coreOfLockfile(relPath);
  return owner === undefined ? bytes : owner.patches.lockfileRegion(relPath, bytes);
}

/**
 * The text of every `patchedDependencies` block in `bytes` (from its line to the next line that starts
 * at column 0), or '' when there is none: patchPaths then scans a few lines, not a whole lockfile
 * (decoding and splitting a 1 MB lockfile costs more than reading and hashing it).
 */
export function patchBlocks(bytes: Buffer): string {
  let text = '';
  let end = 0;
  for (let at = bytes.indexOf(PATCHED); at !== -1; at = bytes.indexOf(PATCHED, Math.max(end, at + PATCHED.length))) {
    if (at < end) continue;
    const start = bytes.lastIndexOf(10, at) + 1;
    end = at;
    for (;;) {
      const newline = bytes.indexOf(10, end);
      if (newline === -1) {
        end = bytes.length;
        break;
      }
      end = newline + 1;
      const next = bytes[end];
      // A block goes on over indented and blank lines; a line starting at column 0 ends it.
      if (next !== 0x20 && next !== 0x09 && next !== 0x0a && next !== 0x0d) break;
    }
    text += `${bytes.subarray(start, end).toString('utf8')}\n`;
  }
  return text;
}

export { yarnPatchPaths } from './package-managers/yarn/patches.js';

/** The key of a list of entries: only paths and digests (or absence) count. */
function tableKey(entries: readonly Pick<FingerprintEntry, 'path' | 'digest'>[]): TableKey {
  const pairs = [...entries]
    .map((entry) => [entry.path, entry.digest] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256Hex(canonicalJson({ lockguardTable: 1, entries: pairs })) as TableKey;
}

/**
 * The root as an absolute folder that exists (a missing or relative root once gave a valid-looking empty table,
 * the same for every typo, and a relative one was resolved again against whatever the working folder was later).
 */
function workspaceFolder(fs: FileSystem, given: unknown): string {
  if (typeof given !== 'string' || given === '')
    throw new LockguardError('ERR_LOCKGUARD_NOT_A_WORKSPACE', "Expected the workspace root: a folder's path.", {
      hint: 'Pass the workspace root (findWorkspace finds it from any folder inside).',
    });
  const root = resolve(given);
  let stats: ReturnType<FileSystem['statSync']> | undefined;
  try {
    stats = fs.statSync(root, { throwIfNoEntry: false });
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT' && errnoCode(error) !== 'ENOTDIR') throw readFailure(root, error);
  }
  if (stats === undefined || !stats.isDirectory())
    throw new LockguardError(
      'ERR_LOCKGUARD_NOT_A_WORKSPACE',
      `"${root}" is ${stats === undefined ? 'no folder (nothing is there)' : 'not a folder'}: there is no workspace to read.`,
      { path: root, hint: 'Pass the workspace root (findWorkspace finds it from any folder inside).' },
    );
  return root;
}
