// Design B on the real histories (issue 29; reach.bench.ts reports it): a project folds only the hoisted
// entries for the names its installed packages require without declaring them, read from
// test/bench/reach-phantoms.tsv (made by reach-scan.ts from the real tarballs).
//
// Owns: `loadPhantoms` (the map), `workspaceNames` (a workspace package's name as its dependents link it:
// the histories hold lockfiles, not manifests), `indexGraph` (names -> nodes, each node's scan), and
// `designBFolds` (per importer, the digest design B folds: one walk per project, the definition written out;
// reach-design-b-pass.ts computes the same in one pass).
// Definition, per project P (pnpm isolated, defaults: the pool is reached only through installed packages):
// S = P's closure; U = the names S's packages require without declaring (a required peer counts where the
// snapshot leaves it unresolved); every package entry named N in U, in any version (the linker picks one;
// folding all is sound without knowing which), and the workspace package named N, join the fold and their
// closures join S, until no name is new (a phantom-resolved package's own phantoms count). The fold is
// sha256 over the sorted closure digests of what joined. A package S holds that the map does not know
// (a `file:` folder in the repository, a version the registry no longer serves) makes P fold the whole
// pool, as design A does. Variant `computed`: the same, and a package with a computed require or import in
// S also folds the whole pool (what B alone cannot see). Estimate `codeless` (not sound): a registry version
// whose tarball could not be read (the registry no longer serves it) read as holding no code.
// Not seen here: a workspace package nobody links to (its name is in its package.json, which the histories
// do not have; a shipped B reads the names as the slice pass does).
// Invariants: pure over the graph, its closures and the map; never reads the network.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import type { LockfileSlices } from '../../lib/core/slices/slices.js';

/** One package version's scan: undeclared names, required peers, files with a computed require. */
export interface Phantoms {
  readonly undeclared: readonly string[];
  readonly peers: readonly string[];
  readonly dynamic: number;
}

/** test/bench/reach-phantoms.tsv as a map `name@version` -> its scan. */
export function loadPhantoms(file: string): Map<string, Phantoms> {
  const out = new Map<string, Phantoms>();
  const list = (cell: string | undefined): string[] => (cell === undefined || cell === '-' ? [] : cell.split(','));
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const [key, undeclared, peers, dynamic] = line.split('\t');
    if (key !== undefined) out.set(key, { undeclared: list(undeclared), peers: list(peers), dynamic: Number(dynamic) });
  }
  return out;
}

/** Workspace package name -> importer id, from the importers' `link:` dependencies (lockfile text). */
export function workspaceNames(lockfileMain: string): Map<string, string> {
  const out = new Map<string, string>();
  const start = lockfileMain.indexOf('\nimporters:');
  const end = lockfileMain.indexOf('\npackages:');
  if (start === -1) return out;
  let importer = '.';
  let dep = '';
  for (const line of lockfileMain.slice(start, end === -1 ? undefined : end).split('\n')) {
    const key = /^( {2}| {6})'?([^\s':][^:]*?)'?:\s*$/.exec(line);
    if (key?.[1] === '  ') importer = key[2] as string;
    else if (key?.[1] === '      ') dep = key[2] as string;
    const link = /^ {8}version: link:(.+)$/.exec(line)?.[1];
    if (link !== undefined) out.set(dep, posix.normalize(posix.join(importer, link)).replace(/\/$/, '') || '.');
  }
  return out;
}

/** Per importer id: the digest design B folds (undefined when it folds nothing), plain and `computed`. */
export interface DesignBFolds {
  readonly plain: ReadonlyMap<string, string | undefined>;
  readonly computed: ReadonlyMap<string, string | undefined>;
  /** Not sound, an estimate: B if the registry tarballs the scan could not read held no code. */
  readonly codeless: ReadonlyMap<string, string | undefined>;
  /** Importers whose closure held a package the map does not know (they fold the whole pool). */
  readonly unknown: ReadonlySet<string>;
  /** Importers whose closure held a package with a computed require (the `computed` variant folds the pool). */
  readonly dynamic: ReadonlySet<string>;
}

export interface Indexed {
  readonly byName: Map<string, number[]>;
  readonly nameOf: (node: number) => string | undefined;
  readonly scanOf: (node: number) => Phantoms | 'unread' | 'unknown' | undefined;
}

export function indexGraph(
  sliced: LockfileSlices,
  phantoms: Map<string, Phantoms>,
  names: Map<string, string>,
): Indexed {
  const { graph } = sliced;
  const byName = new Map<string, number[]>();
  const importerName = new Map<number, string>();
  for (const [name, id] of names) {
    const node = graph.importers.get(id);
    if (node === undefined) continue;
    importerName.set(node, name);
    byName.set(name, [...(byName.get(name) ?? []), node]);
  }
  for (let node = 0; node < graph.own.length; node++) {
    const label = graph.label(node);
    if (label.kind === 'package') byName.set(label.name, [...(byName.get(label.name) ?? []), node]);
  }
  const nameOf = (node: number): string | undefined => {
    const label = graph.label(node);
    return label.kind === 'package' ? label.name : importerName.get(node);
  };
  const scanOf = (node: number): Phantoms | 'unread' | 'unknown' | undefined => {
    const label = graph.label(node);
    if (label.kind !== 'package') return undefined;
    if (label.missing || /^(?:file|link|git|https?):/.test(label.version)) return 'unknown';
    // A registry version the map lacks: its tarball could not be read (the scan's error lines).
    return phantoms.get(`${label.name}@${label.version}`) ?? 'unread';
  };
  return { byName, nameOf, scanOf };
}

/** What one project's design B walk found: the fold's node set, and whether it met unknown / computed code. */
function walkProject(start: number, sliced: LockfileSlices, ix: Indexed) {
  const { edges } = sliced.graph;
  const seen = new Set<number>([start]);
  const folded = new Set<number>();
  const names = new Set<string>();
  let unknown = false;
  let unread = false;
  let dynamic = false;
  const queue = [start];
  const addName = (name: string): void => {
    if (names.has(name)) return;
    names.add(name);
    for (const node of ix.byName.get(name) ?? []) {
      folded.add(node);
      if (!seen.has(node)) {
        seen.add(node);
        queue.push(node);
      }
    }
  };
  for (let node = queue.pop(); node !== undefined; node = queue.pop()) {
    const out = edges[node] ?? [];
    for (const next of out) {
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
    const scan = ix.scanOf(node);
    if (scan === undefined) continue;
    if (scan === 'unknown' || scan === 'unread') {
      if (scan === 'unknown') unknown = true;
      else unread = true;
      continue;
    }
    if (scan.dynamic > 0) dynamic = true;
    for (const name of scan.undeclared) addName(name);
    if (scan.peers.length > 0) {
      const resolved = new Set(out.map(ix.nameOf));
      for (const name of scan.peers) if (!resolved.has(name)) addName(name);
    }
  }
  return { folded, unknown, unread, dynamic };
}

/** Design B's fold for every importer of one lockfile revision. */
export function designBFolds(
  sliced: LockfileSlices,
  phantoms: Map<string, Phantoms>,
  lockfileMain: string,
): DesignBFolds {
  const ix = indexGraph(sliced, phantoms, workspaceNames(lockfileMain));
  const plain = new Map<string, string | undefined>();
  const computed = new Map<string, string | undefined>();
  const codeless = new Map<string, string | undefined>();
  const [unknownSet, dynamicSet] = [new Set<string>(), new Set<string>()];
  for (const [importer, node] of sliced.graph.importers) {
    const { folded, unknown, unread, dynamic } = walkProject(node, sliced, ix);
    const digests = [...new Set([...folded].map((n) => sliced.closures[n] ?? ''))].sort();
    const subset = digests.length === 0 ? undefined : createHash('sha256').update(digests.join('\n')).digest('base64');
    plain.set(importer, unknown || unread ? sliced.pool : subset);
    codeless.set(importer, unknown ? sliced.pool : subset);
    computed.set(importer, unknown || unread || dynamic ? sliced.pool : subset);
    if (unknown || unread) unknownSet.add(importer);
    if (dynamic) dynamicSet.add(importer);
  }
  return { plain, computed, codeless, unknown: unknownSet, dynamic: dynamicSet };
}
