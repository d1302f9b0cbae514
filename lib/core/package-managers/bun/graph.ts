// A read bun.lock (lock.ts) read into the slice graph: workspaces and packages as nodes, dependencies
// resolved as bun and node do.
//
// Owns: resolution (a dependency `d` of the package at key `x/y` is `x/y/d`, else `x/d`, else `d`; of
// workspace `b`: `b/d`, else `d`; of the root: `d`; a workspace ident is a link to its importer, and so is a
// name no key resolves that is a workspace's) and each node's own content (lock.ts states the slice).
// A dependency (or a workspace's devDependency) no key resolves is refused, as bun 1.4 refuses the lockfile
// ("Failed to resolve prod dependency"); an optional or peer one is no edge (bun installs without it).
// Invariants: O(V + E) map lookups; strings are built only for keys something is nested under; labels are
// made on demand (only diffs ask).

import type { LockguardError } from '../../errors.js';
import { brokenLockfile } from '../../lockfile-errors.js';
import type { BunLock, BunPackage } from './lock.js';
import type { LockfileGraph, NodeLabel } from '../../slices/graph.js';

/** `name@version` -> [name, version]; scoped names keep their `@`. */
function splitIdent(ident: string): [string, string] {
  const at = ident.indexOf('@', 1);
  return at === -1 ? [ident, ''] : [ident.slice(0, at), ident.slice(at + 1)];
}

/** The key without its last name: `x/@s/c` -> `x`, `x/dep` -> `x`, `dep` -> '' (a scoped name is two segments). */
function parentKey(key: string): string {
  const cut = key.lastIndexOf('/');
  if (cut === -1) return '';
  const before = key.lastIndexOf('/', cut - 1);
  const segment = key.slice(before + 1, cut);
  if (segment.startsWith('@')) return before === -1 ? '' : key.slice(0, before);
  return key.slice(0, cut);
}

const NO_EDGES: number[] = [];

/** A package key or workspace path written twice (bun warns and keeps the first; jsonc.ts refuses other keys). */
function twice(path: string): LockguardError {
  return brokenLockfile(path, 'a key appears twice in one object (bun reads the first, and warns)');
}

/** The slice graph of a read bun.lock; `path` names the file when a dependency resolves to nothing. */
export function bunSliceGraph(lock: BunLock, path: string): LockfileGraph {
  const graph = new BunGraph(path);
  graph.addWorkspaces(lock);
  graph.addPackages(lock);
  graph.linkWorkspaces(lock);
  graph.linkPackages(lock);
  const { own, edges, labels, packageAt, importers } = graph;
  const label = (node: number): NodeLabel => {
    const known = labels[node];
    if (known !== undefined) return known;
    const pkg = packageAt[node];
    if (pkg === undefined) return { kind: 'leaf', ref: '' };
    const [name, version] = splitIdent(pkg.ident);
    return (labels[node] = { kind: 'package', name, version });
  };
  return { own, edges, label, importers };
}

/** The graph being built: nodes first (workspaces, then packages), then their edges. */
class BunGraph {
  readonly own: string[] = [];
  readonly edges: number[][] = [];
  // Package labels are made on demand (only diffs ask): undefined until then.
  readonly labels: (NodeLabel | undefined)[] = [];
  readonly packageAt: (BunPackage | undefined)[] = [];
  readonly importers = new Map<string, number>();
  private readonly importerByFolder = new Map<string, number>();
  private readonly importerByName = new Map<string, number>();
  private readonly byKey = new Map<string, number>();
  // The keys something is nested under (see resolve).
  private readonly parents = new Set<string>();
  private readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  addWorkspaces(lock: BunLock): void {
    const { own, importerByFolder, importerByName } = this;
    for (const workspace of lock.workspaces) {
      const id = workspace.path === '' ? '.' : workspace.path;
      if (importerByFolder.has(workspace.path)) throw twice(this.path);
      this.importers.set(id, own.length);
      importerByFolder.set(workspace.path, own.length);
      if (workspace.name !== undefined && !importerByName.has(workspace.name))
        importerByName.set(workspace.name, own.length);
      own.push(`bun-workspace\n${workspace.text}\n${lock.globalText}`);
      this.edges.push([]);
      this.labels.push({ kind: 'importer', id });
      this.packageAt.push(undefined);
    }
  }

  addPackages(lock: BunLock): void {
    const { own, byKey } = this;
    for (const pkg of lock.packages) {
      if (byKey.has(pkg.key)) throw twice(this.path);
      const workspace = pkg.ident.indexOf('@workspace:');
      const folder = workspace === -1 ? undefined : pkg.ident.slice(workspace + 11);
      const linked = folder === undefined ? undefined : this.importerByFolder.get(folder === '.' ? '' : folder);
      if (linked !== undefined) {
        byKey.set(pkg.key, linked);
        continue;
      }
      byKey.set(pkg.key, own.length);
      // Pushed, index-aligned with `own` (an assignment past the end would make the array sparse).
      this.packageAt.push(pkg);
      own.push(`bun\n${pkg.text}`);
      // A package's edges are made below, and only where it has dependencies.
      this.edges.push(NO_EDGES);
      this.labels.push(undefined);
    }
    // Only keys something is nested under can hold `key/name`: the rest are skipped without building a string.
    const parents = this.parents;
    for (const pkg of lock.packages)
      if (pkg.key.includes('/'))
        for (let base = parentKey(pkg.key); base !== '' && !parents.has(base); base = parentKey(base))
          parents.add(base);
  }

  linkWorkspaces(lock: BunLock): void {
    for (const workspace of lock.workspaces) {
      const out = this.edges[this.importerByFolder.get(workspace.path) as number] as number[];
      const prefix = workspace.path === '' || workspace.name === undefined ? '' : workspace.name;
      workspace.deps.forEach((name, index) => {
        const found = this.resolve(prefix, name) ?? this.unresolved(name, index, workspace.required);
        if (found !== undefined) out.push(found);
      });
    }
  }

  linkPackages(lock: BunLock): void {
    const { byKey, parents } = this;
    for (const pkg of lock.packages) {
      const node = byKey.get(pkg.key) as number;
      if (this.packageAt[node] !== pkg) continue;
      if (pkg.deps.length === 0) continue;
      const out: number[] = [];
      this.edges[node] = out;
      // A top-level key nothing is nested under looks its dependencies up at the top only.
      const chained = parents.has(pkg.key) || parentKey(pkg.key) !== '';
      for (let index = 0; index < pkg.deps.length; index++) {
        const name = pkg.deps[index] as string;
        const found =
          (chained ? this.resolve(pkg.key, name) : byKey.get(name)) ?? this.unresolved(name, index, pkg.required);
        if (found !== undefined && found !== node) out.push(found);
      }
    }
  }

  // From the package at `key` (or a workspace's name), as node looks up: `key/name`, then each parent's.
  private resolve(key: string, name: string): number | undefined {
    let base = key;
    for (;;) {
      if (base === '') return this.byKey.get(name);
      if (this.parents.has(base)) {
        const found = this.byKey.get(`${base}/${name}`);
        if (found !== undefined) return found;
      }
      base = parentKey(base);
    }
  }

  private unresolved(name: string, index: number, required: number): number | undefined {
    const linked = this.importerByName.get(name);
    if (linked === undefined && index < required)
      throw brokenLockfile(this.path, 'a dependency resolves to no package in it (bun refuses it)');
    return linked;
  }
}
