// A pnpm lockfile index read into the slice graph: importers and snapshots as nodes, references as edges.
//
// Owns: resolving a reference as pnpm does (`link:` to another importer, relative to the referring
// importer's folder or, inside snapshots, to the workspace root; an alias `name@version` names its snapshot
// itself; anything else is `<name>@<ref>`), and each node's own content.
// Own content of an importer: its id, its entry text, the catalog entries its `catalog:` specifiers use,
// the lockfile version and the `settings` block. Of a snapshot: its `snapshots` text (which starts with its
// key) and the text of its `packages` entry (the key without the peer suffix).
// Invariants: a reference that names no entry becomes a leaf ("missing" / "outside link") with its own
// content, never an error: the slice still changes when the reference does.

import { posix } from 'node:path';
import type { LockfileGraph, NodeLabel } from '../../slices/graph.js';
import type { PnpmDep, PnpmEntry, PnpmLockIndex } from './lockfile-index.js';

export type { LockfileGraph } from '../../slices/graph.js';

/** `name@version(peers)` -> [name, version without peers]; scoped names keep their leading `@`. */
function splitPackageKey(key: string): [string, string] {
  const paren = key.indexOf('(');
  const base = paren === -1 ? key : key.slice(0, paren);
  const at = base.indexOf('@', 1);
  if (at === -1) return [base, ''];
  return [base.slice(0, at), base.slice(at + 1)];
}

/** The snapshot key a reference names, or a `link:` target as {link}. */
function resolveRef(dep: PnpmDep, fromDir: string): { readonly key: string } | { readonly link: string } {
  if (dep.ref.startsWith('link:'))
    return { link: posix.normalize(posix.join(fromDir, dep.ref.slice(5))).replace(/\/$/, '') || '.' };
  const paren = dep.ref.indexOf('(');
  const base = paren === -1 ? dep.ref : dep.ref.slice(0, paren);
  if (base.indexOf('@', 1) !== -1) return { key: dep.ref };
  return { key: `${dep.name}@${dep.ref}` };
}

function catalogName(specifier: string | undefined): string | undefined {
  if (specifier === undefined || !specifier.startsWith('catalog:')) return undefined;
  const name = specifier.slice('catalog:'.length).trim();
  return name === '' ? 'default' : name;
}

export function pnpmSliceGraph(index: PnpmLockIndex): LockfileGraph {
  const graph = new PnpmGraph(index);
  for (const [id, entry] of index.importers) graph.addImporter(id, entry);
  for (const [id, entry] of index.importers) {
    const out = graph.edges[graph.importers.get(id) as number] as number[];
    for (const dep of entry.deps) out.push(graph.target(dep.name, dep.ref, id));
  }
  // Snapshots are appended while resolved; walk them in creation order until no new one appears.
  const { own, edges, entries } = graph;
  for (let node = 0; node < own.length; node++) {
    const entry = entries[node];
    if (entry === undefined) continue;
    const out = edges[node] as number[];
    for (const dep of entry.deps) out.push(graph.target(dep.name, dep.ref, '.'));
  }
  const { special, keys } = graph;
  const label = (node: number): NodeLabel => {
    const known = special.get(node);
    if (known !== undefined) return known;
    const [name, version] = splitPackageKey(keys[node] ?? '');
    return { kind: 'package', name, version };
  };
  return { own, edges, label, importers: graph.importers };
}

/** The graph being built: nodes (own content, edges, labels) and the keys that find them. */
class PnpmGraph {
  readonly own: string[] = [];
  readonly edges: number[][] = [];
  readonly special = new Map<number, NodeLabel>();
  readonly importers = new Map<string, number>();
  private readonly byKey = new Map<string, number>();
  /** Per node: its snapshot key ('' for importers and leaves). */
  readonly keys: string[] = [];
  /** Per snapshot node: its entry (its dependencies are resolved in creation order). */
  readonly entries: (PnpmEntry | undefined)[] = [];
  private readonly index: PnpmLockIndex;
  private readonly global: string;

  constructor(index: PnpmLockIndex) {
    this.index = index;
    this.global = `lockfileVersion ${index.lockfileVersion}\n${index.settingsText}`;
  }

  addImporter(id: string, entry: PnpmEntry): void {
    const { own, index } = this;
    this.importers.set(id, own.length);
    const catalogTexts: string[] = [];
    for (const dep of entry.deps) {
      const catalog = catalogName(dep.specifier);
      if (catalog !== undefined)
        catalogTexts.push(`${catalog}:${index.catalogs.get(`${catalog}\0${dep.name}`) ?? '(missing)'}`);
    }
    own.push(`importer\n${id}\n${entry.text}\ncatalogs\n${catalogTexts.join('\n')}\n${this.global}`);
    this.edges.push([]);
    this.special.set(own.length - 1, { kind: 'importer', id });
  }

  // Inline resolveRef: this runs once per dependency line (100k+ on large lockfiles).
  target(name: string, ref: string, fromDir: string): number {
    if (ref.startsWith('link:')) {
      const link = resolveRef({ name, ref }, fromDir) as { link: string };
      return this.importers.get(link.link) ?? this.leaf(`link ${link.link}`);
    }
    const paren = ref.indexOf('(');
    const at = ref.indexOf('@', 1);
    const key = at !== -1 && (paren === -1 || at < paren) ? ref : `${name}@${ref}`;
    return this.byKey.get(key) ?? this.snapshotNode(key);
  }

  private leaf(ref: string, missingKey?: string): number {
    const { own, byKey } = this;
    const id = `\0${ref}`;
    const known = byKey.get(id);
    if (known !== undefined) return known;
    byKey.set(id, own.length);
    own.push(`leaf\n${ref}`);
    this.edges.push([]);
    if (missingKey === undefined) this.special.set(own.length - 1, { kind: 'leaf', ref });
    else {
      // A reference to an entry the lockfile lacks still names a package and version: diffs show it.
      const [name, version] = splitPackageKey(missingKey);
      this.special.set(own.length - 1, { kind: 'package', name, version, missing: true });
    }
    return own.length - 1;
  }

  private snapshotNode(key: string): number {
    const { own, index } = this;
    const entry = index.snapshots.get(key);
    if (entry === undefined) return this.leaf(`missing ${key}`, key);
    const node = own.length;
    this.byKey.set(key, node);
    this.keys[node] = key;
    this.entries[node] = entry;
    const paren = key.indexOf('(');
    const pkg = index.packages.get(paren === -1 ? key : key.slice(0, paren)) ?? '';
    own.push(`snapshot\n${entry.text}\n${pkg}`);
    this.edges.push([]);
    return node;
  }
}
