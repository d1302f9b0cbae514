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

import { dirname, join, posix, resolve } from 'node:path';
import { canonicalJson, fileDigest, sha256Hex, type FileDigest, type TableKey } from './digest.js';
import {
  ancestorEntries,
  baseEntries,
  normalizeBytes,
  patchPaths,
  type EntryKind,
  type EntrySpec,
  type Normalizer,
  type Scope,
} from './entries.js';
import { checkLockfileShape } from './lockfile-shape.js';
import { checkLink } from './bounded-read.js';
import { lstatQuiet, readEntry, realFileSystem, type FileSystem, type StatIdentity } from './file-probe.js';
import { detectManager, type PackageManager } from './workspace.js';
import { yarnFlavor } from './yarn-flavor.js';
import { startsWith } from './digest.js';

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
  for (const { depth, dir } of ancestorsWithModules(fs, root))
    for (const spec of ancestorEntries(depth)) readSpec(spec, dir);
  if (manager === 'pnpm' || manager === 'bun') {
    for (const patch of rootManifestPatches(fs, root)) patches.add(patch);
  }
  if (manager === 'yarn') {
    const lock = files.get('yarn.lock');
    if (lock !== undefined) for (const patch of yarnPatchPaths(lock)) patches.add(patch);
  }
  for (const path of [...patches].sort()) {
    if (!entries.some((entry) => entry.path === path)) readSpec({ path, kind: 'patch' });
  }
  const keyed = entries.filter((entry) => entry.kind !== 'ancestor-marker');
  return { root, manager, scope, at, entries, files, key: tableKey(keyed) };
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
const NO_BYTES = Buffer.alloc(0);

/**
 * Where a file can name patch files: npm and yarn lockfiles never do (nothing to search); a pnpm lockfile
 * names them in its main document's header, before `importers:`, where pnpm writes `patchedDependencies`
 * (pnpm 12's env document is skipped); a workspace manifest or package.json is small and searched whole.
 * Only the header is searched because a search for an absent needle through a whole lockfile costs about
 * half of hashing it (measured: 150 µs of 290 µs on vite's 0.5 MB lockfile). A block placed after
 * `importers:` by hand is not seen; the lockfile's own bytes are in the key either way.
 */
export function patchRegion(relPath: string, bytes: Buffer): Buffer {
  if (
    relPath === 'package-lock.json' ||
    relPath === 'npm-shrinkwrap.json' ||
    relPath === 'yarn.lock' ||
    relPath === 'bun.lockb'
  )
    return NO_BYTES;
  // bun.lock names them in a top-level `patchedDependencies` map, which bun writes before `packages`.
  if (relPath === 'bun.lock') {
    const end = bytes.indexOf('\n  "packages": {');
    return bytes.subarray(0, end === -1 ? bytes.length : end + 1);
  }
  if (relPath !== 'pnpm-lock.yaml') return bytes;
  let start = 0;
  if (startsWith(bytes, '---\n')) {
    const second = bytes.indexOf('\n---\n', 3);
    if (second !== -1) start = second + 5;
  }
  const end = bytes.indexOf('\nimporters:', start);
  return bytes.subarray(start, end === -1 ? bytes.length : end + 1);
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

/**
 * The patch files a yarn berry lockfile names: `name@patch:<inner>#<path>.patch` descriptors and
 * resolutions (`~/` is the project root; builtin patches such as `optional!builtin<compat/fsevents>` are
 * no files). A path relative to a workspace other than the root is resolved against the workspace named by
 * the resolution's `locator=` parameter. Classic (v1) lockfiles have no patch protocol: nothing is found.
 * Found from the `#` each patch path follows, a rare byte (9 us over jest's 0.88 MB lockfile, against
 * 152 us to search for `patch:`); only lines that hold `@patch:` are read.
 */
export function yarnPatchPaths(bytes: Buffer): string[] {
  // yarn v1 has no `patch:` protocol, and each of its `resolved` lines holds a `#`: nothing to find there.
  if (yarnFlavor(bytes) === 'classic') return [];
  const found = new Set<string>();
  for (let at = bytes.indexOf(35); at !== -1; at = bytes.indexOf(35, at + 1)) {
    const start = bytes.lastIndexOf(10, at) + 1;
    const newline = bytes.indexOf(10, at);
    const end = newline === -1 ? bytes.length : newline;
    at = end;
    const line = bytes.subarray(start, end).toString('utf8');
    if (!line.includes('@patch:')) continue;
    for (const match of line.matchAll(/#([^#",]+?\.patch)(?:::([^",\s]*))?(?=[",\s]|$)/g)) {
      const raw = safeDecode(match[1] ?? '');
      let path: string;
      if (raw.startsWith('~/')) path = raw.slice(2);
      else {
        const locator = /(?:^|&)locator=([^&]*)/.exec(match[2] ?? '')?.[1];
        const workspace = locator === undefined ? undefined : /@workspace:(.*)$/.exec(safeDecode(locator))?.[1];
        path = posix.join(workspace === undefined || workspace === '.' ? '' : workspace, raw);
      }
      found.add(path);
    }
  }
  return [...found]
    .map((path) => posix.normalize(path))
    .filter((path) => path !== '' && !path.startsWith('../') && path !== '..' && !posix.isAbsolute(path))
    .sort();
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // A stray % is taken as written: the path is then looked up as it stands (and found absent).
    return text;
  }
}

/** The key of a list of entries: only paths and digests (or absence) count. */
export function tableKey(entries: readonly Pick<FingerprintEntry, 'path' | 'digest'>[]): TableKey {
  const pairs = [...entries]
    .map((entry) => [entry.path, entry.digest] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256Hex(canonicalJson({ lockguardTable: 1, entries: pairs })) as TableKey;
}
