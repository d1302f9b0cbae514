// An npm package-lock v2/v3 (`packages` map) read into the slice graph, resolving as node does.
//
// Owns: which entries are projects (the root "" and every folder entry outside node_modules: the
// workspaces), and resolving each dependency the way node's module resolution finds it: from the
// dependent's location, `<loc>/node_modules/<name>`, then the same in every folder above it (skipping
// folders named node_modules) up to the root. A `link: true` entry is followed to the folder it resolves to.
// Edges: dependencies, optionalDependencies and peerDependencies of every entry; devDependencies only for
// projects (npm installs no package's devDependencies). A dependency npm did not install (an optional or
// peer one for another platform) is no edge: it is not in the tree.
// Own content of a node: its location and its entry as canonical JSON.
// Must never: read anything but the bytes given; echo them in an error (a refusal names a reason, a line and a
// column: an entry that is not an object, a field lockguard reads in a type npm never writes, a NUL in a location).

import { canonicalJson } from '../../digest.js';
import { jsonValuePosition, parseLockfileJson } from '../../json-lockfile.js';
import { brokenLockfile } from '../../lockfile-errors.js';
import type { LockfileGraph, NodeLabel } from '../../slices/graph.js';

interface NpmEntry {
  readonly name?: string;
  readonly version?: string;
  readonly link?: boolean;
  readonly resolved?: string;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

const isMap = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const STRING_FIELDS = ['name', 'version', 'resolved'] as const;
const DEPENDENCY_FIELDS = ['dependencies', 'optionalDependencies', 'peerDependencies', 'devDependencies'] as const;

/** What is wrong with one `packages` entry for slicing, and where (a path under it), or undefined. */
function entryProblem(
  location: string,
  entry: unknown,
): { readonly reason: string; readonly field?: string } | undefined {
  if (location.includes('\0')) return { reason: 'a package location holds a NUL character' };
  if (!isMap(entry))
    return {
      reason:
        location === ''
          ? 'the root entry ("") of "packages" is not an object'
          : 'an entry of "packages" is not an object',
    };
  for (const field of STRING_FIELDS)
    if (entry[field] !== undefined && typeof entry[field] !== 'string')
      return { reason: `an entry's "${field}" is not a string`, field };
  if (entry['link'] !== undefined && typeof entry['link'] !== 'boolean')
    return { reason: 'an entry\'s "link" is not true or false', field: 'link' };
  for (const field of DEPENDENCY_FIELDS) {
    const group = entry[field];
    if (group !== undefined && !isRangeMap(group))
      return { reason: `an entry's "${field}" is not a map of names to version ranges`, field };
  }
  return undefined;
}

function isRangeMap(value: unknown): boolean {
  if (!isMap(value)) return false;
  for (const name in value) if (typeof value[name] !== 'string') return false;
  return true;
}

/** The `packages` map of a package-lock's bytes, each entry checked to have what slicing reads, in the types npm writes. */
function npmPackages(bytes: Uint8Array, path: string): Record<string, NpmEntry> {
  const { text, value } = parseLockfileJson(bytes, path);
  const packages = isMap(value) ? value['packages'] : undefined;
  if (!isMap(packages)) {
    const reason = isMap(value)
      ? 'it has no "packages" map (lockfileVersion 1 is not supported: run npm install with npm 7 or later to upgrade it)'
      : 'it is not a JSON object';
    throw brokenLockfile(path, reason, isMap(value) ? jsonValuePosition(text, ['packages']) : undefined);
  }
  for (const location of Object.keys(packages)) {
    const problem = entryProblem(location, packages[location]);
    if (problem === undefined) continue;
    const at = ['packages', location, ...(problem.field === undefined ? [] : [problem.field])];
    throw brokenLockfile(path, problem.reason, jsonValuePosition(text, at) ?? jsonValuePosition(text, ['packages']));
  }
  return packages as Record<string, NpmEntry>;
}

/** True for a project location: the root or a folder entry that is not under any node_modules. */
function isProjectLocation(location: string): boolean {
  return location === '' || !(location.startsWith('node_modules/') || location.includes('/node_modules/'));
}

/** Where node finds `name` when required from `location`: `<dir>/node_modules/<name>` for `location` and
 * each folder above it that is not itself named node_modules, up to the root; undefined when none is locked. */
function resolveFrom(packages: Record<string, NpmEntry>, location: string, name: string): string | undefined {
  let base = location;
  for (;;) {
    if (base !== 'node_modules' && !base.endsWith('/node_modules')) {
      const candidate = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
      if (Object.hasOwn(packages, candidate)) return candidate;
    }
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/');
    base = cut === -1 ? '' : base.slice(0, cut);
  }
}

function nameAt(location: string, entry: NpmEntry): string {
  if (entry.name !== undefined) return entry.name;
  const cut = location.lastIndexOf('node_modules/');
  return cut === -1 ? location : location.slice(cut + 'node_modules/'.length);
}

export function npmSliceGraph(bytes: Uint8Array, path: string): LockfileGraph {
  const packages = npmPackages(bytes, path);
  const locations = Object.keys(packages);
  const nodeOf = new Map<string, number>();
  const own: string[] = [];
  const labels: NodeLabel[] = [];
  const importers = new Map<string, number>();
  for (const location of locations) {
    const entry = packages[location] as NpmEntry;
    nodeOf.set(location, own.length);
    own.push(`npm\n${location}\n${canonicalJson(entry)}`);
    const project = isProjectLocation(location);
    labels.push(
      project
        ? { kind: 'importer', id: location === '' ? '.' : location }
        : {
            kind: 'package',
            name: nameAt(location, entry),
            version: entry.version ?? (entry.link === true ? `link:${entry.resolved ?? ''}` : ''),
          },
    );
    if (project) importers.set(location === '' ? '.' : location, own.length - 1);
  }
  const edges: number[][] = locations.map((location) => {
    const entry = packages[location] as NpmEntry;
    const out: number[] = [];
    if (entry.link === true && entry.resolved !== undefined) {
      const target = nodeOf.get(entry.resolved);
      if (target !== undefined) out.push(target);
      return out;
    }
    const groups = [entry.dependencies, entry.optionalDependencies, entry.peerDependencies];
    if (isProjectLocation(location)) groups.push(entry.devDependencies);
    for (const group of groups) {
      if (group === undefined) continue;
      for (const name of Object.keys(group)) {
        const found = resolveFrom(packages, location, name);
        if (found !== undefined) out.push(nodeOf.get(found) as number);
      }
    }
    return out;
  });
  return { own, edges, label: (node) => labels[node] ?? { kind: 'leaf', ref: '' }, importers };
}
