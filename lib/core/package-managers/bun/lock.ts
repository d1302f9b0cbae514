// bun's text lockfile (bun.lock, bun 1.2+): read into workspaces and packages (graph.ts builds the graph from them).
//
// Owns: `readBunLock` (the text checked whole as bun checks it, jsonc.ts; then read in the fixed layout
// bun writes: the workspaces block a workspace at a time, the packages block one package a line, line.ts;
// else read whole), and `bunIntegrity` / `bunInfo`, read from a package's text when the pre-run check asks
// (slices never do).
// Layout: top-level `lockfileVersion`, `configVersion`, `workspaces` (folder -> {name, version,
// dependencies, devDependencies, optionalDependencies, peerDependencies}), maybe `trustedDependencies`,
// `patchedDependencies`, `overrides`, `catalog(s)`, then `packages`: key -> tuple. A key is the package's
// install path by names (`dep`, `x/dep` under x, `b/dep` under workspace b); the tuple is
// `[ident, registry?, info?, integrity?]` (`["a@workspace:packages/a"]` for a workspace).
// Edges (resolved in graph.ts): dependencies, optionalDependencies and peerDependencies (bun installs peers) of every entry, and
// devDependencies of workspaces; a name no key resolves is no edge (not installed, as in npm's graph).
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

import { canonicalJson } from '../../digest.js';
import { LockguardError } from '../../errors.js';
import { type BunLockCheck, checkBunLock } from './jsonc.js';
import { packageLine, stringAt } from './line.js';
import type { BunLock, BunPackage, BunWorkspace } from './lock-types.js';

export type { BunLock, BunPackage } from './lock-types.js';

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
function parseJsonc(text: string): unknown {
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
    // bun writes arrays of more than one item with a trailing comma (`"os": [ "linux", "android", ]`, turbo's).
    return (parseJsonc(pkg.text) as unknown[]).slice(1).find(isMap);
  } catch {
    return undefined;
  }
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
  return (
    (checked.comments ? undefined : readInPlace(text, checked, path)) ??
    readWhole(checked.json(), path, checked.packageCount, checked.workspaceCount)
  );
}

/** The file in the layout bun writes, its blocks read in place; undefined when it is not in that layout. */
function readInPlace(text: string, checked: BunLockCheck, path: string): BunLock | undefined {
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
    return undefined;
  // Everything before the packages block is a few lines a workspace: read as lines.
  const header: string[] = [];
  const workspaces = workspacesBlock(text, text.slice(0, packagesAt + 1).split('\n'), header);
  if (workspaces === undefined) return undefined;
  // Packages: one a line, read in place (no split of the whole file).
  const packages: BunPackage[] = [];
  let at = packagesAt + PACKAGES_LINE.length;
  for (;;) {
    if (at >= text.length) return undefined;
    let eol = text.indexOf('\n', at);
    if (eol === -1) eol = text.length;
    const line = text.slice(at, eol);
    at = eol + 1;
    if (line === '') continue;
    if (line === '  }' || line === '  },') break;
    const pkg = packageLine(line);
    if (pkg === undefined) return undefined;
    packages.push(pkg);
  }
  header.push(text.slice(at));
  return finish(header.join('\n'), workspaces, packages, path);
}

/**
 * The workspaces block among `lines` (the file up to the packages block), `    "<path>": {` ... `    },`
 * each; the lines around it go to `header`. Undefined when a workspace is not in bun's layout.
 */
function workspacesBlock(text: string, lines: readonly string[], header: string[]): BunWorkspace[] | undefined {
  const wsAt = lines.indexOf('  "workspaces": {');
  const workspaces: BunWorkspace[] = [];
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
    if (head === null) return undefined;
    const start = i;
    const from = offset;
    if (head[1] === undefined) {
      while (i < lines.length && lines[i] !== '    },' && lines[i] !== '    }') offset += (lines[i++]?.length ?? 0) + 1;
    }
    offset += (lines[i]?.length ?? 0) + 1;
    const workspace = workspaceBlock(text, lines, start, i, from);
    if (workspace === undefined) return undefined;
    workspaces.push(workspace);
  }
  for (i++; i < lines.length; i++) header.push(lines[i] ?? '');
  return workspaces;
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

/**
 * The lockfile versions bun 1.4.5 reads in this layout, measured (`bun install --frozen-lockfile`): a number
 * whose value is 1, 2 or 3 (`1.0`, `1e0` too). It refuses -1, 1.5 and 1e999 ("Invalid lockfile version"),
 * 4 and 99 ("Unsupported lockfile version ... created by a newer version of Bun"), and 0 in this layout
 * ("Missing dependencies object": version 0 is another layout, which lockguard does not read).
 */
function checkVersion(path: string, version: number | string): void {
  const value = typeof version === 'number' ? version : Number.NaN;
  if (!Number.isInteger(value) || value < 0) throw broken(path, 'its "lockfileVersion" is not a version bun reads');
  if (value === 0 || value > MAX_VERSION)
    throw broken(
      path,
      value === 0
        ? 'its "lockfileVersion" 0 needs the layout of bun before 1.2 (let bun 1.2 or later rewrite it: bun install)'
        : `its "lockfileVersion" is newer than ${MAX_VERSION}, the newest bun 1.4.5 reads (update bun and lockguard)`,
    );
}

/** The newest bun.lock version bun 1.4.5 reads ("supports lockfile versions up to 3"). */
const MAX_VERSION = 3;

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
  checkVersion(path, version);
  const globalText = canonicalJson({
    lockfileVersion: version,
    configVersion: top['configVersion'] ?? null,
    trustedDependencies: top['trustedDependencies'] ?? null,
    patchedDependencies: top['patchedDependencies'] ?? null,
  });
  return { lockfileVersion: String(version), globalText, workspaces, packages };
}
