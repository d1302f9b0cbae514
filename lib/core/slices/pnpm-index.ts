// A text-level index over a pnpm v9 lockfile: importers, packages, snapshots and catalogs, without a YAML
// parse into objects.
//
// Owns: reading the entries out of the lines pnpm-yaml/ reads (which checks the YAML as pnpm would, and
// refuses what it cannot read faithfully), checking each section has the shape pnpm writes (mappings where
// pnpm writes mappings, a scalar reference per snapshot dependency, specifier and version per importer
// dependency), and picking the main document of pnpm 12's two-document form (an env document, `---`, the
// main one: the env document's importers are pnpm's own binaries, not projects, so it is checked and skipped).
// Invariants: every entry keeps its exact text (the slice digest hashes it), after the decoding pnpm does (a
// BOM dropped, CRLF as LF), so two files pnpm reads alike give the same texts; a reference is kept as written
// (`link:`, alias `name@version`, peer suffixes), resolution happens in pnpm-graph.ts; a failure is
// ERR_LOCKGUARD_BROKEN_LOCKFILE or _UNSUPPORTED_LOCKFILE naming the path, line and column, never echoing
// contents. Must never: parse the whole file into objects (0.9 s for a 6.9 MB file), or read anything but
// the bytes given.

import { brokenLockfile, unsupportedLockfile } from '../lockfile-errors.js';
import { decodePnpmLockfile, flowEnd, plainTypeAt, readYamlLines, unquote, yamlDocuments, type YamlLine } from './pnpm-yaml/index.js';

/** One dependency as an entry lists it: `name: ref` (snapshots) or `name: {specifier, version}` (importers). */
export interface PnpmDep {
  readonly name: string;
  readonly ref: string;
  readonly specifier?: string;
}

export interface PnpmEntry {
  readonly key: string;
  /** The entry's exact lines (header included), joined by "\n". */
  readonly text: string;
  readonly deps: readonly PnpmDep[];
}

export interface PnpmLockIndex {
  readonly lockfileVersion: string;
  /** The main document's `settings` block text ('' when absent): it changes how every tree is laid out. */
  readonly settingsText: string;
  readonly importers: ReadonlyMap<string, PnpmEntry>;
  readonly packages: ReadonlyMap<string, string>;
  readonly snapshots: ReadonlyMap<string, PnpmEntry>;
  /** `<catalog>\0<name>` -> the entry's text. */
  readonly catalogs: ReadonlyMap<string, string>;
  /** True when an env document (pnpm 12 `packageManagerDependencies`) preceded the main one. */
  readonly hadEnvDocument: boolean;
}

interface OpenEntry {
  readonly key: string;
  readonly start: number;
  readonly deps: PnpmDep[];
  /** Inside a dependency map that is followed (dependencies, optionalDependencies; devDependencies of importers). */
  group: boolean;
  dep: { name: string; specifier?: string; ref?: string } | undefined;
}

// The top-level sections the index reads, as numbers (compared on every line).
const OTHER = 0;
const IMPORTERS = 1;
const PACKAGES = 2;
const SNAPSHOTS = 3;
const CATALOGS = 4;
const SETTINGS = 5;
const SECTION_NAMES = ['', 'importers', 'packages', 'snapshots', 'catalogs', 'settings'] as const;
const ENTRY_OF = SECTION_NAMES.map((name) => `an entry of "${name}"`);

const NON_STRING = 'that YAML reads as a number, boolean, null or date (pnpm quotes those)';

/** Index a pnpm lockfile's bytes. `path` (absolute) only names the file in errors. One pass over the lines. */
export function indexPnpmLockfile(bytes: Uint8Array, path: string): PnpmLockIndex {
  const text = decodePnpmLockfile(bytes, path);
  const docs = yamlDocuments(text);
  if (docs.length > 2) throw brokenLockfile(path, `expected one YAML document, or an env document and the main one, found ${docs.length}`, { line: docs[2]?.line ?? 1, column: 1 });
  const main = docs[docs.length - 1];
  if (main === undefined) throw brokenLockfile(path, 'it is empty');
  // The env document is no project's, but pnpm 12 reads it: it must be sound YAML too.
  if (docs.length === 2 && docs[0] !== undefined) readYamlLines(text, docs[0], path, () => undefined);

  const importers = new Map<string, PnpmEntry>();
  const packages = new Map<string, string>();
  const snapshots = new Map<string, PnpmEntry>();
  const catalogs = new Map<string, string>();
  let lockfileVersion = '';
  let settingsStart = -1;
  let settingsEnd = -1;
  let section = OTHER;
  const seen = new Set<number>();
  /** A line whose value must be a mapping, written "key:" with nothing under it yet (YAML reads null there): its depth, line and column. */
  let awaitingDepth = -1;
  let awaitingLine = 0;
  let awaitingColumn = 0;
  let entry: OpenEntry | undefined;
  let catalog = '';
  let catalogEntry: { key: string; start: number } | undefined;

  const shape = (line: YamlLine, reason: string): never => {
    throw brokenLockfile(path, reason, { line: line.line, column: line.keyAt - line.start + 1 });
  };
  /** The key, refused when YAML reads it as another type than a string (pnpm would key the entry by its String()). */
  const stringKey = (line: YamlLine, what: string): string => {
    if (!line.keyIsString) shape(line, `${what} ${NON_STRING}`);
    return line.key as string;
  };
  const needsContent = (line: YamlLine): void => {
    if (line.kind !== 'none') return;
    awaitingDepth = line.depth;
    awaitingLine = line.line;
    awaitingColumn = line.keyAt - line.start + 1;
  };
  const noValue = (): never => {
    throw brokenLockfile(path, 'a mapping has no value (pnpm writes {} for an empty one)', { line: awaitingLine, column: awaitingColumn });
  };
  /** A block mapping follows (kind none), or `{}`; anything else where pnpm writes a mapping is refused. */
  const mapping = (line: YamlLine, what: string): boolean => {
    if (line.item || line.key === undefined) return shape(line, `expected ${what} as a mapping, found a sequence entry`);
    if (line.kind === 'none') return true;
    if (line.kind === 'flow') {
      // `{}` as pnpm writes it, or with blanks inside.
      if (line.valueEnd - line.valueAt === 2 || /^\{\s*\}$/.test(text.slice(line.valueAt, line.valueEnd))) return false;
      throw unsupportedLockfile(path, `a flow mapping for ${what} (pnpm writes it as a block)`, { line: line.line, column: line.valueAt - line.start + 1 });
    }
    return shape(line, `expected ${what} as a mapping, found a scalar`);
  };
  const scalar = (line: YamlLine, what: string): string => {
    const kind = line.kind;
    if (kind === 'plain') {
      // plainTypeAt's first test, inlined for the common value: it starts with a letter but t, f, n.
      const code = text.charCodeAt(line.valueAt);
      const word = ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)) && code !== 0x74 && code !== 0x54 && code !== 0x66 && code !== 0x46 && code !== 0x6e && code !== 0x4e;
      if (!word && plainTypeAt(text, line.valueAt, line.valueEnd) !== 'string') return shape(line, `${what} ${NON_STRING}`);
      return text.slice(line.valueAt, line.valueEnd);
    }
    if (kind === 'single' || kind === 'double') return unquote(text.slice(line.valueAt, line.valueEnd));
    return shape(line, `expected ${what} as a single value`);
  };
  const closeDep = (open: OpenEntry): void => {
    const dep = open.dep;
    if (dep === undefined) return;
    if (dep.ref !== undefined) open.deps.push(dep.specifier === undefined ? { name: dep.name, ref: dep.ref } : { name: dep.name, ref: dep.ref, specifier: dep.specifier });
    open.dep = undefined;
  };
  /** Close the open entry, whose text ends at `end` (the end of the last content line before the next one). */
  const closeEntry = (end: number): void => {
    if (entry === undefined) return;
    closeDep(entry);
    const body = text.slice(entry.start, end);
    if (section === IMPORTERS) importers.set(entry.key, { key: entry.key, text: body, deps: entry.deps });
    else if (section === SNAPSHOTS) snapshots.set(entry.key, { key: entry.key, text: body, deps: entry.deps });
    else if (section === PACKAGES) packages.set(entry.key, body);
    entry = undefined;
  };
  const closeCatalogEntry = (end: number): void => {
    if (catalogEntry !== undefined) catalogs.set(`${catalog}\0${catalogEntry.key}`, text.slice(catalogEntry.start, end));
    catalogEntry = undefined;
  };
  const closeSettings = (end: number): void => {
    if (section === SETTINGS) settingsEnd = end;
  };
  const flowDeps = (line: YamlLine): [string, string | undefined][] => {
    const pairs: [string, string | undefined][] = [];
    flowEnd(text, line.valueAt, line.valueEnd, () => shape(line, 'a dependency map is malformed'), 0, pairs);
    return pairs;
  };
  /** The depths each section's lines are read to (deeper lines are checked by the reader, never visited). */
  const SECTION_DEPTH = [0, 1, 1, 1, 2, 0];
  const EVERY_LINE = Number.POSITIVE_INFINITY;

  // The visitor returns the deepest line it wants to see next: the entries' own keys, the dependencies
  // inside dependency maps, every line after "key:" whose mapping must not be empty (YAML reads null there).
  const end = readYamlLines(text, main, path, (line) => {
    const depth = line.depth;
    if (awaitingDepth !== -1) {
      if (depth <= awaitingDepth) noValue();
      awaitingDepth = -1;
    }
    if (depth === 0) {
      closeEntry(line.prevEnd);
      closeCatalogEntry(line.prevEnd);
      closeSettings(line.prevEnd);
      section = OTHER;
      for (let i = 1; i < SECTION_NAMES.length; i++) if (line.keyIs(SECTION_NAMES[i] as string)) section = i;
      seen.add(section);
      if (line.keyIs('lockfileVersion')) lockfileVersion = scalar(line, 'lockfileVersion');
      else if (section !== OTHER && mapping(line, `"${SECTION_NAMES[section]}"`)) needsContent(line);
      if (section === SETTINGS) [settingsStart, settingsEnd] = [line.start, line.end];
      return awaitingDepth !== -1 ? EVERY_LINE : SECTION_DEPTH[section];
    }
    if (section === CATALOGS) {
      if (depth === 1) {
        closeCatalogEntry(line.prevEnd);
        if (mapping(line, 'a catalog')) needsContent(line);
        catalog = stringKey(line, 'a catalog name');
      } else if (depth === 2) {
        closeCatalogEntry(line.prevEnd);
        if (mapping(line, 'a catalog entry')) needsContent(line);
        catalogEntry = { key: stringKey(line, 'a catalog entry name'), start: line.start };
      }
      return awaitingDepth !== -1 ? EVERY_LINE : 2;
    }
    if (section !== IMPORTERS && section !== PACKAGES && section !== SNAPSHOTS) return awaitingDepth !== -1 ? EVERY_LINE : 0;
    if (depth === 1) {
      closeEntry(line.prevEnd);
      if (mapping(line, ENTRY_OF[section] as string)) needsContent(line);
      const key = stringKey(line, section === IMPORTERS ? 'an importer path' : 'a package key');
      if (section === IMPORTERS && key.includes('\0')) shape(line, 'an importer path holds a NUL character');
      entry = { key, start: line.start, deps: [], group: false, dep: undefined };
      // A packages entry is folded as text: its lines are only checked, never visited.
      return awaitingDepth !== -1 ? EVERY_LINE : section === PACKAGES ? 1 : 2;
    }
    // A packages entry's lines (visited only right after its header, for the empty-mapping check) say nothing more.
    if (section === PACKAGES) return 1;
    const open = entry as OpenEntry;
    if (depth === 2 && line.item) return shape(line, `expected an entry of "${SECTION_NAMES[section]}" as a mapping, found a sequence`);
    if (depth === 2) {
      closeDep(open);
      open.group = line.keyIs('dependencies') || line.keyIs('optionalDependencies') || (section === IMPORTERS && line.keyIs('devDependencies'));
      if (!open.group) return 2;
      if (line.kind === 'flow') {
        for (const [name, ref] of flowDeps(line)) {
          if (ref === undefined) shape(line, 'expected a single value per dependency');
          if (section === SNAPSHOTS) open.deps.push({ name, ref: ref as string });
          else shape(line, 'expected specifier and version per importer dependency');
        }
        open.group = false;
        return 2;
      }
      if (line.kind !== 'none') shape(line, 'expected a dependency map');
      needsContent(line);
      return EVERY_LINE;
    }
    if (!open.group) return 2;
    if (depth === 3) {
      closeDep(open);
      if (line.item || line.key === undefined) return shape(line, 'expected "name:" in a dependency map');
      const name = stringKey(line, 'a dependency name');
      if (section === SNAPSHOTS) {
        open.deps.push({ name, ref: scalar(line, 'a dependency reference') });
        return 3;
      }
      if (line.kind === 'flow') {
        const fields = new Map(flowDeps(line));
        const ref = fields.get('version');
        const specifier = fields.get('specifier');
        if (ref !== undefined) open.deps.push(specifier === undefined ? { name, ref } : { name, ref, specifier });
        return 3;
      }
      if (line.kind !== 'none') shape(line, 'expected specifier and version per importer dependency');
      open.dep = { name };
      needsContent(line);
      return EVERY_LINE;
    }
    if (depth === 4 && open.dep !== undefined && !line.item) {
      if (line.keyIs('version')) open.dep.ref = scalar(line, 'a dependency version');
      else if (line.keyIs('specifier')) open.dep.specifier = scalar(line, 'a dependency specifier');
    }
    return 4;
  });
  if (awaitingDepth !== -1) noValue();
  closeEntry(end);
  closeCatalogEntry(end);
  closeSettings(end);
  if (lockfileVersion === '') throw brokenLockfile(path, 'the main document has no lockfileVersion', { line: main.line, column: 1 });
  // The layout of 9.x (other versions are refused by version, in slices.ts): pnpm always writes `importers:`
  // (`.: {}` at least), and packages and snapshots both or neither (without snapshots pnpm reads packages in
  // the pre-9 layout): a file without them lost its lines.
  const v9 = /^9\.\d+$/.test(lockfileVersion);
  if (v9 && !seen.has(IMPORTERS)) throw brokenLockfile(path, 'the main document has no importers section', { line: main.line, column: 1 });
  if (v9 && seen.has(PACKAGES) !== seen.has(SNAPSHOTS)) throw brokenLockfile(path, `the main document has ${seen.has(PACKAGES) ? 'packages but no snapshots' : 'snapshots but no packages'}`, { line: main.line, column: 1 });
  const settingsText = settingsStart === -1 ? '' : text.slice(settingsStart, settingsEnd);
  return { lockfileVersion, settingsText, importers, packages, snapshots, catalogs, hadEnvDocument: docs.length === 2 };
}
