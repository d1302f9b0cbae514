// bun's text lockfile (bun.lock, bun 1.2+): read into workspaces and packages (bun-graph.ts lowers them).
//
// Owns: `readBunLock` (JSONC with trailing commas, in the fixed layout bun writes: one package a line).
// Layout: top-level `lockfileVersion`, `configVersion`, `workspaces` (folder -> {name, version,
// dependencies, devDependencies, optionalDependencies, peerDependencies}), maybe `trustedDependencies`,
// `patchedDependencies`, `overrides`, `catalog(s)`, then `packages`: key -> tuple. A key is the package's
// install path by names (`dep`, `x/dep` under x, `b/dep` under workspace b); the tuple is
// `[ident, registry?, info?, integrity?]` (`["a@workspace:packages/a"]` for a workspace).
// Edges (resolved in bun-graph.ts): dependencies, optionalDependencies and peerDependencies (bun installs peers) of every entry, and
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

/** The JSON string literal starting at `at` (a `"`): [value, index after it], or undefined. */
function stringAt(text: string, at: number): [string, number] | undefined {
  if (text.charCodeAt(at) !== 34) return undefined;
  let end = at + 1;
  let escaped = false;
  for (; end < text.length; end++) {
    const c = text.charCodeAt(end);
    if (c === 92) {
      escaped = true;
      end++;
    } else if (c === 34) break;
  }
  if (end >= text.length) return undefined;
  const raw = text.slice(at + 1, end);
  if (!escaped) return [raw, end + 1];
  try {
    return [JSON.parse(text.slice(at, end + 1)) as string, end + 1];
  } catch {
    return undefined;
  }
}

const DEP_HEADS = ['"dependencies": {', '"optionalDependencies": {', '"peerDependencies": {'];

/** The `"name": "range"` pairs of the flat object after `head` (`"<field>": {`) in a tuple's text. */
function flatPairs(text: string, head: string, into: BunDep[]): boolean {
  let at = text.indexOf(head);
  if (at === -1) return true;
  at += head.length;
  for (;;) {
    while (text.charCodeAt(at) === 32) at++;
    if (text.charCodeAt(at) === 125) return true;
    const name = stringAt(text, at);
    if (name === undefined || text.charCodeAt(name[1]) !== 58 || text.charCodeAt(name[1] + 1) !== 32) return false;
    const range = stringAt(text, name[1] + 2);
    if (range === undefined) return false;
    into.push({ name: name[0], range: range[0] });
    at = range[1];
    if (text.charCodeAt(at) === 44) at++;
  }
}

/** A package line as bun writes it (`    "key": [ ... ],`), read without a JSON parse; undefined if it is not. */
function packageLine(line: string): BunPackage | undefined {
  if (!line.startsWith('    "')) return undefined;
  const key = stringAt(line, 4);
  if (key === undefined || !line.startsWith(': [', key[1])) return undefined;
  const end = line.endsWith('],') ? line.length - 1 : line.endsWith(']') ? line.length : -1;
  if (end === -1) return undefined;
  const text = line.slice(key[1] + 2, end);
  const ident = stringAt(text, 1);
  if (ident === undefined) return undefined;
  const deps: BunDep[] = [];
  for (const head of DEP_HEADS) if (!flatPairs(text, head, deps)) return undefined;
  const tail = text.lastIndexOf(', "sha');
  const integrity = tail === -1 ? undefined : stringAt(text, tail + 2)?.[0];
  // os/cpu only matter to the pre-run check, and only some packages have them: parsed where present.
  let info: Record<string, unknown> | undefined;
  if (text.includes('"os": ') || text.includes('"cpu": ')) {
    try {
      info = (JSON.parse(text) as unknown[]).slice(1).find(isMap);
    } catch {
      return undefined;
    }
  }
  return { key: key[0], ident: ident[0], text, info, integrity: integrity !== undefined && /^sha\d+-/.test(integrity) ? integrity : undefined, deps };
}
const WORKSPACE_HEAD = /^ {4}"(?:[^"\\]|\\.)*": \{(\},?)?$/;

const WORKSPACE_DEPS = new Set(['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']);

/** A workspace's block, lines `start`..`end`, in bun's layout: `      "name": "x",` and dependency maps. */
function workspaceBlock(lines: readonly string[], start: number, end: number): BunWorkspace | undefined {
  const head = lines[start] ?? '';
  const path = stringAt(head, 4);
  if (path === undefined) return undefined;
  let name: string | undefined;
  let group: string | undefined;
  const deps: BunDep[] = [];
  for (let i = start + 1; i < end; i++) {
    const line = lines[i] ?? '';
    if (line.startsWith('      "')) {
      const field = stringAt(line, 6);
      if (field === undefined) return undefined;
      if (line.endsWith('{')) {
        group = WORKSPACE_DEPS.has(field[0]) ? field[0] : undefined;
        if (group === undefined) return undefined;
      } else {
        group = undefined;
        if (line.endsWith('[')) return undefined;
        if (field[0] === 'name') name = stringAt(line, field[1] + 2)?.[0];
      }
    } else if (line.startsWith('        "') && group !== undefined) {
      const dep = stringAt(line, 8);
      const range = dep === undefined ? undefined : stringAt(line, dep[1] + 2);
      if (dep === undefined || range === undefined) return undefined;
      deps.push({ name: dep[0], range: range[0] });
    } else if (line !== '      },' && line !== '      }') {
      return undefined;
    }
  }
  return { path: path[0], name, text: lines.slice(start, end + 1).join('\n'), deps };
}

/** Read bun.lock's text (`path` only names the file in errors). */
export function readBunLock(text: string, path: string): BunLock {
  const lines = text.split('\n');
  let at = lines.indexOf('  "packages": {');
  const wsAt = lines.indexOf('  "workspaces": {');
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
    if (head[1] === undefined) while (i < at && lines[i] !== '    },' && lines[i] !== '    }') i++;
    const workspace = workspaceBlock(lines, start, i);
    if (workspace === undefined) return readWhole(text, path);
    workspaces.push(workspace);
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
    const pkg = packageLine(line);
    if (pkg === undefined) return readWhole(text, path);
    packages.push(pkg);
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
