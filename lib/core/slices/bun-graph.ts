// A read bun.lock (bun-lock.ts) lowered to the slice graph: workspaces and packages as nodes, dependencies
// resolved as bun and node do.
//
// Owns: resolution (a dependency `d` of the package at key `x/y` is `x/y/d`, else `x/d`, else `d`; of
// workspace `b`: `b/d`, else `d`; of the root: `d`; a workspace ident is a link to its importer, and so is a
// name no key resolves that is a workspace's) and each node's own content (bun-lock.ts states the slice).
// A dependency (or a workspace's devDependency) no key resolves is refused, as bun 1.4 refuses the lockfile
// ("Failed to resolve prod dependency"); an optional or peer one is no edge (bun installs without it).
// Invariants: O(V + E) map lookups; strings are built only for keys something is nested under; labels are
// made on demand (only diffs ask).

import type { LockguardError } from '../errors.js';
import { brokenLockfile } from '../lockfile-errors.js';
import type { BunLock, BunPackage } from './bun-lock.js';
import type { LoweredGraph, NodeLabel } from './pnpm-graph.js';

/** `name@version` -> [name, version]; scoped names keep their `@`. */
export function splitIdent(ident: string): [string, string] {
  const at = ident.indexOf('@', 1);
  return at === -1 ? [ident, ''] : [ident.slice(0, at), ident.slice(at + 1)];
}

/** The key without its last name: `x/@s/c` -> `x`, `x/dep` -> `x`, `dep` -> '' (a scoped name is two segments). */
export function parentKey(key: string): string {
  const cut = key.lastIndexOf('/');
  if (cut === -1) return '';
  const before = key.lastIndexOf('/', cut - 1);
  const segment = key.slice(before + 1, cut);
  if (segment.startsWith('@')) return before === -1 ? '' : key.slice(0, before);
  return key.slice(0, cut);
}

const NO_EDGES: number[] = [];

/** A package key or workspace path written twice (bun warns and keeps the first; bun-jsonc.ts refuses other keys). */
function twice(path: string): LockguardError {
  return brokenLockfile(path, 'a key appears twice in one object (bun reads the first, and warns)');
}

/** The slice graph of a read bun.lock; `path` names the file when a dependency resolves to nothing. */
export function lowerBun(lock: BunLock, path: string): LoweredGraph {
  const own: string[] = [];
  const edges: number[][] = [];
  // Package labels are made on demand (only diffs ask): undefined until then.
  const labels: (NodeLabel | undefined)[] = [];
  const packageAt: (BunPackage | undefined)[] = [];
  const importers = new Map<string, number>();
  const importerByFolder = new Map<string, number>();
  const importerByName = new Map<string, number>();
  for (const workspace of lock.workspaces) {
    const id = workspace.path === '' ? '.' : workspace.path;
    if (importerByFolder.has(workspace.path)) throw twice(path);
    importers.set(id, own.length);
    importerByFolder.set(workspace.path, own.length);
    if (workspace.name !== undefined && !importerByName.has(workspace.name)) importerByName.set(workspace.name, own.length);
    own.push(`bun-workspace\n${workspace.text}\n${lock.globalText}`);
    edges.push([]);
    labels.push({ kind: 'importer', id });
    packageAt.push(undefined);
  }
  const byKey = new Map<string, number>();
  for (const pkg of lock.packages) {
    if (byKey.has(pkg.key)) throw twice(path);
    const workspace = pkg.ident.indexOf('@workspace:');
    const folder = workspace === -1 ? undefined : pkg.ident.slice(workspace + 11);
    const linked = folder === undefined ? undefined : importerByFolder.get(folder === '.' ? '' : folder);
    if (linked !== undefined) {
      byKey.set(pkg.key, linked);
      continue;
    }
    byKey.set(pkg.key, own.length);
    // Pushed, index-aligned with `own` (an assignment past the end would make the array sparse).
    packageAt.push(pkg);
    own.push(`bun\n${pkg.text}`);
    // A package's edges are made below, and only where it has dependencies.
    edges.push(NO_EDGES);
    labels.push(undefined);
  }
  // From the package at `key` (or a workspace's name), as node looks up: `key/name`, then each parent's.
  // Only keys something is nested under can hold `key/name`: the rest are skipped without building a string.
  const parents = new Set<string>();
  for (const pkg of lock.packages) if (pkg.key.includes('/')) for (let base = parentKey(pkg.key); base !== '' && !parents.has(base); base = parentKey(base)) parents.add(base);
  const resolve = (key: string, name: string): number | undefined => {
    let base = key;
    for (;;) {
      if (base === '') return byKey.get(name);
      if (parents.has(base)) {
        const found = byKey.get(`${base}/${name}`);
        if (found !== undefined) return found;
      }
      base = parentKey(base);
    }
  };
  const unresolved = (name: string, index: number, required: number): number | undefined => {
    const linked = importerByName.get(name);
    if (linked === undefined && index < required) throw brokenLockfile(path, 'a dependency resolves to no package in it (bun refuses it)');
    return linked;
  };
  for (const workspace of lock.workspaces) {
    const out = edges[importerByFolder.get(workspace.path) as number] as number[];
    const prefix = workspace.path === '' || workspace.name === undefined ? '' : workspace.name;
    workspace.deps.forEach((name, index) => {
      const found = resolve(prefix, name) ?? unresolved(name, index, workspace.required);
      if (found !== undefined) out.push(found);
    });
  }
  for (const pkg of lock.packages) {
    const node = byKey.get(pkg.key) as number;
    if (packageAt[node] !== pkg) continue;
    if (pkg.deps.length === 0) continue;
    const out: number[] = [];
    edges[node] = out;
    // A top-level key nothing is nested under looks its dependencies up at the top only.
    const chained = parents.has(pkg.key) || parentKey(pkg.key) !== '';
    for (let index = 0; index < pkg.deps.length; index++) {
      const name = pkg.deps[index] as string;
      const found = (chained ? resolve(pkg.key, name) : byKey.get(name)) ?? unresolved(name, index, pkg.required);
      if (found !== undefined && found !== node) out.push(found);
    }
  }
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
