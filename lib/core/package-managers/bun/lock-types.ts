// The shapes of a read bun.lock (lock.ts reads them, graph.ts builds the graph from them).
//
// Owns: `BunWorkspace`, `BunPackage`, `BunLock`. Invariants: types only; a package's `text` is its tuple's
// exact text (canonical JSON when the file was read whole).

export interface BunWorkspace {
  /** Folder relative to the root ('' for the root, as bun.lock names it). */
  readonly path: string;
  readonly name: string | undefined;
  readonly text: string;
  /** Names of its dependencies and devDependencies, then of its optionalDependencies and peerDependencies. */
  readonly deps: readonly string[];
  /** How many of `deps` bun must resolve (dependencies, devDependencies): it refuses the lockfile otherwise. */
  readonly required: number;
}

export interface BunPackage {
  readonly key: string;
  /** The tuple's first element: `name@version`, `name@workspace:path`, `name@<tarball path>`. */
  readonly ident: string;
  /** The tuple's exact text (canonical JSON when the file was read whole): `bunIntegrity`, `bunInfo` read it. */
  readonly text: string;
  /** Names of its dependencies, then of its optionalDependencies and peerDependencies. */
  readonly deps: readonly string[];
  /** How many of `deps` bun must resolve (dependencies): it refuses the lockfile otherwise. */
  readonly required: number;
}

export interface BunLock {
  readonly lockfileVersion: string;
  /** What every slice folds: the version lines, trustedDependencies, patchedDependencies. */
  readonly globalText: string;
  readonly workspaces: readonly BunWorkspace[];
  readonly packages: readonly BunPackage[];
}
