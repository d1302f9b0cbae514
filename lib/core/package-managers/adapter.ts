// The one interface every package manager's core half implements: what core/ must know of a package
// manager to read its table, check its install and slice its lockfile.
//
// Owns: `PackageManagerCore` and the shapes only adapters and their dispatchers share.
// Invariants: types only. An adapter (`<pm>/index.ts`) imports leaf modules of core/ (entries.ts' types,
// table.ts, install-verdict.ts, slices/graph.ts, config-settings.ts, lockfile-errors.ts, its own folder),
// never a dispatcher (registry.ts, workspace.ts, fingerprints.ts, slices/slices.ts, install-check.ts,
// slices/layout.ts): they reach it through registry.ts, so the registry has no cycle. README.md says what a
// new package manager's folder must provide.

import type { EntrySpec } from '../entries.js';
import type { InstallCheck } from '../install-verdict.js';
import type { LockfileGraph } from '../slices/graph.js';
import type { WorkspaceFingerprints } from '../table.js';
import type { PackageManager } from './names.js';

/** What a lockfile reader is handed beside the bytes. */
interface GraphOptions {
  /** Absolute workspace root (yarn v1 reads its importers from the manifests there). */
  readonly root: string;
  /** The bytes are a redacted copy (slices.ts `FromLockfileOptions.redacted`). */
  readonly redacted: boolean;
}

/** Where this package manager's files name patch files (fingerprints.ts adds each as a `patch` entry). */
interface PatchSources {
  /** The root package.json's `patchedDependencies` (pnpm's `pnpm.patchedDependencies`, bun's own) count. */
  readonly rootManifest: boolean;
  /** The part of one of its lockfiles (by name) that can name patch files; an empty buffer when none can. */
  lockfileRegion(relPath: string, bytes: Buffer): Buffer;
  /** Patch files its lockfile names in its own syntax (yarn berry's `patch:` descriptors), from the bytes read. */
  fromLockfile?(files: ReadonlyMap<string, Buffer>): string[];
}

/** Per-project slices of this package manager's lockfile (slices/slices.ts dispatches here). */
interface SliceReader {
  /** The lockfiles slices are read from, in the order a root is searched. */
  readonly lockfiles: readonly string[];
  /**
   * A lockfile of this manager that has no slices (bun.lockb): what it is (`"…" is …`), the fix named when
   * its bytes are handed in (`hint`) and when it is the root's only lockfile (`rootHint`).
   */
  readonly refused?: {
    readonly lockfile: string;
    readonly why: string;
    readonly hint: string;
    readonly rootHint: string;
  };
  /**
   * The workspace-relative project folder of an importer of the lockfile at `lockfile` (workspace-relative),
   * when the importers are not relative to the root (Rush's are relative to common/temp); the importer itself otherwise.
   */
  importerFolder?(lockfile: string, importer: string): string;
  /** The lockfile read into the slice graph; throws LockguardError for what it cannot read. */
  graph(bytes: Buffer, absPath: string, options: GraphOptions): LockfileGraph;
}

/**
 * The same as `SliceReader.graph`, for lockfile versions only an asynchronous reader reads (pnpm 8's 6.x,
 * through @pnpm/lockfile-file). Listed apart from the adapters (registry.ts `ASYNC_SLICE_READERS`): the install
 * hooks' bundles slice synchronously, and an adapter holding it would carry that package into each of them.
 */
export type AsyncLower = (bytes: Buffer, absPath: string, options: GraphOptions) => Promise<LockfileGraph>;

/**
 * Another layout of a package manager's files, chosen by a file at the root (a Rush repository: rush.json,
 * its pnpm lockfile under common/config/rush/, pnpm's markers under common/temp/).
 */
interface RootLayout {
  /** The file whose presence at a folder makes it a workspace root of this layout (workspace.ts). */
  readonly marker: string;
  /**
   * The table's fixed entries at `root` when it has this layout, else undefined; throws LockguardError when the
   * marker file is broken or names a mode lockguard does not read.
   */
  entriesAt(root: string): readonly EntrySpec[] | undefined;
  /** Every entry the layout can have (a ledger record's paths are checked against them). */
  readonly entries: readonly EntrySpec[];
}

/** Everything core/ knows of one package manager. */
export interface PackageManagerCore {
  readonly name: PackageManager;
  /** Its lockfile names, in the order a workspace root is recognized by (workspace.ts). */
  readonly lockfiles: readonly string[];
  /** Files that say a root is this manager's before any lockfile does (pnpm-workspace.yaml). */
  readonly rootMarkers: readonly string[];
  /**
   * Its own rule for the workspace root above a real folder, when it has one (pnpm: find-workspace-dir's);
   * undefined when it finds none. Throws LockguardError when its rule refuses (a misnamed manifest).
   */
  findRoot?(real: string): Promise<string | undefined>;
  /** Another layout of its files, chosen by a file at the root (pnpm: a Rush repository). */
  readonly layout?: RootLayout;
  /** The table's fixed entries (entries.ts `baseEntries` filters them by scope). */
  readonly entries: readonly EntrySpec[];
  readonly patches: PatchSources;
  /** The pre-run check of a full-scope table: does the installed tree hold what the lockfile says? */
  checkInstall(table: WorkspaceFingerprints): InstallCheck;
  /** Whether its linker at `root` puts the hoisted pool in the root node_modules (slices/layout.ts). */
  poolAtRoot(root: string, lockfileHead: string): boolean;
  readonly slices: SliceReader;
}
