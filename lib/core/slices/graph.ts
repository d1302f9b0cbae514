// The slice graph every package manager's lockfile reader reads its lockfile into (package-managers/<pm>/).
//
// Owns: `LockfileGraph` and `NodeLabel`. Invariants: types only, a leaf (slices.ts, diff.ts, reach.ts and
// each reader share it without importing one another).

import type { SliceGraph } from './merkle.js';

/** What a node stands for, for diffs: a package (name, version) or a project. */
export type NodeLabel =
  | { readonly kind: 'package'; readonly name: string; readonly version: string; readonly missing?: true }
  | { readonly kind: 'importer'; readonly id: string }
  | { readonly kind: 'leaf'; readonly ref: string };

export interface LockfileGraph extends SliceGraph {
  /** Importer id -> node. */
  readonly importers: ReadonlyMap<string, number>;
  /** What node `node` stands for (computed on demand: only diffs need it). */
  label(node: number): NodeLabel;
}
