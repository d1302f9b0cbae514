// bun's text lockfile (bun.lock, bun 1.2+): read into workspaces and packages, and lowered to the slice graph.
//
// Owns: `readBunLock` (JSONC with trailing commas, in the fixed layout bun writes: one package a line) and
// `lowerBun`. Layout: top-level `lockfileVersion`, `configVersion`, `workspaces` (folder -> {name, version,
// dependencies, devDependencies, optionalDependencies, peerDependencies}), maybe `trustedDependencies`,
// `patchedDependencies`, `overrides`, `catalog(s)`, then `packages`: key -> tuple. A key is the package's
// install path by names (`dep`, `x/dep` under x, `b/dep` under workspace b); the tuple is
// `[ident, registry?, info?, integrity?]` (`["a@workspace:packages/a"]` for a workspace).
// Resolving as bun (and node) does: a dependency `d` of the package at `x/y` is `x/y/d`, else `x/d`, else
// `d`; of workspace `b`: `b/d`, else `d`; of the root: `d`. A workspace ident is a link to its importer.
// Edges: dependencies, optionalDependencies and peerDependencies (bun installs peers) of every entry, and
// devDependencies of workspaces; a name no key resolves is no edge (not installed, like npm's lowering).
// THE BUN SLICE: a workspace's own content is its block's exact text plus the lockfile's version lines,
// `trustedDependencies` and `patchedDependencies` (they change what an install builds); a package's is
// its tuple's exact text, without the key: a package bun hoists elsewhere (its key goes from `dep` to
// `c/dep` when another workspace takes another version) is the same package, and the slices of its
// dependents stay. Not folded: `overrides` and catalogs (their effect shows in the tuples they resolve).
// Invariants: one pass over the lines; a package line that is not one JSON array on one line (a layout bun
// does not write) sends the whole file through a full JSONC parse, with each package's text then its
// canonical JSON (so one file always takes one path). Errors are ERR_LOCKGUARD_BROKEN_LOCKFILE naming the
// path and line, never quoting contents.

import { canonicalJson } from '../digest.js';
import { LockguardError } from '../errors.js';
import type { LoweredGraph, NodeLabel } from './pnpm-graph.js';

export interface BunDep {
  readonly name: string;
  readonly range: string;
}

export interface BunWorkspace {
  /** Folder relative to the root ('' for the root, as bun.lock names it). */
  readonly path: string;
  readonly name: string | undefined;
  readonly text: string;
  readonly deps: readonly BunDep[];
}

export interface BunPackage {
  readonly key: string;
  /** The tuple's first element: `name@version`, `name@workspace:path`, `name@<tarball path>`. */
  readonly ident: string;
  /** The tuple's exact text (canonical JSON when the file was read whole). */
  readonly text: string;
  readonly info: Readonly<Record<string, unknown>> | undefined;
  readonly integrity: string | undefined;
  readonly deps: readonly BunDep[];
}

export interface BunLock {
  readonly lockfileVersion: string;
  /** What every slice folds: the version lines, trustedDependencies, patchedDependencies. */
  readonly globalText: string;
  readonly workspaces: readonly BunWorkspace[];
  readonly packages: readonly BunPackage[];
}

function broken(path: string, reason: string, line?: number): LockguardError {
  return new LockguardError('ERR_LOCKGUARD_BROKEN_LOCKFILE', `The lockfile at "${path}" is broken: ${reason}${line === undefined ? '' : ` (line ${line})`}.`, {
    path,
    hint: 'Restore it (git checkout -- bun.lock) or let bun rewrite it (bun install).',
  });
}

/** JSONC as bun writes it (trailing commas, no comments) -> a value; strings are skipped, never edited. */
export function parseJsonc(text: string): unknown {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // Skip the string (escapes included).
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92) i++;
    } else if (c === 44) {
      let j = i + 1;
      while (j < text.length && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 10 || text.charCodeAt(j) === 13 || text.charCodeAt(j) === 9)) j++;
      const next = text.charCodeAt(j);
      if (next === 125 || next === 93) {
        out += text.slice(from, i);
        from = i + 1;
      }
    }
  }
  return JSON.parse(from === 0 ? text : out + text.slice(from));
}

const isMap = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function depsOf(maps: readonly unknown[]): BunDep[] {
  const deps: BunDep[] = [];
  for (const map of maps) {
    if (!isMap(map)) continue;
    for (const [name, range] of Object.entries(map)) deps.push({ name, range: typeof range === 'string' ? range : '' });
  }
  return deps;
}

function packageOf(key: string, tuple: unknown, text: string): BunPackage {
  const items = Array.isArray(tuple) ? (tuple as unknown[]) : [];
  const ident = typeof items[0] === 'string' ? items[0] : '';
  const info = items.slice(1).find(isMap);
  const last = items.length > 1 ? items[items.length - 1] : undefined;
  const integrity = typeof last === 'string' && /^sha\d+-/.test(last) ? last : undefined;
  return { key, ident, text, info, integrity, deps: info === undefined ? [] : depsOf([info['dependencies'], info['optionalDependencies'], info['peerDependencies']]) };
}

function workspaceOf(path: string, value: unknown, text: string): BunWorkspace {
  const entry = isMap(value) ? value : {};
  const name = typeof entry['name'] === 'string' ? entry['name'] : undefined;
  return { path, name, text, deps: depsOf([entry['dependencies'], entry['devDependencies'], entry['optionalDependencies'], entry['peerDependencies']]) };
}

const PACKAGE_LINE = /^ {4}("(?:[^"\\]|\\.)*"): (\[.*\]),?$/;
const WORKSPACE_HEAD = /^ {4}("(?:[^"\\]|\\.)*"): \{(\},?)?$/;

/** Read bun.lock's text (`path` only names the file in errors). */
export function readBunLock(text: string, path: string): BunLock {
  const lines = text.split('\n');
  let at = lines.findIndex((line) => line === '  "packages": {');
  const wsAt = lines.findIndex((line) => line === '  "workspaces": {');
  if (at === -1 || wsAt === -1 || wsAt > at) return readWhole(text, path);
  const header: string[] = [];
  const workspaces: BunWorkspace[] = [];
  // Workspaces: `    "<path>": {` ... `    },`
  let i = 0;
  for (; i < wsAt; i++) header.push(lines[i] ?? '');
  for (i = wsAt + 1; i < at && lines[i] !== '  },'; i++) {
    const head = WORKSPACE_HEAD.exec(lines[i] ?? '');
    if (head === null) return readWhole(text, path);
    const start = i;
    if (head[2] === undefined) while (i < at && lines[i] !== '    },' && lines[i] !== '    }') i++;
    const block = lines.slice(start, i + 1).join('\n');
    let value: unknown;
    try {
      value = parseJsonc(`{${block.replace(/,$/, '')}}`);
    } catch {
      return readWhole(text, path);
    }
    const wsPath = JSON.parse(head[1] ?? '""') as string;
    workspaces.push(workspaceOf(wsPath, (value as Record<string, unknown>)[wsPath], block));
  }
  for (i++; i < at; i++) header.push(lines[i] ?? '');
  const packages: BunPackage[] = [];
  for (at++; at < lines.length; at++) {
    const line = lines[at] ?? '';
    if (line === '') continue;
    if (line === '  }' || line === '  },') {
      at++;
      break;
    }
    const match = PACKAGE_LINE.exec(line);
    if (match === null) return readWhole(text, path);
    let tuple: unknown;
    try {
      tuple = JSON.parse(match[2] ?? '');
    } catch {
      return readWhole(text, path);
    }
    packages.push(packageOf(JSON.parse(match[1] ?? '""') as string, tuple, match[2] ?? ''));
  }
  for (; at < lines.length; at++) header.push(lines[at] ?? '');
  return finish(header.join('\n'), workspaces, packages, path);
}

/** The fallback: the whole file through the JSONC parse; texts become canonical JSON. */
function readWhole(text: string, path: string): BunLock {
  let value: unknown;
  try {
    value = parseJsonc(text);
  } catch (error) {
    // Node's JSON errors quote the source after a comma: keep only what comes before.
    throw broken(path, `it is not valid JSON (${error instanceof Error ? (error.message.split(/[,"\n]| in JSON/)[0] ?? '').trim().slice(0, 60) : 'parse error'})`);
  }
  if (!isMap(value)) throw broken(path, 'it is not a JSON object');
  const workspaces = Object.entries(isMap(value['workspaces']) ? value['workspaces'] : {}).map(([wsPath, entry]) => workspaceOf(wsPath, entry, canonicalJson({ [wsPath]: entry })));
  const packages = Object.entries(isMap(value['packages']) ? value['packages'] : {}).map(([key, tuple]) => packageOf(key, tuple, canonicalJson(tuple)));
  const rest: Record<string, unknown> = { ...value };
  delete rest['workspaces'];
  delete rest['packages'];
  return finish(canonicalJson(rest), workspaces, packages, path);
}

function finish(headerText: string, workspaces: BunWorkspace[], packages: BunPackage[], path: string): BunLock {
  let header: unknown;
  try {
    header = parseJsonc(headerText);
  } catch {
    throw broken(path, 'its top-level fields cannot be read');
  }
  const top = isMap(header) ? header : {};
  const version = top['lockfileVersion'];
  if (typeof version !== 'number' && typeof version !== 'string') throw broken(path, 'it has no "lockfileVersion"');
  const globalText = canonicalJson({ lockfileVersion: version, configVersion: top['configVersion'] ?? null, trustedDependencies: top['trustedDependencies'] ?? null, patchedDependencies: top['patchedDependencies'] ?? null });
  return { lockfileVersion: String(version), globalText, workspaces, packages };
}

/** `name@version` -> [name, version]; scoped names keep their `@`. */
export function splitIdent(ident: string): [string, string] {
  const at = ident.indexOf('@', 1);
  return at === -1 ? [ident, ''] : [ident.slice(0, at), ident.slice(at + 1)];
}

/** `@s/c/dep` -> ['@s/c', 'dep'] (names, scoped ones whole). */
function namesOf(key: string): string[] {
  const parts = key.split('/');
  const names: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? '';
    names.push(part.startsWith('@') && i + 1 < parts.length ? `${part}/${parts[++i] ?? ''}` : part);
  }
  return names;
}

export function lowerBun(lock: BunLock): LoweredGraph {
  const own: string[] = [];
  const edges: number[][] = [];
  const labels: NodeLabel[] = [];
  const importers = new Map<string, number>();
  const importerByFolder = new Map<string, number>();
  for (const workspace of lock.workspaces) {
    const id = workspace.path === '' ? '.' : workspace.path;
    importers.set(id, own.length);
    importerByFolder.set(workspace.path, own.length);
    own.push(`bun-workspace\n${workspace.text}\n${lock.globalText}`);
    edges.push([]);
    labels.push({ kind: 'importer', id });
  }
  const byKey = new Map<string, number>();
  for (const pkg of lock.packages) {
    const workspace = /@workspace:(.*)$/.exec(pkg.ident);
    const linked = workspace === null ? undefined : importerByFolder.get(workspace[1] === '.' ? '' : (workspace[1] ?? ''));
    if (linked !== undefined) {
      byKey.set(pkg.key, linked);
      continue;
    }
    byKey.set(pkg.key, own.length);
    own.push(`bun\n${pkg.text}`);
    edges.push([]);
    const [name, version] = splitIdent(pkg.ident);
    labels.push({ kind: 'package', name, version });
  }
  const resolve = (prefix: readonly string[], name: string): number | undefined => {
    for (let cut = prefix.length; cut >= 0; cut--) {
      const found = byKey.get(cut === 0 ? name : `${prefix.slice(0, cut).join('/')}/${name}`);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  for (const workspace of lock.workspaces) {
    const out = edges[importerByFolder.get(workspace.path) as number] as number[];
    const prefix = workspace.path === '' || workspace.name === undefined ? [] : [workspace.name];
    for (const dep of workspace.deps) {
      const found = resolve(prefix, dep.name);
      if (found !== undefined) out.push(found);
    }
  }
  for (const pkg of lock.packages) {
    const node = byKey.get(pkg.key) as number;
    if (labels[node]?.kind !== 'package') continue;
    const out = edges[node] as number[];
    const prefix = namesOf(pkg.key);
    for (const dep of pkg.deps) {
      const found = resolve(prefix, dep.name);
      if (found !== undefined && found !== node) out.push(found);
    }
  }
  return { own, edges, label: (node) => labels[node] ?? { kind: 'leaf', ref: '' }, importers };
}
