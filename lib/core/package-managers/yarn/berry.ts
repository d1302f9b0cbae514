// yarn berry's yarn.lock (yarn 2+, `__metadata` version 4 and later) read into the slice graph.
//
// Owns: a text index over the layout yarn writes (syml: a key line at column 0 listing the entry's
// descriptors, `  field: value` lines, `    name: range` under `dependencies:`), and the graph built from them.
// Each entry is one node; its descriptors (`name@npm:^1.0.0`, `a@workspace:*`, `x@patch:...`) all name it.
// Workspaces are the entries whose `resolution` is `<name>@workspace:<folder>`: the importers ('.' for
// the root). A dependency `name: range` names the descriptor `name@range` (older lockfiles, v4-v6,
// write the range without yarn's default `npm:` protocol: `name@npm:range` is tried next); a descriptor
// the lockfile lacks becomes a leaf, so the slice still changes when the reference does.
// Edges: `dependencies` (for workspaces yarn merges devDependencies into it). `peerDependencies` are no
// edges: yarn satisfies a peer from the dependent's parent, which reaches the provider itself; their
// ranges are in the entry's text.
// THE YARN BERRY SLICE: a node's own content is its entry's exact text (descriptors, version, resolution,
// dependencies, peerDependencies, dependenciesMeta, bin, checksum, conditions, languageName, linkType);
// a workspace's also folds the `__metadata` block (the lockfile version and cacheKey change every checksum).
// What is refused, as yarn 4.18.1 refuses it (measured with `yarn install --immutable`: a YAML error, an
// entry without `resolution` or `linkType`, an invalid locator) or reads otherwise than the lines say (it
// then refuses it too, "the lockfile would have been modified"): every line not in the form yarn writes
// (syml.ts: indentation, quoting, flow, comments after a value, a line of spaces), a NUL or another
// character js-yaml refuses, a key twice in one mapping, a descriptor naming two entries, two `__metadata`
// blocks, a field yarn writes as a mapping given a scalar (or the reverse), a dependency name yarn cannot
// read (yarn drops it), nesting deeper than yarn writes. Accepted as yarn reads them: CRLF, a BOM, comment
// lines and blank lines between entries, a key over 1,024 characters in yarn's `? key` form, fields of
// other names (a newer yarn's).
// Invariants: one pass over the lines, no YAML parse; the only failure is ERR_LOCKGUARD_BROKEN_LOCKFILE
// naming the path and line, never echoing contents.

import type { LockguardError } from '../../errors.js';
import { brokenLockfile, positionAt } from '../../lockfile-errors.js';
import type { LockfileGraph, NodeLabel } from '../../slices/graph.js';
import { NON_PRINTABLE } from '../pnpm/yaml/index.js';
import { line, symlLine, symlScalar } from './syml.js';

interface YarnEntry {
  readonly descriptors: readonly string[];
  /** The entry's exact lines, joined by "\n". */
  readonly text: string;
  readonly resolution: string;
  readonly deps: readonly (readonly [name: string, range: string])[];
  /** The line the entry starts on (1-based), for errors. */
  readonly line: number;
}

export interface YarnBerryIndex {
  readonly metadata: string;
  readonly entries: readonly YarnEntry[];
  /** The file, named in errors. */
  readonly path: string;
}

function broken(path: string, line: number, reason: string): LockguardError {
  return brokenLockfile(path, reason, { line, column: 1 });
}

/** A syml scalar as yarn writes it: "double-quoted" (JSON escapes) or plain (labels only: the index has checked it). */
function scalar(raw: string): string {
  if (raw.charCodeAt(0) !== 34) return raw;
  if (!raw.includes('\\')) return raw.slice(1, -1);
  try {
    return JSON.parse(raw) as string;
  } catch {
    return raw.slice(1, -1);
  }
}

/** Fields yarn writes as mappings, and as scalars; a field of another name may be either (a newer yarn's). */
const MAP_FIELDS = new Set(['dependencies', 'peerDependencies', 'dependenciesMeta', 'peerDependenciesMeta', 'bin']);
const SCALAR_FIELDS = new Set(['version', 'resolution', 'checksum', 'languageName', 'linkType', 'conditions']);
/** A package name as yarn reads one (structUtils.tryParseIdent): a dependency named otherwise is dropped by yarn. */
const IDENT = /^(?:@[^/]+?\/)?[^@/]+$/;
/** A descriptor or locator as yarn reads one strictly: a name, `@`, a range or reference. */
const DESCRIPTOR = /^((?:@[^/]+?\/)?[^/]+?)@(.+)$/;
/** How yarn splits an entry's key into its descriptors (Project's MULTIPLE_KEYS_REGEXP). */
const MULTIPLE_KEYS = / *, */;

/** The keys of one mapping, for duplicates: reused from mapping to mapping (mappings are small). */
class KeyList {
  readonly #keys: string[] = [];
  #count = 0;

  reset(): void {
    this.#count = 0;
  }

  /** false when `key` is already in. */
  add(key: string): boolean {
    for (let i = 0; i < this.#count; i++) if (this.#keys[i] === key) return false;
    this.#keys[this.#count++] = key;
    return true;
  }
}

function validDescriptor(descriptor: string): boolean {
  const match = DESCRIPTOR.exec(descriptor);
  return match !== null && IDENT.test(match[1] as string);
}

/** The descriptors of an entry's key (decoded): `a@npm:^1, a@npm:^1.2` as yarn splits it. */
function keyDescriptors(key: string): string[] {
  return key.split(MULTIPLE_KEYS);
}

/** The text as yarn reads it: a leading BOM dropped (js-yaml does), line breaks normalized; refused when it holds a non-printable character. */
function berryText(source: string, path: string): string {
  let text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  if (text.includes('\r\n')) text = text.replaceAll('\r\n', '\n');
  const bad = NON_PRINTABLE.exec(text);
  if (bad !== null)
    throw brokenLockfile(
      path,
      bad[0] === '\0' ? 'it holds a NUL byte' : 'it holds a non-printable character',
      positionAt(text, bad.index),
    );
  return text;
}

/** Where the line starting at `from` ends (its "\n", or the end of the text). */
function lineEndOf(text: string, from: number): number {
  const nl = text.indexOf('\n', from);
  return nl === -1 ? text.length : nl;
}

/** A key over 1,024 characters, whose line starts at `at` and ends at `end`: yarn writes `? <key>` and then a line holding only `:`. */
function longKey(text: string, at: number, end: number, path: string, lineNo: number): string {
  const key = symlScalar(text.slice(at + 2, end));
  if (key === undefined || text.slice(end + 1, lineEndOf(text, end + 1)) !== ':')
    throw broken(path, lineNo, 'a long key not in the form yarn writes');
  return key;
}

/**
 * Read a berry yarn.lock's text into entries (`path` only names the file in errors), refusing what yarn 4
 * refuses or reads otherwise than its lines say (syml.ts has the line form; here: the structure).
 */
export function indexYarnBerry(source: string, path: string): YarnBerryIndex {
  const text = berryText(source, path);
  const entries: YarnEntry[] = [];
  let metadata: string | undefined;
  const body = new EntryBody();
  let lineNo = 0;
  let at = 0;
  while (at < text.length) {
    let end = lineEndOf(text, at);
    lineNo++;
    const first = text.charCodeAt(at);
    if (end === at || first === 35) {
      at = end + 1;
      continue;
    }
    if (first === 32) throw broken(path, lineNo, 'an indented line outside any entry');
    const start = at;
    const startLine = lineNo;
    let key: string;
    if (first === 63 && text.charCodeAt(at + 1) === 32) {
      key = longKey(text, at, end, path, lineNo);
      end = lineEndOf(text, end + 1);
      lineNo++;
    } else {
      const refused = symlLine(text, at, end);
      if (refused !== undefined) throw broken(path, lineNo, refused);
      if (line.value !== undefined) throw broken(path, lineNo, 'an entry that is not a mapping');
      key = line.key;
    }
    body.reset();
    // Body: every following line that starts with a space.
    for (at = end + 1; at < text.length && text.charCodeAt(at) === 32; at = end + 1) {
      end = lineEndOf(text, at);
      lineNo++;
      const refused = symlLine(text, at, end);
      if (refused !== undefined) throw broken(path, lineNo, refused);
      body.read(path, lineNo);
    }
    if (body.expect !== -1) throw broken(path, lineNo, 'a key with no value');
    const { resolution, linkType, deps } = body;
    const blockEnd = Math.min(at - 1, text.length);
    if (key === '__metadata') {
      if (metadata !== undefined) throw broken(path, startLine, 'it has two __metadata blocks');
      metadata = text.slice(start, blockEnd);
      continue;
    }
    const descriptors = keyDescriptors(key);
    if (!descriptors.every(validDescriptor))
      throw broken(path, startLine, 'an entry key that is not a list of descriptors');
    if (resolution === undefined || !validDescriptor(resolution))
      throw broken(path, startLine, 'an entry without a valid "resolution" (yarn refuses it)');
    if (!linkType) throw broken(path, startLine, 'an entry without a "linkType" (yarn refuses it)');
    entries.push({ descriptors, text: text.slice(start, blockEnd), resolution, deps, line: startLine });
  }
  if (metadata === undefined) throw broken(path, 1, 'it has no __metadata block');
  return { metadata, entries, path };
}

/** What an entry's body lines say so far (the fields yarn needs), and the checks each line passes. */
class EntryBody {
  resolution: string | undefined;
  linkType = false;
  deps: [string, string][] = [];
  // Keys seen in each open mapping (an entry's fields; the current field's; the current sub-key's), for duplicates.
  private readonly fields = new KeyList();
  private readonly names = new KeyList();
  private readonly subs = new KeyList();
  private field = '';
  /** The indentation the next line must have (a mapping was opened, else -1), and the deepest it may have. */
  expect = 2;
  private deepest = 2;

  reset(): void {
    this.resolution = undefined;
    this.linkType = false;
    this.deps = [];
    this.fields.reset();
    this.names.reset();
    this.subs.reset();
    this.field = '';
    this.expect = 2;
    this.deepest = 2;
  }

  /** The body line `symlLine` just read (in `line`), line `lineNo` of `path`. */
  read(path: string, lineNo: number): void {
    const depth = line.indent;
    const expect = this.expect;
    if (expect !== -1 ? depth !== expect : depth > this.deepest)
      throw broken(
        path,
        lineNo,
        expect !== -1 && depth < expect ? 'a key with no value' : 'bad indentation (deeper than its mapping)',
      );
    const opens = line.value === undefined;
    if (depth === 2) this.fieldLine(path, lineNo, opens);
    else if (depth === 4) this.nameLine(path, lineNo, opens);
    else if (depth === 6) {
      if (opens) throw broken(path, lineNo, 'nesting deeper than yarn writes');
      if (!this.subs.add(line.key)) throw broken(path, lineNo, 'a key appears twice in one mapping');
    } else {
      throw broken(path, lineNo, 'nesting deeper than yarn writes');
    }
    this.expect = opens ? depth + 2 : -1;
    this.deepest = opens ? depth + 2 : depth;
  }

  /** A field of the entry (depth 2). */
  private fieldLine(path: string, lineNo: number, opens: boolean): void {
    if (!this.fields.add(line.key)) throw broken(path, lineNo, 'a field appears twice in one entry');
    this.names.reset();
    const field = (this.field = line.key);
    if (MAP_FIELDS.has(field) && !opens) throw broken(path, lineNo, `its "${field}" field is not a mapping`);
    if (SCALAR_FIELDS.has(field) && opens) throw broken(path, lineNo, `its "${field}" field is not a string`);
    if (field === 'resolution') this.resolution = line.value;
    else if (field === 'linkType') this.linkType = true;
  }

  /** A key inside a field's mapping (depth 4): a dependency, a bin, a meta entry. */
  private nameLine(path: string, lineNo: number, opens: boolean): void {
    const field = this.field;
    if (!this.names.add(line.key)) throw broken(path, lineNo, 'a key appears twice in one mapping');
    this.subs.reset();
    if (field === 'dependencies' || field === 'peerDependencies' || field === 'bin') {
      if (opens) throw broken(path, lineNo, `an entry of its "${field}" field is not a string`);
      if (field !== 'bin' && !IDENT.test(line.key))
        throw broken(path, lineNo, 'a dependency whose name yarn cannot read');
      if (field === 'dependencies') this.deps.push([line.key, line.value as string]);
    } else if ((field === 'dependenciesMeta' || field === 'peerDependenciesMeta') && !opens) {
      throw broken(path, lineNo, `an entry of its "${field}" field is not a mapping`);
    }
  }
}

/** `name@range` -> [name, range]; scoped names keep their `@`. */
export function splitDescriptor(descriptor: string): [string, string] {
  const at = descriptor.indexOf('@', 1);
  return at === -1 ? [descriptor, ''] : [descriptor.slice(0, at), descriptor.slice(at + 1)];
}

export function yarnBerrySliceGraph(index: YarnBerryIndex): LockfileGraph {
  const own: string[] = [];
  const edges: number[][] = [];
  // Package labels are computed on demand (only diffs need them): undefined until asked.
  const labels: (NodeLabel | undefined)[] = [];
  const importers = new Map<string, number>();
  // name -> range -> node: looking up a dependency needs no `name@range` string built (100k+ of them).
  const byName = new Map<string, Map<string, number>>();
  for (const entry of index.entries) {
    const node = own.length;
    for (const descriptor of entry.descriptors) {
      const [name, range] = splitDescriptor(descriptor);
      let ranges = byName.get(name);
      if (ranges === undefined) byName.set(name, (ranges = new Map()));
      // yarn keeps the last entry a descriptor names and writes it once: two are no lockfile yarn wrote.
      if (ranges.has(range)) throw broken(index.path, entry.line, 'a descriptor names two entries');
      ranges.set(range, node);
    }
    const [, reference] = splitDescriptor(entry.resolution);
    if (reference.startsWith('workspace:')) {
      const folder = reference.slice('workspace:'.length) || '.';
      importers.set(folder, node);
      own.push(`yarn-workspace\n${entry.text}\n${index.metadata}`);
      labels.push({ kind: 'importer', id: folder });
    } else {
      own.push(`yarn\n${entry.text}`);
      labels.push(undefined);
    }
    edges.push([]);
  }
  const leaves = new Map<string, number>();
  const leaf = (descriptor: string): number => {
    const known = leaves.get(descriptor);
    if (known !== undefined) return known;
    leaves.set(descriptor, own.length);
    own.push(`leaf\nmissing ${descriptor}`);
    edges.push([]);
    const [name, range] = splitDescriptor(descriptor);
    labels.push({ kind: 'package', name, version: range, missing: true });
    return own.length - 1;
  };
  index.entries.forEach((entry, node) => {
    const out = edges[node] as number[];
    for (const [name, range] of entry.deps) {
      const ranges = byName.get(name);
      const found =
        ranges?.get(range) ?? (ranges === undefined || range.includes(':') ? undefined : ranges.get(`npm:${range}`));
      out.push(found ?? leaf(`${name}@${range}`));
    }
  });
  return { own, edges, label: labeller(index, labels), importers };
}

/** A node's label: the importers' and leaves' are in `labels`, a package's is read from its entry when first asked. */
function labeller(index: YarnBerryIndex, labels: (NodeLabel | undefined)[]): (node: number) => NodeLabel {
  return (node) => {
    const known = labels[node];
    if (known !== undefined) return known;
    const entry = index.entries[node];
    if (entry === undefined) return { kind: 'leaf', ref: '' };
    const [name, reference] = splitDescriptor(entry.resolution);
    const version = /^ {2}version: (.*)$/m.exec(entry.text)?.[1];
    return (labels[node] = { kind: 'package', name, version: version === undefined ? reference : scalar(version) });
  };
}
