// A text-level index over a pnpm v9 lockfile: importers, packages, snapshots and catalogs, without a YAML
// parse.
//
// Owns: reading pnpm's fixed layout (2-space indentation, one block per entry, block-style dependency maps)
// into entry texts and dependency references; picking the main document of pnpm 12's two-document form
// (an env document, `---`, the main one: the env document's importers are pnpm's own binaries, not
// projects, so it is skipped whole).
// Invariants: every entry keeps its exact text (the slice digest hashes it); a reference is kept as written
// (`link:`, alias `name@version`, peer suffixes), resolution happens in pnpm-graph.ts; the only failure is
// ERR_LOCKGUARD_BROKEN_LOCKFILE naming the path and line, never echoing contents.
// Must never: parse the whole file as YAML (0.9 s for a 6.9 MB file), or read anything but the bytes given.

import { LockguardError } from '../errors.js';

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

function broken(path: string, line: number, reason: string): LockguardError {
  return new LockguardError('ERR_LOCKGUARD_BROKEN_LOCKFILE', `The lockfile at "${path}" is broken: ${reason} (line ${line}).`, {
    path,
    hint: 'Restore it (git checkout -- pnpm-lock.yaml) or let pnpm rewrite it (pnpm install).',
  });
}

/** A YAML scalar as pnpm writes it: plain, 'single' ('' escapes a quote) or "double" (JSON escapes). */
export function unquote(raw: string): string {
  const text = raw.trim();
  if (text.length >= 2 && text.startsWith("'") && text.endsWith("'")) return text.slice(1, -1).replaceAll("''", "'");
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    try {
      return JSON.parse(text) as string;
    } catch {
      return text.slice(1, -1);
    }
  }
  return text;
}

/** Split `key: value` / `key:` (key possibly quoted) into [key, value]; value '' when none. */
function splitKey(body: string): [string, string] | undefined {
  let end: number;
  if (body.startsWith("'")) {
    end = 1;
    for (;;) {
      const quote = body.indexOf("'", end);
      if (quote === -1) return undefined;
      if (body[quote + 1] === "'") end = quote + 2;
      else {
        end = quote + 1;
        break;
      }
    }
  } else if (body.startsWith('"')) {
    const quote = body.indexOf('"', 1);
    if (quote === -1) return undefined;
    end = quote + 1;
  } else {
    const colon = body.indexOf(': ');
    end = colon === -1 ? (body.endsWith(':') ? body.length - 1 : -1) : colon;
    if (end === -1) return undefined;
  }
  if (body[end] !== ':') return undefined;
  return [unquote(body.slice(0, end)), body.slice(end + 1).trim()];
}

/** `{a: 1, 'b': 2}` (flat flow map) -> pairs. pnpm writes dependency maps in block style; this is a net. */
function flowPairs(value: string): [string, string][] {
  const inner = value.trim().replace(/^\{/, '').replace(/\}$/, '').trim();
  if (inner === '') return [];
  const pairs: [string, string][] = [];
  for (const part of inner.split(/,\s*/)) {
    const pair = splitKey(part.trim());
    if (pair !== undefined) pairs.push([pair[0], unquote(pair[1])]);
  }
  return pairs;
}

interface OpenEntry {
  readonly key: string;
  readonly start: number;
  /** End of the last non-blank line seen (the entry's text ends there). */
  end: number;
  readonly deps: PnpmDep[];
  group: boolean;
  dep: { name: string; specifier?: string; ref?: string } | undefined;
}

const startsAt = (text: string, at: number, prefix: string): boolean => text.startsWith(prefix, at);

/** An unquoted entry header `key:` or `key: {}` read in place; undefined for any other shape. */
function plainKey(text: string, at: number, lineEnd: number): string | undefined {
  const first = text.charCodeAt(at);
  if (first === 39 || first === 34) return undefined;
  if (text.charCodeAt(lineEnd - 1) === 58 /* : */) {
    const key = text.slice(at, lineEnd - 1);
    return key.includes(': ') ? undefined : key;
  }
  if (text.endsWith(': {}', lineEnd)) {
    const key = text.slice(at, lineEnd - 4);
    return key.includes(': ') ? undefined : key;
  }
  return undefined;
}

/** Index the lockfile text. `path` only names the file in errors. One pass over the lines, no split. */
export function indexPnpmLockfile(text: string, path: string): PnpmLockIndex {
  const docs = documents(text);
  if (docs.length > 2) throw broken(path, docs[2]?.line ?? 1, `expected one YAML document, or an env document and the main one, found ${docs.length}`);
  const main = docs[docs.length - 1];
  if (main === undefined) throw broken(path, 1, 'it is empty');
  const importers = new Map<string, PnpmEntry>();
  const packages = new Map<string, string>();
  const snapshots = new Map<string, PnpmEntry>();
  const catalogs = new Map<string, string>();
  let lockfileVersion = '';
  let settingsStart = -1;
  let settingsEnd = -1;

  let section = '';
  let entry: OpenEntry | undefined;
  let catalog = '';
  let catalogEntry: { key: string; start: number; end: number } | undefined;

  const closeDep = (open: OpenEntry): void => {
    const dep = open.dep;
    if (dep === undefined) return;
    if (dep.ref !== undefined) open.deps.push(dep.specifier === undefined ? { name: dep.name, ref: dep.ref } : { name: dep.name, ref: dep.ref, specifier: dep.specifier });
    open.dep = undefined;
  };
  const closeEntry = (): void => {
    if (entry === undefined) return;
    closeDep(entry);
    const body = text.slice(entry.start, entry.end);
    if (section === 'importers') importers.set(entry.key, { key: entry.key, text: body, deps: entry.deps });
    else if (section === 'snapshots') snapshots.set(entry.key, { key: entry.key, text: body, deps: entry.deps });
    else if (section === 'packages') packages.set(entry.key, body);
    entry = undefined;
  };
  const closeCatalogEntry = (): void => {
    if (catalogEntry !== undefined) catalogs.set(`${catalog}\0${catalogEntry.key}`, text.slice(catalogEntry.start, catalogEntry.end));
    catalogEntry = undefined;
  };

  let no = main.line;
  for (let pos = main.from; pos < main.to; no++) {
    let next = text.indexOf('\n', pos);
    if (next === -1 || next > main.to) next = main.to;
    let lineEnd = next;
    if (text.charCodeAt(lineEnd - 1) === 13) lineEnd--;
    let at = pos;
    while (text.charCodeAt(at) === 32) at++;
    const indent = at - pos;
    const lineStart = pos;
    pos = next + 1;
    if (at >= lineEnd || text.charCodeAt(at) === 35 /* # */) continue;
    if (indent === 0) {
      closeEntry();
      closeCatalogEntry();
      const pair = splitKey(text.slice(at, lineEnd));
      if (pair === undefined) throw broken(path, no, 'expected a top-level "key:"');
      section = pair[0];
      if (section === 'lockfileVersion') lockfileVersion = unquote(pair[1]);
      if (section === 'settings') settingsStart = lineStart;
      if (section === 'settings') settingsEnd = lineEnd;
      continue;
    }
    if (section === 'settings') {
      settingsEnd = lineEnd;
      continue;
    }
    if (section === 'catalogs') {
      if (indent === 2) {
        closeCatalogEntry();
        catalog = splitKey(text.slice(at, lineEnd))?.[0] ?? text.slice(at, lineEnd);
      } else if (indent === 4) {
        closeCatalogEntry();
        catalogEntry = { key: splitKey(text.slice(at, lineEnd))?.[0] ?? text.slice(at, lineEnd), start: lineStart, end: lineEnd };
      } else if (catalogEntry !== undefined) catalogEntry.end = lineEnd;
      continue;
    }
    if (section !== 'importers' && section !== 'packages' && section !== 'snapshots') continue;
    if (indent === 2) {
      closeEntry();
      const key = plainKey(text, at, lineEnd) ?? splitKey(text.slice(at, lineEnd))?.[0];
      if (key === undefined) throw broken(path, no, `expected an entry "key:" in ${section}`);
      entry = { key, start: lineStart, end: lineEnd, deps: [], group: false, dep: undefined };
      continue;
    }
    if (entry === undefined) throw broken(path, no, `expected an entry before nested lines in ${section}`);
    entry.end = lineEnd;
    if (section === 'packages') continue;
    if (indent === 4) {
      closeDep(entry);
      entry.group = startsAt(text, at, 'dependencies:') || startsAt(text, at, 'optionalDependencies:') || (section === 'importers' && startsAt(text, at, 'devDependencies:'));
      if (entry.group) {
        const pair = splitKey(text.slice(at, lineEnd));
        if (pair !== undefined && pair[1].startsWith('{')) {
          for (const [name, ref] of flowPairs(pair[1])) entry.deps.push({ name, ref });
          entry.group = false;
        }
      }
      continue;
    }
    if (!entry.group) continue;
    if (indent === 6 && section === 'snapshots') {
      // The hot line (`      name: version`): two slices, no intermediate strings.
      const colon = text.charCodeAt(at) === 39 || text.charCodeAt(at) === 34 ? -1 : text.indexOf(': ', at);
      if (colon !== -1 && colon < lineEnd) {
        const ref = text.slice(colon + 2, lineEnd);
        entry.deps.push({ name: text.slice(at, colon), ref: ref.charCodeAt(0) === 39 || ref.charCodeAt(0) === 34 ? unquote(ref) : ref });
        continue;
      }
    }
    if (indent === 6) {
      closeDep(entry);
      const pair = splitKey(text.slice(at, lineEnd));
      if (pair === undefined) throw broken(path, no, 'expected "name:" in a dependency map');
      if (section === 'snapshots') entry.deps.push({ name: pair[0], ref: unquote(pair[1]) });
      else if (pair[1].startsWith('{')) {
        const fields = new Map(flowPairs(pair[1]));
        const ref = fields.get('version');
        const specifier = fields.get('specifier');
        if (ref !== undefined) entry.deps.push(specifier === undefined ? { name: pair[0], ref } : { name: pair[0], ref, specifier });
      } else entry.dep = { name: pair[0] };
    } else if (indent === 8 && entry.dep !== undefined) {
      if (startsAt(text, at, 'version:')) entry.dep.ref = unquote(text.slice(at + 8, lineEnd));
      else if (startsAt(text, at, 'specifier:')) entry.dep.specifier = unquote(text.slice(at + 10, lineEnd));
    }
  }
  closeEntry();
  closeCatalogEntry();
  if (lockfileVersion === '') throw broken(path, main.line, 'the main document has no lockfileVersion');
  const settingsText = settingsStart === -1 ? '' : text.slice(settingsStart, settingsEnd);
  return { lockfileVersion, settingsText, importers, packages, snapshots, catalogs, hadEnvDocument: docs.length === 2 };
}

interface DocumentSpan {
  readonly from: number;
  readonly to: number;
  /** 1-based line number of the document's first line. */
  readonly line: number;
}

/** The non-empty YAML documents of `text`, split at `---` lines (one regex pass, no line split). */
function documents(text: string): DocumentSpan[] {
  const spans: DocumentSpan[] = [];
  let from = 0;
  let startLine = 1;
  let linesBefore = 1;
  let counted = 0;
  const lineAt = (offset: number): number => {
    for (let i = text.indexOf('\n', counted); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) linesBefore++, (counted = i + 1);
    return linesBefore;
  };
  const push = (to: number): void => {
    if (text.slice(from, to).trim() !== '') spans.push({ from, to, line: startLine });
  };
  for (const match of text.matchAll(/^---[ \t]*\r?$/gm)) {
    push(match.index);
    from = Math.min(text.length, match.index + match[0].length + 1);
    startLine = lineAt(match.index) + 1;
  }
  push(text.length);
  return spans;
}
