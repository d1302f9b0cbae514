// yarn classic's (v1) yarn.lock read into the slice graph, with the workspaces from the manifests.
//
// Owns: the entries of the lockfile (read with yarn 1's own grammar in classic-parse.ts) and the
// importers: a v1 lockfile lists no workspaces, so they come from the root package.json's `workspaces` globs
// (`*` and `**` segments, `!` exclusions; node_modules skipped; inside the root only), each workspace's
// manifest giving its dependencies, devDependencies and optionalDependencies.
// Resolution: a dependency `name: range` is the entry listing the pattern `name@range`; a `file:` range of a
// workspace is written by yarn relative to the root (`file:vendor/x.tgz` for `file:../../vendor/x.tgz` in
// packages/b), so that form is tried next; a name that is a workspace's is a link to that importer; anything
// else is a leaf (the slice still changes when the reference does).
// THE YARN V1 SLICE: a package's own content is its entry's exact text; a workspace's is its folder, its
// manifest's four dependency maps as canonical JSON and the lockfile's header comment line.
// Invariants: one pass over the lockfile (classic-parse.ts); reads only the root's and its workspaces'
// package.json files inside the root, links resolved (a glob or a symlink out of the root reads nothing);
// errors are ERR_LOCKGUARD_BROKEN_LOCKFILE naming the path and line.

import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join, posix, sep } from 'node:path';
import { canonicalJson } from '../../digest.js';
import { redactLockfileText } from '../../redact.js';
import type { LockfileGraph, NodeLabel } from '../../slices/graph.js';
import { type ClassicEntry, parseYarnClassic } from './classic-parse.js';
import { splitDescriptor } from './berry.js';
import { readConfigText } from '../../bounded-read.js';

export type { ClassicEntry };

export interface ClassicWorkspace {
  /** '.' for the root, 'packages/b'. */
  readonly folder: string;
  readonly name: string | undefined;
  /** Canonical JSON of the manifest's dependency maps. */
  readonly text: string;
  readonly deps: readonly (readonly [name: string, range: string])[];
}

/** Read a v1 yarn.lock's text into entries (`path` names the file in errors): yarn 1's grammar, classic-parse.ts. */
export function indexYarnClassic(source: string, path: string): ClassicEntry[] {
  let text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  if (text.includes('\r\n')) text = text.replaceAll('\r\n', '\n');
  return parseYarnClassic(text, path);
}

type Manifest = Record<string, unknown>;

function readManifest(dir: string): Manifest | undefined {
  const path = join(dir, 'package.json');
  if (statSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(readConfigText(path) ?? '');
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Manifest) : undefined;
  } catch {
    return undefined;
  }
}

/** The root's `workspaces` globs (array, or `{ packages: [...] }`). */
function workspaceGlobs(manifest: Manifest | undefined): string[] {
  const field = manifest?.['workspaces'];
  const list = Array.isArray(field)
    ? field
    : field !== null && typeof field === 'object'
      ? (field as { packages?: unknown }).packages
      : undefined;
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string') : [];
}

function segmentMatches(glob: string, name: string): boolean {
  if (glob === '*') return true;
  const pattern = new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '[^/]*')
      .replaceAll('?', '[^/]')}$`,
  );
  return pattern.test(name);
}

function subfolders(root: string, folder: string): string[] {
  try {
    return readdirSync(join(root, folder), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.'))
      .map((entry) => (folder === '' ? entry.name : `${folder}/${entry.name}`));
  } catch {
    return [];
  }
}

/**
 * Folders (relative, POSIX) matching one workspace glob, inside the root: a glob that is absolute or climbs
 * out of it (`../*`; yarn 1 reads those too, measured) matches nothing here.
 */
function expand(root: string, glob: string): string[] {
  const normalized = posix.normalize(glob.replace(/^\.\//, '')).replace(/\/$/, '');
  if (normalized.startsWith('/') || normalized === '..' || normalized.startsWith('../') || normalized.includes('\0'))
    return [];
  let current = [''];
  for (const segment of normalized.split('/')) {
    const next: string[] = [];
    for (const folder of current) {
      if (segment === '**') {
        const stack = [folder];
        while (stack.length > 0) {
          const at = stack.pop() as string;
          next.push(at);
          stack.push(...subfolders(root, at));
        }
      } else if (/[*?]/.test(segment)) {
        next.push(...subfolders(root, folder).filter((sub) => segmentMatches(segment, posix.basename(sub))));
      } else {
        next.push(folder === '' ? segment : `${folder}/${segment}`);
      }
    }
    current = [...new Set(next)];
  }
  return current.filter((folder) => folder !== '');
}

const DEP_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;

function workspaceOf(folder: string, manifest: Manifest): ClassicWorkspace {
  const maps: Record<string, unknown> = {};
  const deps: [string, string][] = [];
  for (const field of DEP_FIELDS) {
    const map = manifest[field];
    if (map === null || typeof map !== 'object' || Array.isArray(map)) continue;
    maps[field] = map;
    for (const [name, range] of Object.entries(map as Record<string, unknown>))
      if (typeof range === 'string') deps.push([name, range]);
  }
  return {
    folder,
    name: typeof manifest['name'] === 'string' ? manifest['name'] : undefined,
    text: canonicalJson(maps),
    deps,
  };
}

/** Whether the manifest of `folder` (relative to `root`) is, links resolved, a file inside the root. */
function inside(root: string, realRoot: string, folder: string): boolean {
  try {
    const real = realpathSync(join(root, folder, 'package.json'));
    return real.startsWith(`${realRoot}${sep}`);
  } catch {
    return false;
  }
}

/**
 * The root and every workspace its manifest's globs name (a folder without package.json is none). Only
 * manifests inside the root are read: a workspace folder outside it (an absolute or climbing glob, a folder
 * that is a symlink out of the root) is no workspace of lockguard's, and a link to one is a leaf.
 */
export function classicWorkspaces(root: string, redacted = false): ClassicWorkspace[] {
  const workspaces = readWorkspaces(root);
  if (!redacted) return workspaces;
  // Matched against a redacted copy's keys: each range redacted as the copy was (an uncuttable one stays).
  return workspaces.map((workspace) => ({
    ...workspace,
    deps: workspace.deps.map(([name, range]) => [name, redactLockfileText(range) ?? range] as const),
  }));
}

function readWorkspaces(root: string): ClassicWorkspace[] {
  const rootManifest = readManifest(root);
  let realRoot = root;
  try {
    realRoot = realpathSync(root);
  } catch {
    // The root is read as given.
  }
  const out: ClassicWorkspace[] = [workspaceOf('.', rootManifest ?? {})];
  const globs = workspaceGlobs(rootManifest);
  const excluded = new Set(globs.filter((glob) => glob.startsWith('!')).flatMap((glob) => expand(root, glob.slice(1))));
  const folders = new Set(globs.filter((glob) => !glob.startsWith('!')).flatMap((glob) => expand(root, glob)));
  for (const folder of [...folders].sort()) {
    if (excluded.has(folder) || !inside(root, realRoot, folder)) continue;
    const manifest = readManifest(join(root, folder));
    if (manifest !== undefined) out.push(workspaceOf(folder, manifest));
  }
  return out;
}

export function yarnClassicSliceGraph(
  entries: readonly ClassicEntry[],
  workspaces: readonly ClassicWorkspace[],
  header: string,
): LockfileGraph {
  const own: string[] = [];
  const edges: number[][] = [];
  const labels: NodeLabel[] = [];
  const importers = new Map<string, number>();
  const byName = new Map<string, number>();
  for (const workspace of workspaces) {
    importers.set(workspace.folder, own.length);
    if (workspace.name !== undefined && !byName.has(workspace.name)) byName.set(workspace.name, own.length);
    own.push(`yarn-v1-workspace\n${workspace.folder}\n${workspace.text}\n${header}`);
    edges.push([]);
    labels.push({ kind: 'importer', id: workspace.folder });
  }
  const byPattern = new Map<string, number>();
  for (const entry of entries) {
    for (const pattern of entry.patterns) byPattern.set(pattern, own.length);
    own.push(`yarn-v1\n${entry.text}`);
    edges.push([]);
    labels.push({ kind: 'package', name: splitDescriptor(entry.patterns[0] ?? '')[0], version: entry.version });
  }
  const leaves = new Map<string, number>();
  const leaf = (pattern: string): number => {
    let node = leaves.get(pattern);
    if (node === undefined) {
      leaves.set(pattern, (node = own.length));
      own.push(`leaf\nmissing ${pattern}`);
      edges.push([]);
      const [name, range] = splitDescriptor(pattern);
      labels.push({ kind: 'package', name, version: range, missing: true });
    }
    return node;
  };
  workspaces.forEach((workspace, node) => {
    const out = edges[node] as number[];
    for (const [name, range] of workspace.deps) {
      let found = byPattern.get(`${name}@${range}`);
      if (found === undefined && /^(file|link):/.test(range) && workspace.folder !== '.') {
        const colon = range.indexOf(':');
        const relative = posix.normalize(posix.join(workspace.folder, range.slice(colon + 1)));
        found =
          byPattern.get(`${name}@${range.slice(0, colon)}:${relative}`) ??
          byPattern.get(`${name}@${range.slice(0, colon)}:./${relative}`);
      }
      out.push(found ?? byName.get(name) ?? leaf(`${name}@${range}`));
    }
  });
  entries.forEach((entry, index) => {
    const node = workspaces.length + index;
    const out = edges[node] as number[];
    for (const [name, range] of entry.deps)
      out.push(byPattern.get(`${name}@${range}`) ?? byName.get(name) ?? leaf(`${name}@${range}`));
  });
  return { own, edges, label: (node) => labels[node] ?? { kind: 'leaf', ref: '' }, importers };
}
