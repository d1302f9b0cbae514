// Per-project lockfile slices: what each project's cache key should fold of the lockfile.
//
// Owns: `slicesFromLockfile` (bytes in, one slice per importer out), `projectSlices(root)`,
// `sliceDigest(root, project)` and `findSlice` (by importer path or package name).
//
// THE CANONICAL SLICE. A project's slice is its importer entry plus every entry it reaches: pnpm `snapshots`
// (with the `packages` entry of the same package) through dependencies, devDependencies and
// optionalDependencies of the importer and dependencies/optionalDependencies of snapshots, and other
// importers through `link:` references (a linked workspace project is installed into this one's tree, so
// its own dependencies are reached too). npm: the package-lock entries node would resolve, from the
// project's folder outwards (package-managers/npm/lock.ts). The slice of a pnpm importer also folds the lockfile version,
// the `settings` block, and the `catalogs` entries its `catalog:` specifiers use. Not folded: pnpm 12's
// env document (pnpm's own binaries, no project's dependency), `overrides`, `patchedDependencies` and
// checksums (their effect shows in the entries they change: a patched snapshot's key carries its hash).
// Its digest is a Merkle digest (merkle.ts): each strongly connected group of entries is hashed once, over
// its members' exact texts and the digests of the groups it points into, and the project's digest is
// sha256("lockguard-slice/1\n" + importer path + "\n" + digest of its group), in hex. Two lockfiles give a project
// the same digest exactly when everything it reaches is byte-identical (modulo sha256 collisions).
// yarn berry (package-managers/yarn/berry.ts), yarn v1 (package-managers/yarn/classic.ts, importers from the manifests) and text bun.lock
// (package-managers/bun/): the same definition over their own entries, each format's module saying what a node folds.
// pnpm lockfileVersion 6.x (pnpm 8): the same definition over @pnpm/lockfile-file's parse, asynchronously
// (`slicesFromLockfileAsync`, `projectSlicesAsync`); see package-managers/pnpm/v6.ts for what a v6 slice folds. Other pnpm
// versions (5.x, 10.x...) are ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE naming the version.
// Invariants: v9, npm, yarn and bun: one linear pass (text index, then O(V+E)), no full YAML parse, and
// neither @pnpm/lockfile-file nor any yarn parser is loaded; no file but the lockfile, the projects'
// package.json files (for names; yarn v1: also for the importers' dependencies, and the folder listings
// its workspace globs need) and the linker's committed settings at the root (layout.ts) is read. Must never: echo lockfile contents in errors.

import { statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { sha256Of } from '../digest.js';
import { LockguardError } from '../errors.js';
import { readEntry, realFileSystem } from '../file-probe.js';
import { checkLockfileShape } from '../lockfile-shape.js';
import { closureDigests } from './merkle.js';
import { installsPackages, poolDigest } from './reach.js';
import { poolAtRoot } from './layout.js';
import type { LockfileGraph } from './graph.js';
import type { PackageManager } from '../package-managers/names.js';
import {
  ASYNC_SLICE_READERS,
  PACKAGE_MANAGER_CORES,
  baseEntries,
  coreOf,
  layoutAt,
} from '../package-managers/registry.js';
import { readConfigText } from '../bounded-read.js';

export type SliceDigest = string & { readonly __brand: 'SliceDigest' };
export type SliceFormat = PackageManager;

export interface ProjectSlice {
  /** The importer path as the lockfile names it: '.' for the root, 'packages/b'. */
  readonly importer: string;
  /** The project's package name from its package.json, when there is one with a name. */
  readonly name: string | undefined;
  readonly digest: SliceDigest;
  /**
   * What the project reaches beyond its closure through hoisting (reach.ts): the hoisted pool's digest when
   * its closure installs a package (whose code resolves the pool), undefined when it installs none.
   */
  readonly reach: string | undefined;
}

export interface LockfileSlices {
  readonly format: SliceFormat;
  /** Workspace-relative lockfile path. */
  readonly lockfile: string;
  readonly slices: readonly ProjectSlice[];
  /** The lockfile's graph, for diffs (labels tell what each node is). */
  readonly graph: LockfileGraph;
  /** Per node: its closure digest. */
  readonly closures: readonly string[];
  /** The hoisted pool's digest (reach.ts): every entry of the lockfile. */
  readonly pool: string;
}

/** Lockfile names slices are computed for, in the order a root is searched (each adapter's `slices.lockfiles`). */
export const SLICE_LOCKFILES: ReadonlyArray<readonly [name: string, format: SliceFormat]> =
  PACKAGE_MANAGER_CORES.flatMap((core) => core.slices.lockfiles.map((name) => [name, core.name] as const));

/** A lockfile some adapter has no slices for (bun.lockb), with the fix its refusal names. */
function refusedLockfile(lockfile: string): { readonly hint: string } | undefined {
  for (const core of PACKAGE_MANAGER_CORES) {
    const refused = core.slices.refused;
    if (refused !== undefined && (lockfile === refused.lockfile || lockfile.endsWith(`/${refused.lockfile}`)))
      return refused;
  }
  return undefined;
}

/** What has slices, for messages: every format named, so a refusal says plainly what would work. */
const SLICE_FORMATS_TEXT =
  'pnpm-lock.yaml (lockfileVersion 6.x and 9.x), package-lock.json / npm-shrinkwrap.json (v2, v3), yarn.lock (yarn berry and yarn v1) and bun.lock (text)';

export function formatOf(lockfile: string): SliceFormat | undefined {
  return SLICE_LOCKFILES.find(([name]) => lockfile === name || lockfile.endsWith(`/${name}`))?.[1];
}

export interface FromLockfileOptions {
  /** Workspace-relative lockfile path ('pnpm-lock.yaml'): decides the format and names it. */
  readonly lockfile: string;
  /** Absolute workspace root: names the file in errors and is where package names are read from. */
  readonly root: string;
  /** Read each project's package.json for its name (default true). */
  readonly names?: boolean;
  /**
   * The bytes are a redacted copy (core/redact.ts `redactLockfile`, what the ledger keeps): what is read
   * beside them (yarn v1's manifests, whose ranges name its entries) is redacted the same way.
   */
  readonly redacted?: boolean;
  /**
   * Whether the linker puts the hoisted pool in the root node_modules, where every project's own code resolves
   * it (layout.ts): then every project folds the pool. Default: read from the settings committed at `root`.
   */
  readonly poolAtRoot?: boolean;
}

/** The format of `options.lockfile` after the byte-level shape check; throws for other lockfiles. */
function checkedFormat(bytes: Buffer, options: FromLockfileOptions): SliceFormat {
  const absPath = join(options.root, options.lockfile);
  const format = formatOf(options.lockfile);
  if (format === undefined) {
    throw new LockguardError(
      'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE',
      `Per-project slices are computed for ${SLICE_FORMATS_TEXT}, not "${absPath}".`,
      {
        path: absPath,
        hint:
          refusedLockfile(options.lockfile)?.hint ??
          'Use the whole-table key (lockguard key) for this package manager.',
      },
    );
  }
  checkLockfileShape(absPath, options.lockfile, bytes);
  return format;
}

/** Every project's slice of one lockfile's bytes (pnpm lockfileVersion 9.x, npm). For 6.x: slicesFromLockfileAsync. */
export function slicesFromLockfile(bytes: Buffer, options: FromLockfileOptions): LockfileSlices {
  return slicesOfChecked(checkedFormat(bytes, options), bytes, options);
}

/** options with `poolAtRoot` settled: given, or read from the settings at the root (layout.ts). */
function withLayout(format: SliceFormat, bytes: Buffer, options: FromLockfileOptions): FromLockfileOptions {
  if (options.poolAtRoot !== undefined) return options;
  return { ...options, poolAtRoot: poolAtRoot(options.root, format, bytes.subarray(0, 2048).toString('utf8')) };
}

function slicesOfChecked(format: SliceFormat, bytes: Buffer, given: FromLockfileOptions): LockfileSlices {
  const options = withLayout(format, bytes, given);
  const absPath = join(options.root, options.lockfile);
  return finish(format, coreOf(format).slices.graph(bytes, absPath, graphOptions(options)), options);
}

function graphOptions(options: FromLockfileOptions): { readonly root: string; readonly redacted: boolean } {
  return { root: options.root, redacted: options.redacted === true };
}

/** Every project's slice of one lockfile's bytes, pnpm 6.x included (read with @pnpm/lockfile-file, package-managers/pnpm/v6.ts). */
export async function slicesFromLockfileAsync(bytes: Buffer, options: FromLockfileOptions): Promise<LockfileSlices> {
  const format = checkedFormat(bytes, options);
  const graphAsync = ASYNC_SLICE_READERS[format];
  if (graphAsync === undefined) return slicesOfChecked(format, bytes, options);
  const graph: LockfileGraph = await graphAsync(bytes, join(options.root, options.lockfile), graphOptions(options));
  return finish(format, graph, withLayout(format, bytes, options));
}

/** The graph with each importer named by its project folder in the workspace (Rush's are relative to common/temp). */
function byFolder(format: SliceFormat, graph: LockfileGraph, lockfile: string): LockfileGraph {
  const folderOf = coreOf(format).slices.importerFolder;
  if (folderOf === undefined) return graph;
  const importers = new Map([...graph.importers].map(([listed, node]) => [folderOf(lockfile, listed), node] as const));
  return { ...graph, importers };
}

function finish(format: SliceFormat, read: LockfileGraph, options: FromLockfileOptions): LockfileSlices {
  const graph = byFolder(format, read, options.lockfile);
  const closures = closureDigests(graph);
  const pool = poolDigest(closures);
  // Where the pool is in the root node_modules, every project's own code resolves it (layout.ts).
  const everyone = options.poolAtRoot === true;
  const installs = everyone ? undefined : installsPackages(graph);
  const slices: ProjectSlice[] = [];
  for (const [importer, node] of graph.importers) {
    const digest = sha256Of(`lockguard-slice/1\n${importer}\n${closures[node] ?? ''}`) as SliceDigest;
    const name = options.names === false ? undefined : packageName(options.root, importer);
    slices.push({ importer, name, digest, reach: everyone || installs?.has(node) === true ? pool : undefined });
  }
  slices.sort((a, b) => (a.importer < b.importer ? -1 : a.importer > b.importer ? 1 : 0));
  return { format, lockfile: options.lockfile, slices, graph, closures, pool };
}

function packageName(root: string, importer: string): string | undefined {
  // Only a folder inside the workspace is read: an importer path is lockfile text, and may name anything.
  if (importer.includes('\0') || importer.startsWith('/')) return undefined;
  if (importer.includes('..')) {
    const relative = posix.normalize(importer);
    if (relative === '..' || relative.startsWith('../')) return undefined;
  }
  const path = join(root, importer, 'package.json');
  try {
    // A stat first: a missing manifest is common (removed projects, fixtures) and a thrown ENOENT costs more.
    if (statSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
    const parsed: unknown = JSON.parse(readConfigText(path) ?? '');
    const name = (parsed as { name?: unknown } | null)?.name;
    return typeof name === 'string' && name !== '' ? name : undefined;
  } catch {
    // A project without a (readable) package.json is still a project: it has no name, that is all.
    return undefined;
  }
}

/** The slices of the workspace at `root` (its pnpm-lock.yaml, else package-lock.json / npm-shrinkwrap.json); pnpm 6.x: projectSlicesAsync. */
export function projectSlices(root: string): LockfileSlices {
  const found = lockfileOf(root);
  return slicesFromLockfile(found.bytes, { lockfile: found.name, root });
}

/** projectSlices, pnpm lockfileVersion 6.x included. */
export async function projectSlicesAsync(root: string): Promise<LockfileSlices> {
  const found = lockfileOf(root);
  return slicesFromLockfileAsync(found.bytes, { lockfile: found.name, root });
}

function lockfileOf(root: string): { readonly name: string; readonly bytes: Buffer } {
  // A root with another layout (a Rush repository) has its lockfile where that layout says.
  const laid = layoutAt(root);
  if (laid !== undefined) {
    const name = baseEntries(laid.manager, 'inputs', root).find((entry) => entry.kind === 'lockfile')?.path;
    const result = name === undefined ? undefined : readEntry(realFileSystem, join(root, name));
    if (name !== undefined && result?.state === 'file') return { name, bytes: result.bytes };
  }
  for (const [name] of SLICE_LOCKFILES) {
    const result = readEntry(realFileSystem, join(root, name));
    if (result.state === 'file') return { name, bytes: result.bytes };
  }
  for (const core of PACKAGE_MANAGER_CORES) {
    const refused = core.slices.refused;
    if (refused === undefined) continue;
    const path = join(root, refused.lockfile);
    if (readEntry(realFileSystem, path).state !== 'file') continue;
    throw new LockguardError(
      'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE',
      `"${path}" ${refused.why}: per-project slices are computed for ${SLICE_FORMATS_TEXT}.`,
      { path, hint: refused.rootHint },
    );
  }
  throw new LockguardError(
    'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE',
    `No lockfile with per-project slices in "${root}": they are computed for ${SLICE_FORMATS_TEXT}.`,
    {
      path: root,
      hint: 'Install once (pnpm install / npm install / yarn install / bun install) to write the lockfile, or use the whole-table key (lockguard key).',
    },
  );
}

/** The slice of `project` (importer path such as 'packages/b' or '.', or package name), or undefined. */
export function findSlice(slices: readonly ProjectSlice[], project: string): ProjectSlice | undefined {
  const path = project.replaceAll('\\', '/').replace(/^\.\//, '').replace(/\/$/, '') || '.';
  return slices.find((slice) => slice.importer === path) ?? slices.find((slice) => slice.name === project);
}

/** The slice digest of one project of the workspace at `root`; throws ERR_LOCKGUARD_UNKNOWN_PROJECT. */
export function sliceDigest(root: string, project: string): SliceDigest {
  const { slices, lockfile } = projectSlices(root);
  const found = findSlice(slices, project);
  if (found === undefined) throw unknownProject(root, lockfile, project);
  return found.digest;
}

export function unknownProject(root: string, lockfile: string, project: string): LockguardError {
  return new LockguardError(
    'ERR_LOCKGUARD_UNKNOWN_PROJECT',
    `No project "${project}" in "${join(root, lockfile)}": expected an importer path (such as "." or "packages/b") or a package name.`,
    {
      path: join(root, lockfile),
      hint: 'lockguard key --projects lists every project with its importer path and name.',
    },
  );
}
