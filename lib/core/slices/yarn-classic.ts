// yarn classic's (v1) yarn.lock lowered to the slice graph, with the workspaces from the manifests.
//
// Owns: a text index over the layout yarn 1 writes (`"a@^1", a@^2:` key lines listing patterns, `  version
// "1.0.0"`, `  resolved "…"`, `  integrity …`, `    name "range"` under `dependencies:` /
// `optionalDependencies:`), and the importers: a v1 lockfile lists no workspaces, so they come from the
// root package.json's `workspaces` globs (`*` and `**` segments, `!` exclusions; node_modules skipped),
// each workspace's manifest giving its dependencies, devDependencies and optionalDependencies.
// Resolution: a dependency `name: range` is the entry listing the pattern `name@range`; a `file:` range of a
// workspace is written by yarn relative to the root (`file:vendor/x.tgz` for `file:../../vendor/x.tgz` in
// packages/b), so that form is tried next; a name that is a workspace's is a link to that importer; anything
// else is a leaf (the slice still changes when the reference does).
// THE YARN V1 SLICE: a package's own content is its entry's exact text; a workspace's is its folder, its
// manifest's four dependency maps as canonical JSON and the lockfile's header comment line.
// Invariants: one pass over the lockfile's lines; reads only the root and workspace package.json files
// (they are the importers); errors are ERR_LOCKGUARD_BROKEN_LOCKFILE naming the path and line.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { canonicalJson } from '../digest.js';
import { LockguardError } from '../errors.js';
import type { LoweredGraph, NodeLabel } from './pnpm-graph.js';
import { splitDescriptor } from './yarn-berry.js';

export interface ClassicEntry {
  readonly patterns: readonly string[];
  readonly text: string;
  readonly version: string;
  readonly deps: readonly (readonly [name: string, range: string])[];
}

export interface ClassicWorkspace {
  /** '.' for the root, 'packages/b'. */
  readonly folder: string;
  readonly name: string | undefined;
  /** Canonical JSON of the manifest's dependency maps. */
  readonly text: string;
  readonly deps: readonly (readonly [name: string, range: string])[];
}

function broken(path: string, line: number, reason: string): LockguardError {
  return new LockguardError('ERR_LOCKGUARD_BROKEN_LOCKFILE', `The lockfile at "${path}" is broken: ${reason} (line ${line}).`, {
    path,
    hint: 'Restore it (git checkout -- yarn.lock) or let yarn rewrite it (yarn install).',
  });
}

function unquote(value: string): string {
  if (value.charCodeAt(0) !== 34) return value;
  if (!value.includes('\\')) return value.slice(1, -1);
  try {
    return JSON.parse(value) as string;
  } catch {
    return value.slice(1, -1);
  }
}

/** `"a@^1", a@^2` -> ['a@^1', 'a@^2']. */
export function classicPatterns(key: string): string[] {
  return (key.match(/"(?:[^"\\]|\\.)*"|[^,\s][^,]*/g) ?? []).map((part) => unquote(part.trim()));
}

/** `name "range"` or `"@s/n" "range"` -> [name, range]. */
function splitPair(body: string): [string, string] | undefined {
  const quoted = body.charCodeAt(0) === 34;
  let end = 1;
  if (quoted) {
    while (end < body.length && body.charCodeAt(end) !== 34) end += body.charCodeAt(end) === 92 ? 2 : 1;
    end++;
  } else {
    end = body.indexOf(' ');
  }
  if (end <= 0 || end >= body.length) return undefined;
  return [unquote(body.slice(0, end)), unquote(body.slice(end + 1).trim())];
}

/** Read a v1 yarn.lock's text into entries (`path` names the file in errors). */
export function indexYarnClassic(text: string, path: string): ClassicEntry[] {
  const lines = text.split('\n');
  const entries: ClassicEntry[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line === '' || line.charCodeAt(0) === 35) continue;
    if (line.charCodeAt(0) === 32) throw broken(path, i + 1, 'an indented line outside any entry');
    if (!line.endsWith(':')) throw broken(path, i + 1, 'an entry key that does not end with ":"');
    let end = i + 1;
    while (end < lines.length && (lines[end] ?? '').charCodeAt(0) === 32) end++;
    const deps: [string, string][] = [];
    let version = '';
    let inDeps = false;
    for (let j = i + 1; j < end; j++) {
      const field = lines[j] ?? '';
      if (field.charCodeAt(2) !== 32) {
        inDeps = field === '  dependencies:' || field === '  optionalDependencies:';
        if (field.startsWith('  version ')) version = unquote(field.slice(10).trim());
        continue;
      }
      if (!inDeps) continue;
      const pair = splitPair(field.trim());
      if (pair === undefined) throw broken(path, j + 1, 'a dependency line without a name and a range');
      deps.push(pair);
    }
    entries.push({ patterns: classicPatterns(line.slice(0, -1)), text: lines.slice(i, end).join('\n'), version, deps });
    i = end - 1;
  }
  return entries;
}

type Manifest = Record<string, unknown>;

function readManifest(dir: string): Manifest | undefined {
  const path = join(dir, 'package.json');
  if (statSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Manifest) : undefined;
  } catch {
    return undefined;
  }
}

/** The root's `workspaces` globs (array, or `{ packages: [...] }`). */
function workspaceGlobs(manifest: Manifest | undefined): string[] {
  const field = manifest?.['workspaces'];
  const list = Array.isArray(field) ? field : field !== null && typeof field === 'object' ? (field as { packages?: unknown }).packages : undefined;
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

/** Folders (relative, POSIX) matching one workspace glob. */
function expand(root: string, glob: string): string[] {
  let current = [''];
  for (const segment of posix.normalize(glob.replace(/^\.\//, '')).replace(/\/$/, '').split('/')) {
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
    for (const [name, range] of Object.entries(map as Record<string, unknown>)) if (typeof range === 'string') deps.push([name, range]);
  }
  return { folder, name: typeof manifest['name'] === 'string' ? manifest['name'] : undefined, text: canonicalJson(maps), deps };
}

/** The root and every workspace its manifest's globs name (a folder without package.json is none). */
export function classicWorkspaces(root: string): ClassicWorkspace[] {
  const rootManifest = readManifest(root);
  const out: ClassicWorkspace[] = [workspaceOf('.', rootManifest ?? {})];
  const globs = workspaceGlobs(rootManifest);
  const excluded = new Set(globs.filter((glob) => glob.startsWith('!')).flatMap((glob) => expand(root, glob.slice(1))));
  const folders = new Set(globs.filter((glob) => !glob.startsWith('!')).flatMap((glob) => expand(root, glob)));
  for (const folder of [...folders].sort()) {
    if (excluded.has(folder)) continue;
    const manifest = readManifest(join(root, folder));
    if (manifest !== undefined) out.push(workspaceOf(folder, manifest));
  }
  return out;
}

export function lowerYarnClassic(entries: readonly ClassicEntry[], workspaces: readonly ClassicWorkspace[], header: string): LoweredGraph {
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
        found = byPattern.get(`${name}@${range.slice(0, colon)}:${relative}`) ?? byPattern.get(`${name}@${range.slice(0, colon)}:./${relative}`);
      }
      out.push(found ?? byName.get(name) ?? leaf(`${name}@${range}`));
    }
  });
  entries.forEach((entry, index) => {
    const node = workspaces.length + index;
    const out = edges[node] as number[];
    for (const [name, range] of entry.deps) out.push(byPattern.get(`${name}@${range}`) ?? byName.get(name) ?? leaf(`${name}@${range}`));
  });
  return { own, edges, label: (node) => labels[node] ?? { kind: 'leaf', ref: '' }, importers };
}
