// What a project reaches beyond its own closure: the packages a linker hoists where its dependencies' code
// resolves them (issue 29; the table of what Node resolves from where, per package manager and linker, is in
// lib/core/README.md).
//
// Owns: the hoisted pool's digest (`poolDigest`) and which importers reach it (`installsPackages`).
// Definition (design A, "sound, coarse"): a package installed for a project resolves a name it does not
// declare through the hoisted locations: pnpm's private `node_modules/.pnpm/node_modules` (hoist-pattern `*`,
// the default, workspace packages included under hoist-workspace-packages), public hoisting and the root
// `node_modules` (public-hoist-pattern, shamefully-hoist, nodeLinker hoisted, npm, yarn node-modules, bun),
// yarn PnP's fallback to the top-level dependencies. Which version a linker hoists for a name is chosen from
// the whole graph (pnpm: by depth from every importer's direct dependencies, then by id), so the lockfile
// alone bounds the pool only as a whole: the pool's digest is over every entry's closure digest, and a project
// whose closure holds at least one package (anything but importers: a snapshot, an npm location, a missing
// entry) folds it. A project that installs no package has only project code, which resolves its own
// `node_modules` and its ancestors' (the root importer's slice: the slice files' `root` line), never the pool,
// unless the linker puts the pool in the root node_modules (npm, yarn node-modules, bun, pnpm hoisted or
// public hoisting: layout.ts), where every project folds it (slices.ts).
// Not seen: a `node_modules` above the workspace root (outside the lockfile: no slice can fold it).
// Invariants: O(V log V) over the closures computed once (merkle.ts); reads nothing but the graph.

import { sha256Of } from '../digest.js';
import type { LockfileGraph } from './graph.js';

/** The hoisted pool's digest: sha256 over every distinct closure digest of the graph, sorted. */
export function poolDigest(closures: readonly string[]): string {
  const distinct = [...new Set(closures)].sort();
  return sha256Of(`lockguard-reach/1\n${distinct.join('\n')}\n`);
}

/**
 * The importer nodes whose closure holds a node that is not an importer (a package their code installs). A
 * pnpm `link:` to a folder that is no importer (outside the workspace, or a plain folder in it) installs
 * nothing: Node resolves a linked folder's requires from its real path, whose ancestors never hold the
 * private pool (`node_modules/.pnpm/node_modules`); a folder in the workspace resolves the root
 * `node_modules`, the root's slice.
 */
export function installsPackages(graph: LockfileGraph): Set<number> {
  const importerNodes = new Set(graph.importers.values());
  const linkLeaf = (node: number): boolean => {
    const label = graph.label(node);
    return label.kind === 'leaf' && label.ref.startsWith('link ');
  };
  const memo = new Map<number, boolean>();
  const installs = (node: number, path: Set<number>): boolean => {
    const known = memo.get(node);
    if (known !== undefined) return known;
    path.add(node);
    let found = false;
    for (const next of graph.edges[node] ?? []) {
      if (!importerNodes.has(next)) found = !linkLeaf(next);
      else if (!path.has(next)) found = installs(next, path);
      if (found) break;
    }
    path.delete(node);
    // A cycle of links answered false mid-walk is not memoized as false: only what was proven is kept.
    if (found || path.size === 0) memo.set(node, found);
    return found;
  };
  const out = new Set<number>();
  for (const node of importerNodes) if (installs(node, new Set())) out.add(node);
  return out;
}
