// bun's text lockfile (bun.lock, bun 1.2+): read into workspaces and packages (bun-graph.ts lowers them).
//
// Owns: `readBunLock` (the text checked whole as bun checks it, bun-jsonc.ts; then read in the fixed layout
// bun writes, one package a line), and
// `bunIntegrity` / `bunInfo`, read from a package's text when the pre-run check asks (slices never do).
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
// Invariants: one pass over the lines, the packages block read in place (no split of the whole file, one
// scan a line for its dependency maps, strings read to the next quote on lines with no backslash); a
// package line that is not one JSON array on one line (a layout bun does not write) sends the whole file
// through a full JSONC parse, with each package's text then its canonical JSON (so one file always takes
// one path). Errors are ERR_LOCKGUARD_BROKEN_LOCKFILE naming the
// path and line, never quoting contents.

import { canonicalJson } from '../digest.js';
import { LockguardError } from '../errors.js';
import { checkBunLock } from './bun-jsonc.js';

export interface BunWorkspace {
  /** Folder relative to the root ('' for the root, as bun.lock names it). */
  readonly path: string;
  readonly name: string | undefined;
  readonly text: string;
  /** Names of its dependencies and devDependencies, then of its optionalDependencies and peerDependencies. */
  readonly deps: readonly string[];
  /** How many of `deps` bun must resolve (dependencies, devDependencies): it refuses the lockfile otherwise. */
  readonly required: number;
}

export interface BunPackage {
  readonly key: string;
  /** The tuple's first element: `name@version`, `name@workspace:path`, `name@<tarball path>`. */
  readonly ident: string;
  /** The tuple's exact text (canonical JSON when the file was read whole): `bunIntegrity`, `bunInfo` read it. */
  readonly text: string;
  /** Names of its dependencies, then of its optionalDependencies and peerDependencies. */
  readonly deps: readonly string[];
  /** How many of `deps` bun must resolve (dependencies): it refuses the lockfile otherwise. */
  readonly required: number;
}

export interface BunLock {
  readonly lockfileVersion: string;
  /** What every slice folds: the version lines, trustedDependencies, patchedDependencies. */
  readonly globalText: string;
  readonly workspaces: readonly BunWorkspace[];
  readonly packages: readonly BunPackage[];
}

function broken(path: string, reason: string, line?: number): LockguardError {
  return new LockguardError(
    'ERR_LOCKGUARD_BROKEN_LOCKFILE',
    `The lockfile at "${path}" is broken: ${reason}${line === undefined ? '' : ` (line ${line})`}.`,
    {
      path,
      hint: 'Restore it (git checkout -- bun.lock) or let bun rewrite it (bun install).',
    },
  );
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
      while (
        j < text.length &&
        (text.charCodeAt(j) === 32 ||
          text.charCodeAt(j) === 10 ||
          text.charCodeAt(j) === 13 ||
          text.charCodeAt(j) === 9)
      )
        j++;
      const next = text.charCodeAt(j);
      if (next === 125 || next === 93) {
        out += text.slice(from, i);
        from = i + 1;
      }
    }
  }
  return JSON.parse(from === 0 ? text : out + text.slice(from));
}

const isMap = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The names of `required` maps, then of `optional` ones, and how many are required. */
function depsOf(required: readonly unknown[], optional: readonly unknown[]): { deps: string[]; required: number } {
  const deps: string[] = [];
  for (const map of required) if (isMap(map)) for (const name of Object.keys(map)) deps.push(name);
  const count = deps.length;
  for (const map of optional) if (isMap(map)) for (const name of Object.keys(map)) deps.push(name);
  return { deps, required: count };
}

const INTEGRITY = /^sha\d+-/;

/** The package's integrity: the tuple's last element when it is `sha<n>-...` (either layout). */
export function bunIntegrity(pkg: BunPackage): string | undefined {
  const text = pkg.text;
  if (!text.endsWith('"]')) return undefined;
  const open = text.lastIndexOf('"', text.length - 3);
  if (open === -1) return undefined;
  let before = open - 1;
  while (text.charCodeAt(before) === 32) before--;
  if (text.charCodeAt(before) !== 44) return undefined;
  let value = text.slice(open + 1, text.length - 2);
  if (value.includes('\\')) {
    try {
      value = JSON.parse(`"${value}"`) as string;
    } catch {
      return undefined;
    }
  }
  return INTEGRITY.test(value) ? value : undefined;
}

/** The package's info object (`os`, `cpu`, dependencies...), only where it names `os` or `cpu`: the pre-run check asks. */
export function bunInfo(pkg: BunPackage): Readonly<Record<string, unknown>> | undefined {
  if (!pkg.text.includes('"os":') && !pkg.text.includes('"cpu":')) return undefined;
  try {
    return (JSON.parse(pkg.text) as unknown[]).slice(1).find(isMap);
  } catch {
    return undefined;
  }
}

/** The JSON string literal starting at `at` (a `"`): [value, index after it], or undefined. */
function stringAt(text: string, at: number): [string, number] | undefined {
  const end = stringEnd(text, at, true);
  if (end === -1) return undefined;
  const raw = text.slice(at + 1, end - 1);
  if (!raw.includes('\\')) return [raw, end];
  const value = jsonString(text.slice(at, end));
  return value === undefined ? undefined : [value, end];
}

/** The dependency maps of a package's info object, by the text before `ependencies": {` (one scan a line finds them all). */
const DEP_FIELDS = ['"d', '"optionalD', '"peerD'];
const DEP_TAIL = 'ependencies": {';

/**
 * The names of the flat `"name": "range"` objects of `dependencies`, `optionalDependencies` and
 * `peerDependencies` in a tuple's text (the first map of each); false if one is not that shape. In a text
 * with no backslash (`escaped` false) a string ends at the next quote; otherwise each is read as a JSON string.
 */
function depNames(text: string, into: string[], escaped: boolean, optional: string[]): boolean {
  let seen = 0;
  for (let at = text.indexOf(DEP_TAIL); at !== -1; at = text.indexOf(DEP_TAIL, at + DEP_TAIL.length)) {
    let field = -1;
    for (let f = 0; f < DEP_FIELDS.length; f++) {
      const head = DEP_FIELDS[f] as string;
      if (text.startsWith(head, at - head.length)) field = f;
    }
    if (field === -1 || (seen & (1 << field)) !== 0) continue;
    seen |= 1 << field;
    const names = field === 0 ? into : optional;
    let pos = at + DEP_TAIL.length;
    for (;;) {
      while (text.charCodeAt(pos) === 32) pos++;
      if (text.charCodeAt(pos) === 125) break;
      // `"name": "range"`: the range opens two characters after the name's closing quote.
      const nameEnd = stringEnd(text, pos, escaped);
      if (nameEnd === -1 || text.charCodeAt(nameEnd) !== 58 || text.charCodeAt(nameEnd + 1) !== 32) return false;
      const rangeEnd = stringEnd(text, nameEnd + 2, escaped);
      if (rangeEnd === -1) return false;
      if (escaped) {
        const name = jsonString(text.slice(pos, nameEnd));
        if (name === undefined || jsonString(text.slice(nameEnd + 2, rangeEnd)) === undefined) return false;
        names.push(name);
      } else {
        names.push(text.slice(pos + 1, nameEnd - 1));
      }
      pos = rangeEnd;
      if (text.charCodeAt(pos) === 44) pos++;
    }
  }
  return true;
}

/** The index after the JSON string starting at `at` (a `"`), or -1; with no backslash in the text it ends at the next quote. */
function stringEnd(text: string, at: number, escaped: boolean): number {
  if (text.charCodeAt(at) !== 34) return -1;
  if (!escaped) {
    const end = text.indexOf('"', at + 1);
    return end === -1 ? -1 : end + 1;
  }
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i + 1;
  }
  return -1;
}

/** A JSON string literal's value, or undefined when it is not one. */
function jsonString(literal: string): string | undefined {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}

/** Optional and peer dependency names of the line being read (reused: most packages have none). */
const scratch: string[] = [];

/** `deps` with the optional names of `scratch` after its required ones. */
function withOptional(deps: string[]): { deps: string[]; required: number } {
  const required = deps.length;
  if (scratch.length > 0) for (const name of scratch) deps.push(name);
  return { deps, required };
}

/** A package line as bun writes it (`    "key": [ ... ],`), read without a JSON parse; undefined if it is not. */
function packageLine(line: string): BunPackage | undefined {
  if (!line.startsWith('    "')) return undefined;
  const end = line.endsWith('],') ? line.length - 1 : line.endsWith(']') ? line.length : -1;
  if (end === -1) return undefined;
  const deps: string[] = [];
  scratch.length = 0;
  if (!line.includes('\\')) {
    // Most lines hold no backslash: their strings end at the next quote.
    const keyEnd = line.indexOf('"', 5);
    if (keyEnd === -1 || !line.startsWith('": ["', keyEnd)) return undefined;
    const text = line.slice(keyEnd + 3, end);
    const identEnd = text.indexOf('"', 2);
    if (identEnd === -1 || !depNames(text, deps, false, scratch)) return undefined;
    return { key: line.slice(5, keyEnd), ident: text.slice(2, identEnd), text, ...withOptional(deps) };
  }
  const key = stringAt(line, 4);
  if (key === undefined || !line.startsWith(': [', key[1])) return undefined;
  const text = line.slice(key[1] + 2, end);
  const ident = stringAt(text, 1);
  if (ident === undefined || !depNames(text, deps, true, scratch)) return undefined;
  return { key: key[0], ident: ident[0], text, ...withOptional(deps) };
}

const WORKSPACE_HEAD = /^ {4}"(?:[^"\\]|\\.)*": \{(\},?)?$/;

const WORKSPACE_DEPS = new Set(['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']);

/**
 * A workspace's block, lines `start`..`end` (its text starts at offset `from` of the file), in bun's layout:
 * `      "name": "x",` and dependency maps. Lines with no backslash are read in place (a string ends at the next
 * quote); the block's text is the file's own span of those lines.
 */
function workspaceBlock(
  text: string,
  lines: readonly string[],
  start: number,
  end: number,
  from: number,
): BunWorkspace | undefined {
  const head = lines[start] ?? '';
  const path = stringAt(head, 4);
  if (path === undefined) return undefined;
  let name: string | undefined;
  let group: string | undefined;
  const deps: string[] = [];
  const optional: string[] = [];
  // The names of the group being read: dependencies and devDependencies are required.
  let names = deps;
  let length = head.length;
  for (let i = start + 1; i <= end; i++) length += 1 + (lines[i]?.length ?? 0);
  for (let i = start + 1; i < end; i++) {
    const line = lines[i] ?? '';
    if (line.startsWith('        "') && group !== undefined) {
      // A dependency: `        "<name>": "<range>",`.
      if (!line.includes('\\')) {
        const nameEnd = line.indexOf('"', 9);
        if (nameEnd === -1 || !line.startsWith('": "', nameEnd) || line.indexOf('"', nameEnd + 4) === -1)
          return undefined;
        names.push(line.slice(9, nameEnd));
        continue;
      }
      const dep = stringAt(line, 8);
      const range = dep === undefined ? undefined : stringAt(line, dep[1] + 2);
      if (dep === undefined || range === undefined) return undefined;
      names.push(dep[0]);
    } else if (line.startsWith('      "')) {
      const field = stringAt(line, 6);
      if (field === undefined) return undefined;
      if (line.endsWith('{')) {
        group = WORKSPACE_DEPS.has(field[0]) ? field[0] : undefined;
        if (group === undefined) return undefined;
        names = group === 'dependencies' || group === 'devDependencies' ? deps : optional;
      } else {
        group = undefined;
        if (line.endsWith('[')) return undefined;
        if (field[0] === 'name') name = stringAt(line, field[1] + 2)?.[0];
      }
    } else if (line !== '      },' && line !== '      }') {
      return undefined;
    }
  }
  const required = deps.length;
  for (const dep of optional) deps.push(dep);
  return { path: path[0], name, text: text.slice(from, from + length), deps, required };
}

const WORKSPACES_LINE = '\n  "workspaces": {\n';
const PACKAGES_LINE = '\n  "packages": {\n';

/** Read bun.lock's text (`path` only names the file in errors): checked whole as bun checks it, then read. */
export function readBunLock(source: string, path: string): BunLock {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const checked = checkBunLock(text, path);
  const whole = (): BunLock => readWhole(checked.json(), path, checked.packageCount, checked.workspaceCount);
  if (checked.comments) return whole();
  const packagesAt = text.indexOf(PACKAGES_LINE);
  const workspacesAt = text.indexOf(WORKSPACES_LINE);
  // The blocks read in place are the top-level ones (the check says where those start).
  if (
    packagesAt === -1 ||
    workspacesAt === -1 ||
    workspacesAt > packagesAt ||
    packagesAt + 3 !== checked.packagesAt ||
    workspacesAt + 3 !== checked.workspacesAt
  )
    return whole();
  // Everything before the packages block is a few lines a workspace: read as lines.
  const lines = text.slice(0, packagesAt + 1).split('\n');
  const wsAt = lines.indexOf('  "workspaces": {');
  const header: string[] = [];
  const workspaces: BunWorkspace[] = [];
  // Workspaces: `    "<path>": {` ... `    },`
  let i = 0;
  // The offset of line i in the file, kept as the lines are walked.
  let offset = 0;
  for (; i < wsAt; i++) {
    header.push(lines[i] ?? '');
    offset += (lines[i]?.length ?? 0) + 1;
  }
  offset += (lines[i]?.length ?? 0) + 1;
  for (i = wsAt + 1; i < lines.length && lines[i] !== '  },'; i++) {
    const head = WORKSPACE_HEAD.exec(lines[i] ?? '');
    if (head === null) return whole();
    const start = i;
    const from = offset;
    if (head[1] === undefined) {
      while (i < lines.length && lines[i] !== '    },' && lines[i] !== '    }') offset += (lines[i++]?.length ?? 0) + 1;
    }
    offset += (lines[i]?.length ?? 0) + 1;
    const workspace = workspaceBlock(text, lines, start, i, from);
    if (workspace === undefined) return whole();
    workspaces.push(workspace);
  }
  for (i++; i < lines.length; i++) header.push(lines[i] ?? '');
  // Packages: one a line, read in place (no split of the whole file).
  const packages: BunPackage[] = [];
  let at = packagesAt + PACKAGES_LINE.length;
  for (;;) {
    if (at >= text.length) return whole();
    let eol = text.indexOf('\n', at);
    if (eol === -1) eol = text.length;
    const line = text.slice(at, eol);
    at = eol + 1;
    if (line === '') continue;
    if (line === '  }' || line === '  },') break;
    const pkg = packageLine(line);
    if (pkg === undefined) return whole();
    packages.push(pkg);
  }
  header.push(text.slice(at));
  return finish(header.join('\n'), workspaces, packages, path);
}

function packageOf(key: string, tuple: unknown, text: string): BunPackage {
  const items = Array.isArray(tuple) ? (tuple as unknown[]) : [];
  const ident = typeof items[0] === 'string' ? items[0] : '';
  const info = items.slice(1).find(isMap);
  return {
    key,
    ident,
    text,
    ...(info === undefined
      ? { deps: [], required: 0 }
      : depsOf([info['dependencies']], [info['optionalDependencies'], info['peerDependencies']])),
  };
}

function workspaceOf(path: string, value: unknown, text: string): BunWorkspace {
  const entry = isMap(value) ? value : {};
  const name = typeof entry['name'] === 'string' ? entry['name'] : undefined;
  return {
    path,
    name,
    text,
    ...depsOf(
      [entry['dependencies'], entry['devDependencies']],
      [entry['optionalDependencies'], entry['peerDependencies']],
    ),
  };
}

/** The fallback: the whole file (checked, its comments and trailing commas cut) through JSON.parse; texts become canonical JSON. */
function readWhole(json: string, path: string, packageCount: number, workspaceCount: number): BunLock {
  const value: unknown = JSON.parse(json);
  if (!isMap(value)) throw broken(path, 'it is not a JSON object');
  // JSON.parse keeps the last of a key met twice; bun keeps the first: the check counted what was written.
  if (
    Object.keys(isMap(value['packages']) ? value['packages'] : {}).length !== packageCount ||
    Object.keys(isMap(value['workspaces']) ? value['workspaces'] : {}).length !== workspaceCount
  ) {
    throw broken(path, 'a key appears twice in one object (bun reads the first, and warns)');
  }
  const workspaces = Object.entries(isMap(value['workspaces']) ? value['workspaces'] : {}).map(([wsPath, entry]) =>
    workspaceOf(wsPath, entry, canonicalJson({ [wsPath]: entry })),
  );
  const packages = Object.entries(isMap(value['packages']) ? value['packages'] : {}).map(([key, tuple]) =>
    packageOf(key, tuple, canonicalJson(tuple)),
  );
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
  const globalText = canonicalJson({
    lockfileVersion: version,
    configVersion: top['configVersion'] ?? null,
    trustedDependencies: top['trustedDependencies'] ?? null,
    patchedDependencies: top['patchedDependencies'] ?? null,
  });
  return { lockfileVersion: String(version), globalText, workspaces, packages };
}
