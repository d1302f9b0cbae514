// The difference between two versions of one lockfile, project by project.
//
// Owns: which projects' slices changed, were added or removed, and how (packages added, removed, or at
// other versions, plus "entry changed" when a project's own importer entry differs and "content changed"
// for packages at the same version whose entries differ, such as a new integrity or peer suffix), and how many
// did not; and the one-line text of it, the change the user made first (a project that gained or lost a
// dependency of its own, then one whose own dependency moved, then other edited entries, then projects
// changed only through their dependencies), and in each project its own dependencies' changes first (a dependency added that was already
// reached through others included), then other version changes, then packages reached or no longer
// reached; same-version entry churn (peer suffixes) only counted after them.
// A project whose closure is as it was but whose reach through hoisting (reach.ts) moved is not `changed`
// (its slice is exact and unchanged) but `hoisted`: its key still moves (the slice files fold the reach).
// Invariants: the digests decide what changed (a slice whose digest and reach are equal is unchanged, never walked);
// only changed projects' closures are walked; the line never carries a URL's credentials (core/redact.ts).
// Must never: print, or name anything the lockfiles do not.

import { redactLabel, redactText } from '../redact.js';
import { plural } from '../words.js';
import type { LockfileGraph } from './graph.js';
import type { LockfileSlices } from './slices.js';

export interface PackageChange {
  readonly name: string;
  readonly kind: 'added' | 'removed' | 'changed';
  /** Versions before (empty when added), sorted. */
  readonly from: readonly string[];
  /** Versions after (empty when removed), sorted. */
  readonly to: readonly string[];
  /** A dependency of the project itself changed (the change the edit made; else reached through others). */
  readonly direct?: true;
}

export interface SliceChange {
  readonly importer: string;
  readonly name: string | undefined;
  /** The project's own importer entry differs (a specifier, a dependency added or dropped). */
  readonly entryChanged: boolean;
  readonly packages: readonly PackageChange[];
  /** Packages at the same versions whose entries differ (integrity, peers, engines...). */
  readonly contentChanged: readonly string[];
}

export interface SliceDiff {
  readonly lockfile: string;
  readonly changed: readonly SliceChange[];
  /** Importers only in the new lockfile / only in the old one. */
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Importers whose slice is unchanged but whose reach through hoisting moved (reach.ts): not counted unchanged. */
  readonly hoisted: readonly string[];
  readonly unchanged: number;
}

interface Closure {
  readonly versions: Map<string, Set<string>>;
  readonly owns: Map<string, Set<string>>;
}

function closureOf(graph: LockfileGraph, start: number): Closure {
  const versions = new Map<string, Set<string>>();
  const owns = new Map<string, Set<string>>();
  const seen = new Uint8Array(graph.own.length);
  const queue = [start];
  seen[start] = 1;
  while (queue.length > 0) {
    const node = queue.pop() as number;
    const label = graph.label(node);
    if (label?.kind === 'package') {
      let set = versions.get(label.name);
      if (set === undefined) versions.set(label.name, (set = new Set()));
      set.add(label.version);
      let own = owns.get(label.name);
      if (own === undefined) owns.set(label.name, (own = new Set()));
      own.add(graph.own[node] as string);
    }
    for (const next of graph.edges[node] ?? []) {
      if (seen[next] === 0) {
        seen[next] = 1;
        queue.push(next);
      }
    }
  }
  return { versions, owns };
}

/** The project's own dependencies: package name -> versions (links to other projects left out). */
function directOf(graph: LockfileGraph, node: number): Map<string, Set<string>> {
  const direct = new Map<string, Set<string>>();
  for (const next of graph.edges[node] ?? []) {
    const label = graph.label(next);
    if (label.kind !== 'package') continue;
    let set = direct.get(label.name);
    if (set === undefined) direct.set(label.name, (set = new Set()));
    set.add(label.version);
  }
  return direct;
}

/** Rank of a change in the line: the project's own dependencies first, then other version changes, then packages reached or no longer reached. */
function rank(change: PackageChange): number {
  if (change.direct === true) return 0;
  return change.kind === 'changed' ? 1 : 2;
}

const sorted = (set: Set<string> | undefined): string[] => [...(set ?? [])].sort();
const sameSet = (a: Set<string> | undefined, b: Set<string> | undefined): boolean =>
  a !== undefined && b !== undefined && a.size === b.size && [...a].every((x) => b.has(x));

function changeOf(
  before: LockfileSlices,
  after: LockfileSlices,
  importer: string,
  name: string | undefined,
): SliceChange {
  const oldNode = before.graph.importers.get(importer) as number;
  const newNode = after.graph.importers.get(importer) as number;
  const was = closureOf(before.graph, oldNode);
  const now = closureOf(after.graph, newNode);
  const packages: PackageChange[] = [];
  const contentChanged: string[] = [];
  const entryChanged = before.graph.own[oldNode] !== after.graph.own[newNode];
  // The project's own dependencies, read only when its entry changed (else they are as they were).
  const directWas = entryChanged ? directOf(before.graph, oldNode) : undefined;
  const directNow = entryChanged ? directOf(after.graph, newNode) : undefined;
  const names = new Set([
    ...was.versions.keys(),
    ...now.versions.keys(),
    ...(directWas?.keys() ?? []),
    ...(directNow?.keys() ?? []),
  ]);
  for (const pkg of [...names].sort()) {
    const from = was.versions.get(pkg);
    const to = now.versions.get(pkg);
    const ownWas = directWas?.get(pkg);
    const ownNow = directNow?.get(pkg);
    const direct =
      directWas !== undefined &&
      (ownWas !== undefined || ownNow !== undefined) &&
      !(ownWas !== undefined && ownNow !== undefined && sameSet(ownWas, ownNow));
    const mark = direct ? ({ direct: true } as const) : {};
    if (from === undefined) packages.push({ name: pkg, kind: 'added', from: [], to: sorted(to), ...mark });
    else if (to === undefined) packages.push({ name: pkg, kind: 'removed', from: sorted(from), to: [], ...mark });
    else if (!sameSet(from, to))
      packages.push({ name: pkg, kind: 'changed', from: sorted(from), to: sorted(to), ...mark });
    // Still reached at the same versions, but now (or no longer) a dependency of the project itself.
    else if (direct && ownWas === undefined)
      packages.push({ name: pkg, kind: 'added', from: [], to: sorted(ownNow), direct: true });
    else if (direct && ownNow === undefined)
      packages.push({ name: pkg, kind: 'removed', from: sorted(ownWas), to: [], direct: true });
    else if (direct)
      packages.push({ name: pkg, kind: 'changed', from: sorted(ownWas), to: sorted(ownNow), direct: true });
    else if (!sameSet(was.owns.get(pkg), now.owns.get(pkg))) contentChanged.push(pkg);
  }
  // Stable: by rank, then by name.
  packages.sort((a, b) => rank(a) - rank(b));
  return { importer, name, entryChanged, packages, contentChanged };
}

/** How `after` differs from `before` (two versions of the same lockfile), project by project. */
export function diffSlices(before: LockfileSlices, after: LockfileSlices): SliceDiff {
  const old = new Map(before.slices.map((slice) => [slice.importer, slice]));
  const changed: SliceChange[] = [];
  const added: string[] = [];
  const hoisted: string[] = [];
  let unchanged = 0;
  for (const slice of after.slices) {
    const was = old.get(slice.importer);
    if (was === undefined) added.push(slice.importer);
    else if (was.digest === slice.digest && was.reach === slice.reach) unchanged++;
    else if (was.digest === slice.digest) hoisted.push(slice.importer);
    else changed.push(changeOf(before, after, slice.importer, slice.name));
  }
  const now = new Set(after.slices.map((slice) => slice.importer));
  const removed = before.slices.map((slice) => slice.importer).filter((importer) => !now.has(importer));
  // The change the user made first: a project that gained or lost a dependency of its own, then one whose
  // own dependency is at another version, then one whose entry changed otherwise (a peer suffix, a
  // specifier), then those changed only through what they depend on. Stable: lockfile order within each.
  const ordered = changed
    .map((change, index) => ({ change, index, rank: projectRank(change) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ change }) => change);
  return { lockfile: after.lockfile, changed: ordered, added, removed, hoisted, unchanged };
}

/** How surely a project's change is the edit itself (0: a dependency of its own added or removed). */
function projectRank(change: SliceChange): number {
  if (!change.entryChanged) return 3;
  if (change.packages.some((pkg) => pkg.direct === true && pkg.kind !== 'changed')) return 0;
  if (change.packages.some((pkg) => pkg.direct === true)) return 1;
  return 2;
}

const ARROW = '\u2192';

function describePackage(change: PackageChange): string {
  const name = redactLabel(change.name);
  switch (change.kind) {
    case 'added':
      return `+${name} ${change.to.join(', ')}`;
    case 'removed':
      return `-${name} ${change.from.join(', ')}`;
    case 'changed':
      return `${name} ${change.from.join(', ')} ${ARROW} ${change.to.join(', ')}`;
  }
}

/** `packages/b (is-number 7.0.0 → 6.0.0)`; at most `limit` package changes, then "+N more". */
function describeChange(change: SliceChange, limit = 3): string {
  const parts = change.packages.slice(0, limit).map(describePackage);
  if (change.packages.length > limit) parts.push(`+${change.packages.length - limit} more`);
  if (parts.length === 0 && change.contentChanged.length > 0)
    parts.push(
      `entries of ${change.contentChanged.slice(0, limit).join(', ')}${change.contentChanged.length > limit ? ', ...' : ''} changed`,
    );
  if (parts.length === 0 && change.entryChanged) parts.push('its importer entry changed');
  if (parts.length === 0) return change.importer;
  // A project whose own entry is as it was changed only through what it depends on.
  return `${change.importer} (${change.entryChanged ? '' : 'through its dependencies: '}${parts.join('; ')})`;
}

/** One line: "pnpm-lock.yaml moved: the slices of packages/b changed (is-number 7.0.0 → 6.0.0); 543 other projects unchanged". */
export function describeSliceDiff(diff: SliceDiff, projectLimit = 4): string {
  const parts: string[] = [];
  if (diff.changed.length === 1 && diff.changed[0] !== undefined) {
    const only = diff.changed[0];
    const detail = describeChange(only);
    parts.push(
      `the slice of ${only.importer} changed${detail === only.importer ? '' : ` ${detail.slice(only.importer.length + 1)}`}`,
    );
  } else if (diff.changed.length > 1) {
    const listed = diff.changed.slice(0, projectLimit).map((change) => describeChange(change, 2));
    const more = diff.changed.length - listed.length;
    parts.push(
      `the slices of ${plural(diff.changed.length, 'project', 'projects')} changed: ${listed.join(', ')}${more > 0 ? `, and ${more} more` : ''}`,
    );
  }
  if (diff.added.length > 0)
    parts.push(
      `${plural(diff.added.length, 'project', 'projects')} added (${diff.added.slice(0, projectLimit).join(', ')}${diff.added.length > projectLimit ? ', ...' : ''})`,
    );
  if (diff.removed.length > 0)
    parts.push(
      `${plural(diff.removed.length, 'project', 'projects')} removed (${diff.removed.slice(0, projectLimit).join(', ')}${diff.removed.length > projectLimit ? ', ...' : ''})`,
    );
  if (parts.length === 0) parts.push("no project's slice changed");
  if (diff.hoisted.length > 0)
    parts.push(
      // "reach" as the README's words define it: hoisting (pnpm, npm, yarn node-modules, bun) or PnP's fallback.
      `${diff.hoisted.length} other ${diff.hoisted.length === 1 ? "project's" : "projects'"} reach moved (${diff.hoisted.slice(0, projectLimit).join(', ')}${diff.hoisted.length > projectLimit ? ', ...' : ''})`,
    );
  const touched = diff.changed.length + diff.added.length + diff.removed.length + diff.hoisted.length;
  // The projects left as they were, when there are any: "0 other projects unchanged" says nothing.
  const rest =
    touched === 0
      ? `; ${plural(diff.unchanged, 'project', 'projects')} unchanged`
      : diff.unchanged === 0
        ? ''
        : `; ${diff.unchanged} other ${diff.unchanged === 1 ? 'project' : 'projects'} unchanged`;
  return redactText(`${diff.lockfile} moved: ${parts.join('; ')}${rest}`);
}
