// A text-level index over a pnpm v9 lockfile: importers, packages, snapshots and catalogs, without a YAML
// parse into objects.
//
// Owns: reading the entries out of the lines yaml/ reads (which checks the YAML as pnpm would, and
// refuses what it cannot read faithfully), checking each section has the shape pnpm writes (mappings where
// pnpm writes mappings, a scalar reference per snapshot dependency, specifier and version per importer
// dependency), and picking the main document of pnpm 12's two-document form (an env document, `---`, the
// main one: the env document's importers are pnpm's own binaries, not projects, so it is checked and skipped).
// Invariants: every entry keeps its exact text (the slice digest hashes it), after the decoding pnpm does (a
// BOM dropped, CRLF as LF), so two files pnpm reads alike give the same texts; a reference is kept as written
// (`link:`, alias `name@version`, peer suffixes), resolution happens in graph.ts; a failure is
// ERR_LOCKGUARD_BROKEN_LOCKFILE or _UNSUPPORTED_LOCKFILE naming the path, line and column, never echoing
// contents. Must never: parse the whole file into objects (0.9 s for a 6.9 MB file), or read anything but
// the bytes given.

import { brokenLockfile, unsupportedLockfile } from '../../lockfile-errors.js';
import {
  decodePnpmLockfile,
  flowEnd,
  plainTypeAt,
  readYamlLines,
  unquote,
  yamlDocuments,
  type YamlLine,
} from './yaml/index.js';

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
const ENTRY_OF = /* @__PURE__ */ SECTION_NAMES.map((name) => `an entry of "${name}"`);

const NON_STRING = 'that YAML reads as a number, boolean, null or date (pnpm quotes those)';

/** Index a pnpm lockfile's bytes. `path` (absolute) only names the file in errors. One pass over the lines. */
export function indexPnpmLockfile(bytes: Uint8Array, path: string): PnpmLockIndex {
  const text = decodePnpmLockfile(bytes, path);
  const docs = yamlDocuments(text);
  if (docs.length > 2)
    throw brokenLockfile(
      path,
      `expected one YAML document, or an env document and the main one, found ${docs.length}`,
      { line: docs[2]?.line ?? 1, column: 1 },
    );
  const main = docs[docs.length - 1];
  if (main === undefined) throw brokenLockfile(path, 'it is empty');
  // The env document is no project's, but pnpm 12 reads it: it must be sound YAML too.
  if (docs.length === 2 && docs[0] !== undefined) readYamlLines(text, docs[0], path, () => undefined);
  const index = new IndexReader(text, path);
  // The visitor returns the deepest line it wants to see next: the entries' own keys, the dependencies
  // inside dependency maps, every line after "key:" whose mapping must not be empty (YAML reads null there).
  const end = readYamlLines(text, main, path, (line) => index.visit(line));
  return index.finish(end, main.line, docs.length === 2);
}

/** The depths each section's lines are read to (deeper lines are checked by the reader, never visited). */
const SECTION_DEPTH = [0, 1, 1, 1, 2, 0];
const EVERY_LINE = Number.POSITIVE_INFINITY;

/**
 * The index being read: the maps filled so far and the open section, entry and dependency. `visit` takes
 * one line and returns the depth it wants next; each section's lines are a method of their own.
 */
class IndexReader {
  private readonly text: string;
  private readonly path: string;
  private readonly importers = new Map<string, PnpmEntry>();
  private readonly packages = new Map<string, string>();
  private readonly snapshots = new Map<string, PnpmEntry>();
  private readonly catalogs = new Map<string, string>();
  private lockfileVersion = '';
  private settingsStart = -1;
  private settingsEnd = -1;
  private section = OTHER;
  private readonly seen = new Set<number>();
  /** A line whose value must be a mapping, written "key:" with nothing under it yet (YAML reads null there): its depth, line and column. */
  private awaitingDepth = -1;
  private awaitingLine = 0;
  private awaitingColumn = 0;
  private entry: OpenEntry | undefined;
  private catalog = '';
  private catalogEntry: { key: string; start: number } | undefined;

  constructor(text: string, path: string) {
    this.text = text;
    this.path = path;
  }

  visit(line: YamlLine): number {
    const depth = line.depth;
    if (this.awaitingDepth !== -1) {
      if (depth <= this.awaitingDepth) this.noValue();
      this.awaitingDepth = -1;
    }
    if (depth === 0) return this.sectionLine(line);
    const section = this.section;
    if (section === CATALOGS) return this.catalogLine(line);
    if (section !== IMPORTERS && section !== PACKAGES && section !== SNAPSHOTS)
      return this.awaitingDepth !== -1 ? EVERY_LINE : 0;
    if (depth === 1) return this.entryLine(line);
    // A packages entry's lines (visited only right after its header, for the empty-mapping check) say nothing more.
    if (section === PACKAGES) return 1;
    const open = this.entry as OpenEntry;
    if (depth === 2) return this.groupLine(line, open);
    if (!open.group) return 2;
    if (depth === 3) return this.depLine(line, open);
    if (depth === 4 && open.dep !== undefined && !line.item) {
      if (line.keyIs('version')) open.dep.ref = this.scalar(line, 'a dependency version');
      else if (line.keyIs('specifier')) open.dep.specifier = this.scalar(line, 'a dependency specifier');
    }
    return 4;
  }

  /** The index, once every line is read (`end`: where the last content line ended). */
  finish(end: number, mainLine: number, hadEnvDocument: boolean): PnpmLockIndex {
    const { path, lockfileVersion, seen } = this;
    if (this.awaitingDepth !== -1) this.noValue();
    this.closeEntry(end);
    this.closeCatalogEntry(end);
    this.closeSettings(end);
    if (lockfileVersion === '')
      throw brokenLockfile(path, 'the main document has no lockfileVersion', { line: mainLine, column: 1 });
    // The layout of 9.x (other versions are refused by version, in slices.ts): pnpm always writes `importers:`
    // (`.: {}` at least), and packages and snapshots both or neither (without snapshots pnpm reads packages in
    // the pre-9 layout): a file without them lost its lines.
    const v9 = /^9\.\d+$/.test(lockfileVersion);
    if (v9 && !seen.has(IMPORTERS))
      throw brokenLockfile(path, 'the main document has no importers section', { line: mainLine, column: 1 });
    if (v9 && seen.has(PACKAGES) !== seen.has(SNAPSHOTS))
      throw brokenLockfile(
        path,
        `the main document has ${seen.has(PACKAGES) ? 'packages but no snapshots' : 'snapshots but no packages'}`,
        { line: mainLine, column: 1 },
      );
    const settingsText = this.settingsStart === -1 ? '' : this.text.slice(this.settingsStart, this.settingsEnd);
    return {
      lockfileVersion,
      settingsText,
      importers: this.importers,
      packages: this.packages,
      snapshots: this.snapshots,
      catalogs: this.catalogs,
      hadEnvDocument,
    };
  }

  /** A top-level key: it closes what was open and starts its section. */
  private sectionLine(line: YamlLine): number {
    this.closeEntry(line.prevEnd);
    this.closeCatalogEntry(line.prevEnd);
    this.closeSettings(line.prevEnd);
    let section = OTHER;
    for (let i = 1; i < SECTION_NAMES.length; i++) if (line.keyIs(SECTION_NAMES[i] as string)) section = i;
    this.section = section;
    this.seen.add(section);
    if (line.keyIs('lockfileVersion')) this.lockfileVersion = this.scalar(line, 'lockfileVersion');
    else if (section !== OTHER && this.mapping(line, `"${SECTION_NAMES[section]}"`)) this.needsContent(line);
    if (section === SETTINGS) [this.settingsStart, this.settingsEnd] = [line.start, line.end];
    return this.awaitingDepth !== -1 ? EVERY_LINE : (SECTION_DEPTH[section] as number);
  }

  /** A line of `catalogs`: a catalog (depth 1) or one of its entries (depth 2). */
  private catalogLine(line: YamlLine): number {
    if (line.depth === 1) {
      this.closeCatalogEntry(line.prevEnd);
      if (this.mapping(line, 'a catalog')) this.needsContent(line);
      this.catalog = this.stringKey(line, 'a catalog name');
    } else if (line.depth === 2) {
      this.closeCatalogEntry(line.prevEnd);
      if (this.mapping(line, 'a catalog entry')) this.needsContent(line);
      this.catalogEntry = { key: this.stringKey(line, 'a catalog entry name'), start: line.start };
    }
    return this.awaitingDepth !== -1 ? EVERY_LINE : 2;
  }

  /** An entry's header in importers, packages or snapshots (depth 1). */
  private entryLine(line: YamlLine): number {
    const section = this.section;
    this.closeEntry(line.prevEnd);
    if (this.mapping(line, ENTRY_OF[section] as string)) this.needsContent(line);
    const key = this.stringKey(line, section === IMPORTERS ? 'an importer path' : 'a package key');
    if (section === IMPORTERS && key.includes('\0')) this.shape(line, 'an importer path holds a NUL character');
    this.entry = { key, start: line.start, deps: [], group: false, dep: undefined };
    // A packages entry is folded as text: its lines are only checked, never visited.
    return this.awaitingDepth !== -1 ? EVERY_LINE : section === PACKAGES ? 1 : 2;
  }

  /** A field of an importer or snapshot (depth 2): a followed dependency map opens, anything else is skipped. */
  private groupLine(line: YamlLine, open: OpenEntry): number {
    const section = this.section;
    if (line.item)
      return this.shape(line, `expected an entry of "${SECTION_NAMES[section]}" as a mapping, found a sequence`);
    this.closeDep(open);
    open.group =
      line.keyIs('dependencies') ||
      line.keyIs('optionalDependencies') ||
      (section === IMPORTERS && line.keyIs('devDependencies'));
    if (!open.group) return 2;
    if (line.kind === 'flow') {
      for (const [name, ref] of this.flowDeps(line)) {
        if (ref === undefined) this.shape(line, 'expected a single value per dependency');
        if (section === SNAPSHOTS) open.deps.push({ name, ref: ref as string });
        else this.shape(line, 'expected specifier and version per importer dependency');
      }
      open.group = false;
      return 2;
    }
    if (line.kind !== 'none') this.shape(line, 'expected a dependency map');
    this.needsContent(line);
    return EVERY_LINE;
  }

  /** One dependency of a followed map (depth 3): `name: ref` (snapshots) or `name:` with specifier and version under it. */
  private depLine(line: YamlLine, open: OpenEntry): number {
    this.closeDep(open);
    if (line.item || line.key === undefined) return this.shape(line, 'expected "name:" in a dependency map');
    const name = this.stringKey(line, 'a dependency name');
    if (this.section === SNAPSHOTS) {
      open.deps.push({ name, ref: this.scalar(line, 'a dependency reference') });
      return 3;
    }
    if (line.kind === 'flow') {
      const fields = new Map(this.flowDeps(line));
      const ref = fields.get('version');
      const specifier = fields.get('specifier');
      if (ref !== undefined) open.deps.push(specifier === undefined ? { name, ref } : { name, ref, specifier });
      return 3;
    }
    if (line.kind !== 'none') this.shape(line, 'expected specifier and version per importer dependency');
    open.dep = { name };
    this.needsContent(line);
    return EVERY_LINE;
  }

  private shape(line: YamlLine, reason: string): never {
    throw brokenLockfile(this.path, reason, { line: line.line, column: line.keyAt - line.start + 1 });
  }

  /** The key, refused when YAML reads it as another type than a string (pnpm would key the entry by its String()). */
  private stringKey(line: YamlLine, what: string): string {
    if (!line.keyIsString) this.shape(line, `${what} ${NON_STRING}`);
    return line.key as string;
  }

  private needsContent(line: YamlLine): void {
    if (line.kind !== 'none') return;
    this.awaitingDepth = line.depth;
    this.awaitingLine = line.line;
    this.awaitingColumn = line.keyAt - line.start + 1;
  }

  private noValue(): never {
    throw brokenLockfile(this.path, 'a mapping has no value (pnpm writes {} for an empty one)', {
      line: this.awaitingLine,
      column: this.awaitingColumn,
    });
  }

  /** A block mapping follows (kind none), or `{}`; anything else where pnpm writes a mapping is refused. */
  private mapping(line: YamlLine, what: string): boolean {
    if (line.item || line.key === undefined)
      return this.shape(line, `expected ${what} as a mapping, found a sequence entry`);
    if (line.kind === 'none') return true;
    if (line.kind === 'flow') {
      // `{}` as pnpm writes it, or with blanks inside.
      if (line.valueEnd - line.valueAt === 2 || /^\{\s*\}$/.test(this.text.slice(line.valueAt, line.valueEnd)))
        return false;
      throw unsupportedLockfile(this.path, `a flow mapping for ${what} (pnpm writes it as a block)`, {
        line: line.line,
        column: line.valueAt - line.start + 1,
      });
    }
    return this.shape(line, `expected ${what} as a mapping, found a scalar`);
  }

  private scalar(line: YamlLine, what: string): string {
    const { text } = this;
    const kind = line.kind;
    if (kind === 'plain') {
      // plainTypeAt's first test, inlined for the common value: it starts with a letter but t, f, n.
      const code = text.charCodeAt(line.valueAt);
      const word =
        ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)) &&
        code !== 0x74 &&
        code !== 0x54 &&
        code !== 0x66 &&
        code !== 0x46 &&
        code !== 0x6e &&
        code !== 0x4e;
      if (!word && plainTypeAt(text, line.valueAt, line.valueEnd) !== 'string')
        return this.shape(line, `${what} ${NON_STRING}`);
      return text.slice(line.valueAt, line.valueEnd);
    }
    if (kind === 'single' || kind === 'double') return unquote(text.slice(line.valueAt, line.valueEnd));
    return this.shape(line, `expected ${what} as a single value`);
  }

  private closeDep(open: OpenEntry): void {
    const dep = open.dep;
    if (dep === undefined) return;
    if (dep.ref !== undefined)
      open.deps.push(
        dep.specifier === undefined
          ? { name: dep.name, ref: dep.ref }
          : { name: dep.name, ref: dep.ref, specifier: dep.specifier },
      );
    open.dep = undefined;
  }

  /** Close the open entry, whose text ends at `end` (the end of the last content line before the next one). */
  private closeEntry(end: number): void {
    const entry = this.entry;
    if (entry === undefined) return;
    this.closeDep(entry);
    const body = this.text.slice(entry.start, end);
    const section = this.section;
    if (section === IMPORTERS) this.importers.set(entry.key, { key: entry.key, text: body, deps: entry.deps });
    else if (section === SNAPSHOTS) this.snapshots.set(entry.key, { key: entry.key, text: body, deps: entry.deps });
    else if (section === PACKAGES) this.packages.set(entry.key, body);
    this.entry = undefined;
  }

  private closeCatalogEntry(end: number): void {
    if (this.catalogEntry !== undefined)
      this.catalogs.set(`${this.catalog}\0${this.catalogEntry.key}`, this.text.slice(this.catalogEntry.start, end));
    this.catalogEntry = undefined;
  }

  private closeSettings(end: number): void {
    if (this.section === SETTINGS) this.settingsEnd = end;
  }

  private flowDeps(line: YamlLine): [string, string | undefined][] {
    const pairs: [string, string | undefined][] = [];
    flowEnd(this.text, line.valueAt, line.valueEnd, () => this.shape(line, 'a dependency map is malformed'), 0, pairs);
    return pairs;
  }
}
