// The YAML a pnpm lockfile is written in, read line by line: block structure from indentation, one key and
// value per line, nothing built into objects and nothing expanded.
//
// Owns: decoding a pnpm lockfile as pnpm reads it (UTF-8, which pnpm 12 requires; a BOM dropped; CRLF and a
// lone CR are line breaks, as YAML says), splitting it into documents at `---` lines, and `readYamlLines`:
// every content line of a document with its depth, key and value. It refuses what pnpm's YAML parser
// refuses (ERR_LOCKGUARD_BROKEN_LOCKFILE: a duplicate key, a tab or a bad indentation, a quote or flow
// collection not closed, a stray colon or indicator, a non-printable character, invalid UTF-8) and what YAML
// allows but pnpm never writes and a line reader cannot read faithfully (ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE:
// anchors, aliases and tags, complex keys, directives, a block scalar with an explicit indentation, nesting
// deeper than 64 levels). A value continued on the next line is refused as broken (pnpm writes each on one).
// Invariants: every refusal is a fixed reason plus a line and a column, never text from the file; one pass
// over the lines and no recursion (flow collections are read with an explicit stack), so no input can make
// it overflow the stack, expand an alias, or take more than linear time.

import { isUtf8 } from 'node:buffer';
import type { LockguardError } from '../errors.js';
import { brokenLockfile, positionAt, unsupportedLockfile } from '../lockfile-errors.js';

/** How a line's value is written. */
export type ValueKind = 'none' | 'plain' | 'single' | 'double' | 'flow' | 'block';

/**
 * One content line (comment and blank lines are not reported; block scalar content lines are, as kind
 * 'block'). The reader passes the same object for every line: read it during the call, keep nothing of it.
 */
export interface YamlLine {
  /** 1-based line number. */
  readonly line: number;
  /** Offset of the line's first character. */
  readonly start: number;
  /** Offset just after the line's content (trailing blanks and comment excluded). */
  readonly end: number;
  /** Nesting depth: 0 for the document's top-level keys; a compact `- key:` line has its mapping's depth. */
  readonly depth: number;
  /** The line is a sequence entry (`- ...`). */
  readonly item: boolean;
  /** The key, decoded (`'@a/b@1.0.0'` -> `@a/b@1.0.0`); undefined for a plain sequence entry or scalar content. */
  readonly key: string | undefined;
  /** Offset and end of the key as written (its quotes included, when quoted). */
  readonly keyAt: number;
  readonly keyEnd: number;
  readonly kind: ValueKind;
  /** Offset and end of the value as written (quotes and brackets included); equal when there is none. */
  readonly valueAt: number;
  readonly valueEnd: number;
  /** Whether the key is `name` (no string is made for a plain key). */
  keyIs(name: string): boolean;
}

export interface DocumentSpan {
  readonly from: number;
  readonly to: number;
  /** 1-based line number of the document's first line. */
  readonly line: number;
}

/** Deepest nesting read (block levels plus flow brackets); pnpm writes at most about 10. */
export const MAX_DEPTH = 64;

// js-yaml's "non-printable characters" (C0 controls but tab and line breaks, DEL, C1 but NEL, U+FFFE/FFFF).
const NON_PRINTABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]/;

/** The lockfile's text as pnpm reads it, line breaks normalized to "\n"; throws for invalid UTF-8 or a non-printable character. */
export function decodePnpmLockfile(bytes: Uint8Array, path: string): string {
  if (!isUtf8(bytes)) {
    const at = firstInvalidUtf8(bytes);
    const before = Buffer.from(bytes.buffer, bytes.byteOffset, at).toString('utf8');
    const normalized = before.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
    throw brokenLockfile(path, 'it is not valid UTF-8', positionAt(normalized, normalized.length));
  }
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
  const bad = NON_PRINTABLE.exec(text);
  if (bad !== null) throw brokenLockfile(path, bad[0] === '\0' ? 'it holds a NUL byte' : 'it holds a non-printable character', positionAt(text, bad.index));
  return text;
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const byte = bytes[i] as number;
    const length = byte < 0x80 ? 1 : byte >= 0xc2 && byte < 0xe0 ? 2 : byte >= 0xe0 && byte < 0xf0 ? 3 : byte >= 0xf0 && byte < 0xf5 ? 4 : 0;
    if (length === 0) return i;
    const slice = bytes.subarray(i, i + length);
    if (slice.length < length || !isUtf8(slice)) return i;
    i += length;
  }
  return bytes.length;
}

/** The non-empty YAML documents of `text`, split at `---` lines. */
export function yamlDocuments(text: string): DocumentSpan[] {
  const spans: DocumentSpan[] = [];
  let from = 0;
  let line = 1;
  let counted = 0;
  let linesBefore = 1;
  const lineAt = (offset: number): number => {
    for (let i = text.indexOf('\n', counted); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) linesBefore++, (counted = i + 1);
    return linesBefore;
  };
  const push = (to: number): void => {
    if (text.slice(from, to).trim() !== '') spans.push({ from, to, line });
  };
  for (const match of text.matchAll(/^---[ \t]*$/gm)) {
    push(match.index);
    from = Math.min(text.length, match.index + match[0].length + 1);
    line = lineAt(match.index) + 1;
  }
  push(text.length);
  return spans;
}

const SPACE = 0x20;
const TAB = 0x09;
const isBlank = (code: number): boolean => code === SPACE || code === TAB;

/** A refusal at an offset of the document being read. */
type Fail = (kind: 'broken' | 'unsupported', reason: string, offset: number) => LockguardError;

/** `'...'` starting at `at`: the offset after the closing quote, or -1 when it does not close before `end`. */
function singleQuoteEnd(text: string, at: number, end: number): number {
  for (let i = at + 1; i < end; i++) {
    if (text.charCodeAt(i) !== 0x27) continue;
    if (text.charCodeAt(i + 1) === 0x27 && i + 1 < end) i++;
    else return i + 1;
  }
  return -1;
}

const DOUBLE_ESCAPES = new Set('0abtnvfre "/\\N_LP\t'.split('').map((c) => c.charCodeAt(0)));
const HEX_ESCAPES = new Map([
  [0x78, 2],
  [0x75, 4],
  [0x55, 8],
]);
const isHex = (code: number): boolean => (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);

/** `"..."` starting at `at`: the offset after the closing quote, -1 when it does not close, or -2 - offset of a bad escape. */
function doubleQuoteEnd(text: string, at: number, end: number): number {
  for (let i = at + 1; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code !== 0x5c) continue;
    if (i + 1 >= end) return -1;
    const next = text.charCodeAt(i + 1);
    const digits = HEX_ESCAPES.get(next);
    if (digits !== undefined) {
      for (let k = 0; k < digits; k++) if (!isHex(text.charCodeAt(i + 2 + k)) || i + 2 + k >= end) return -2 - i;
      i += 1 + digits;
    } else if (DOUBLE_ESCAPES.has(next)) i++;
    else return -2 - i;
  }
  return -1;
}

/** A scalar as pnpm writes it, decoded: plain, 'single' ('' is a quote) or "double" (YAML escapes). */
export function unquote(raw: string): string {
  const text = isBlank(raw.charCodeAt(0)) || isBlank(raw.charCodeAt(raw.length - 1)) ? raw.trim() : raw;
  if (text.length >= 2 && text.startsWith("'") && text.endsWith("'")) return text.includes("''") ? text.slice(1, -1).replaceAll("''", "'") : text.slice(1, -1);
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) return decodeDouble(text.slice(1, -1));
  return text;
}

const SIMPLE: Record<string, string> = { '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b', ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\x85', _: '\xa0', L: '\u2028', P: '\u2029' };

function decodeDouble(body: string): string {
  if (!body.includes('\\')) return body;
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (_match, escape: string) => {
    if (escape.length > 1) {
      const code = Number.parseInt(escape.slice(1), 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : '\uFFFD';
    }
    return SIMPLE[escape] ?? escape;
  });
}

/** What YAML (js-yaml's default schema, as pnpm reads it) makes of a plain scalar: a string, or another type. */
export type PlainType = 'string' | 'null' | 'bool' | 'int' | 'float' | 'timestamp' | 'merge';

const FLOAT = /^(?:[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
const TIMESTAMP = /^[0-9]{4}-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9]{2})?))?$/;

function isYamlInt(data: string): boolean {
  let i = 0;
  let digits = false;
  let ch = data[i];
  if (ch === '-' || ch === '+') ch = data[++i];
  if (ch === undefined) return false;
  if (ch === '0') {
    if (i + 1 === data.length) return true;
    ch = data[++i];
    const radix = ch === 'b' ? /[01]/ : ch === 'x' ? /[0-9a-fA-F]/ : ch === 'o' ? /[0-7]/ : undefined;
    if (radix !== undefined) {
      for (i++; i < data.length; i++) {
        ch = data[i];
        if (ch === '_') continue;
        if (!radix.test(ch as string)) return false;
        digits = true;
      }
      return digits && ch !== '_';
    }
  }
  if (ch === '_') return false;
  for (; i < data.length; i++) {
    ch = data[i];
    if (ch === '_') continue;
    if (!(ch !== undefined && ch >= '0' && ch <= '9')) return false;
    digits = true;
  }
  return digits && ch !== '_';
}

/** The type js-yaml gives a plain scalar (quoted scalars are always strings). */
export function plainType(raw: string): PlainType {
  if (raw === '' || raw === '~' || raw === 'null' || raw === 'Null' || raw === 'NULL') return 'null';
  const first = raw.charCodeAt(0);
  // Most keys and values start with a letter other than these, or with "@": strings, no pattern to run.
  if (!((first >= 0x30 && first <= 0x39) || first === 0x2b || first === 0x2d || first === 0x2e || first === 0x3c || 'tTfF'.includes(raw[0] as string))) return 'string';
  if (/^(?:true|True|TRUE|false|False|FALSE)$/.test(raw)) return 'bool';
  if (isYamlInt(raw)) return 'int';
  if (FLOAT.test(raw) && !raw.endsWith('_')) return 'float';
  if (DATE.test(raw) || TIMESTAMP.test(raw)) return 'timestamp';
  if (raw === '<<') return 'merge';
  return 'string';
}

const KEYWORDS = new Set(['true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'null', 'Null', 'NULL', '~', '<<']);

/**
 * plainType of text[at, end), making no string for the common cases: a scalar that starts like a word, a
 * keyword-like one that is not a keyword, and a version (two dots: no YAML number or date has them).
 */
export function plainTypeAt(text: string, at: number, end: number): PlainType {
  if (end === at) return 'null';
  const first = text.charCodeAt(at);
  const digitLike = (first >= 0x30 && first <= 0x39) || first === 0x2b || first === 0x2d || first === 0x2e;
  if (!digitLike) {
    const length = end - at;
    // true/false/null in their three spellings, ~ and <<: anything else is a string.
    if (length !== 1 && length !== 2 && length !== 4 && length !== 5) return 'string';
    if (first !== 0x74 && first !== 0x54 && first !== 0x66 && first !== 0x46 && first !== 0x6e && first !== 0x4e && first !== 0x7e && first !== 0x3c) return 'string';
    const word = text.slice(at, end);
    return KEYWORDS.has(word) ? plainType(word) : 'string';
  }
  const dot = text.indexOf('.', at + 1);
  if (dot !== -1 && dot < end - 1 && first !== 0x2e) {
    const second = text.indexOf('.', dot + 1);
    if (second !== -1 && second < end && text.charCodeAt(at + 4) !== 0x2d) return 'string';
  }
  return plainType(text.slice(at, end));
}

/** The string js-yaml keys a mapping entry by, for a plain key of another type (its duplicate check compares these). */
function keyString(raw: string, type: PlainType): string {
  switch (type) {
    case 'string':
    case 'merge':
      return raw;
    case 'null':
      return 'null';
    case 'bool':
      return raw.toLowerCase();
    case 'int': {
      const clean = raw.replaceAll('_', '');
      const sign = clean.startsWith('-') ? -1 : 1;
      const body = clean.replace(/^[-+]/, '');
      const radix = body.startsWith('0b') ? 2 : body.startsWith('0x') ? 16 : body.startsWith('0o') ? 8 : 10;
      return String(sign * Number.parseInt(radix === 10 ? body : body.slice(2), radix));
    }
    case 'float': {
      const clean = raw.replaceAll('_', '').toLowerCase();
      const sign = clean.startsWith('-') ? -1 : 1;
      const body = clean.replace(/^[-+]/, '');
      return String(body === '.inf' ? sign * Number.POSITIVE_INFINITY : body === '.nan' ? Number.NaN : sign * Number.parseFloat(body));
    }
    case 'timestamp':
      return `\0date ${Date.parse(raw.replace(/[ \t]+/, 'T'))}`;
  }
}

/** The first offset in [at, end) that is not a blank. */
function skipBlanks(text: string, at: number, end: number): number {
  while (at < end && isBlank(text.charCodeAt(at))) at++;
  return at;
}

/** After a value: only blanks, then an optional comment. Returns the value's end (blanks excluded) or fails. */
function trailing(text: string, at: number, end: number, fail: Fail, what: string): void {
  const next = skipBlanks(text, at, end);
  if (next < end && !(text.charCodeAt(next) === 0x23 && next > at)) throw fail('broken', `there is text after ${what} on its line`, next);
}

/** Plain-scalar start characters YAML reserves or gives another meaning (a value cannot start with them). */
function startProblem(text: string, at: number, end: number, inFlow: boolean): ['broken' | 'unsupported', string] | undefined {
  const code = text.charCodeAt(at);
  const next = at + 1 < end ? text.charCodeAt(at + 1) : -1;
  const separated = next === -1 || isBlank(next) || (inFlow && (next === 0x2c || next === 0x5b || next === 0x5d || next === 0x7b || next === 0x7d));
  switch (code) {
    case 0x26: // &
    case 0x2a: // *
    case 0x21: // !
      return ['unsupported', 'a YAML anchor, alias or tag'];
    case 0x40: // @
    case 0x60: // `
      return ['broken', 'a plain value starts with a reserved character'];
    case 0x25: // %
      return ['broken', 'a plain value starts with "%"'];
    case 0x7c: // |
    case 0x3e: // >
      return inFlow ? ['broken', 'a block scalar inside a flow collection'] : undefined;
    case 0x2c: // ,
    case 0x5d: // ]
    case 0x7d: // }
      return ['broken', 'a flow indicator is out of place'];
    case 0x3f: // ?
      return separated ? ['unsupported', 'a YAML complex key ("? ")'] : undefined;
    case 0x3a: // :
      return separated ? ['broken', 'a key is missing before ":"'] : undefined;
    case 0x2d: // -
      return separated ? ['broken', 'a sequence entry is out of place'] : undefined;
    default:
      return undefined;
  }
}

// Runs of characters that cannot end or change a plain scalar in a flow collection (sticky: `lastIndex` is
// where the run stops).
const FLOW_RUN = /[^,[\]{}:#\n]*/y;

/** Where a run of `run` characters starting at `at` stops. */
function runEnd(run: RegExp, text: string, at: number): number {
  run.lastIndex = at;
  run.test(text);
  return run.lastIndex;
}

// The next "#" at or after an offset, remembered: lines are read in order, so one search serves many of them
// (a lockfile often has none at all, or a few in URLs). Reset by readYamlLines for each document it reads
// (never compared by text: two equal 1 MB strings compare in linear time).
let hashFrom = 0;
let hashAt = -2;
function resetHash(): void {
  hashFrom = 0;
  hashAt = -2;
}
function nextHash(text: string, from: number): number {
  if (hashAt === -2 || from < hashFrom || (hashAt !== -1 && from > hashAt)) {
    hashFrom = from;
    hashAt = text.indexOf('#', from);
  }
  return hashAt === -1 ? text.length : hashAt;
}

/** The first ":" or "#" in [at, end), or `end`. */
function nextStop(text: string, at: number, end: number): number {
  let colon = text.indexOf(':', at);
  if (colon === -1 || colon > end) colon = end;
  const hash = nextHash(text, at);
  return hash < colon ? hash : colon;
}

/**
 * A plain scalar at `at` (block context): its end, blanks and comment excluded. Fails on a ": " inside it
 * (YAML reads a nested mapping there, which a compact line cannot hold).
 */
function plainEnd(text: string, at: number, end: number, fail: Fail): number {
  let stop = end;
  for (let i = nextStop(text, at, end); i < end; i = nextStop(text, i + 1, end)) {
    if (text.charCodeAt(i) === 0x3a) {
      if (i + 1 === end || isBlank(text.charCodeAt(i + 1))) throw fail('broken', 'a plain value holds ": " (a mapping cannot start inside a value)', i);
    } else if (isBlank(text.charCodeAt(i - 1))) {
      stop = i;
      break;
    }
  }
  while (stop > at && isBlank(text.charCodeAt(stop - 1))) stop--;
  return stop;
}

interface FlowFrame {
  readonly map: boolean;
  readonly open: number;
  /** entry: at the start or after a comma; value: after a key's colon; after: after an entry. */
  state: 'entry' | 'value' | 'after';
  keys: Set<string> | undefined;
}

/**
 * A flow collection (`{...}` / `[...]`) at `at`, on one line: its end. Checks what js-yaml checks (closing
 * brackets, commas, colons, duplicate keys) and refuses anchors, aliases, tags and complex keys.
 * `pairs`, when given, receives the top-level `key: scalar` pairs of a flow mapping (decoded; undefined for a
 * nested collection or a missing value).
 */
export function flowEnd(text: string, at: number, end: number, fail: Fail, depth: number, pairs?: [string, string | undefined][]): number {
  const stack: FlowFrame[] = [];
  let i = at;
  let pendingKey: string | undefined;
  const open = (map: boolean): void => {
    if (depth + stack.length >= MAX_DEPTH) throw fail('unsupported', `nesting deeper than ${MAX_DEPTH} levels`, i);
    stack.push({ map, open: i, state: 'entry', keys: undefined });
    i++;
  };
  open(text.charCodeAt(at) === 0x7b);
  while (stack.length > 0) {
    i = skipBlanks(text, i, end);
    const top = stack[stack.length - 1] as FlowFrame;
    if (i >= end) throw fail('broken', top.map ? 'a flow mapping ("{") is not closed on its line' : 'a flow sequence ("[") is not closed on its line', top.open);
    const code = text.charCodeAt(i);
    const close = top.map ? 0x7d : 0x5d;
    if (code === close && top.state !== 'value') {
      stack.pop();
      i++;
      const parent = stack[stack.length - 1];
      if (parent !== undefined) parent.state = 'after';
      continue;
    }
    if (code === close && top.state === 'value') {
      if (stack.length === 1 && pairs !== undefined && pendingKey !== undefined) pairs.push([pendingKey, undefined]);
      stack.pop();
      i++;
      const parent = stack[stack.length - 1];
      if (parent !== undefined) parent.state = 'after';
      continue;
    }
    if (top.state === 'after') {
      if (code !== 0x2c) throw fail('broken', top.map ? 'expected "," or "}" in a flow mapping' : 'expected "," or "]" in a flow sequence', i);
      i++;
      top.state = 'entry';
      continue;
    }
    if (code === 0x2c) {
      if (top.state === 'value') {
        if (stack.length === 1 && pairs !== undefined && pendingKey !== undefined) pairs.push([pendingKey, undefined]);
        i++;
        top.state = 'entry';
        continue;
      }
      throw fail('broken', 'an empty entry in a flow collection', i);
    }
    if (code === 0x5d || code === 0x7d) throw fail('broken', 'a closing bracket does not match its opening one', i);
    if (code === 0x23) throw fail('broken', 'a comment inside a flow collection', i);
    // A node: a nested collection, a quoted scalar or a plain one.
    const nodeAt = i;
    let scalar: string | undefined;
    let quoted = false;
    if (code === 0x7b || code === 0x5b) {
      if (top.map && top.state === 'entry') throw fail('unsupported', 'a YAML complex key (a collection as a key)', i);
      top.state = 'after';
      if (stack.length === 1 && pairs !== undefined && pendingKey !== undefined) pairs.push([pendingKey, undefined]);
      open(code === 0x7b);
      continue;
    }
    if (code === 0x27 || code === 0x22) {
      const stop = code === 0x27 ? singleQuoteEnd(text, i, end) : doubleQuoteEnd(text, i, end);
      if (stop === -1) throw fail('broken', 'a quoted value is not closed on its line', i);
      if (stop < -1) throw fail('broken', 'a double-quoted value holds an invalid escape', -2 - stop);
      scalar = unquote(text.slice(i, stop));
      quoted = true;
      i = stop;
    } else {
      const problem = startProblem(text, i, end, true);
      if (problem !== undefined) throw fail(problem[0], problem[1], i);
      for (i = runEnd(FLOW_RUN, text, i); i < end; i = runEnd(FLOW_RUN, text, i + 1)) {
        const c = text.charCodeAt(i);
        if (c === 0x2c || c === 0x5d || c === 0x7d) break;
        if (c === 0x5b || c === 0x7b) throw fail('broken', 'a flow indicator inside a plain value', i);
        if (c === 0x3a) {
          const after = i + 1 < end ? text.charCodeAt(i + 1) : -1;
          if (after === -1 || isBlank(after) || after === 0x2c || after === 0x5d || after === 0x7d) break;
        } else if (isBlank(text.charCodeAt(i - 1))) throw fail('broken', 'a comment inside a flow collection', i);
      }
      if (i > end) i = end;
      let last = i;
      while (last > nodeAt && isBlank(text.charCodeAt(last - 1))) last--;
      scalar = text.slice(nodeAt, last);
      i = last;
    }
    i = skipBlanks(text, i, end);
    const isKey = i < end && text.charCodeAt(i) === 0x3a;
    if (top.map && top.state === 'entry') {
      if (!isKey) throw fail('broken', 'expected "key: value" in a flow mapping', nodeAt);
      if (top.keys === undefined) top.keys = new Set();
      const type = quoted ? 'string' : plainType(scalar);
      if (type === 'merge') throw fail('unsupported', 'a YAML merge key ("<<")', nodeAt);
      const dupKey = type === 'string' ? scalar : keyString(scalar, type);
      if (top.keys.has(dupKey)) throw fail('broken', 'a flow mapping has a duplicate key', nodeAt);
      top.keys.add(dupKey);
      pendingKey = scalar;
      i++;
      top.state = 'value';
      continue;
    }
    if (isKey) throw fail(top.map ? 'broken' : 'unsupported', top.map ? 'a flow mapping value holds ":"' : 'a mapping inside a flow sequence', i);
    if (top.map && stack.length === 1 && pairs !== undefined && pendingKey !== undefined) pairs.push([pendingKey, scalar]);
    top.state = 'after';
  }
  return i;
}

// The line shapes pnpm writes most, as sticky patterns: each accepts only text the general path below
// accepts with the same reading (checked by the same tests), so they change nothing but the speed. A key of
// word characters (no quote, no colon, no space) and its colon, or a single-quoted key with no quote in it:
const SIMPLE_KEY = /[A-Za-z_][\w./@+-]*:/y;
const SIMPLE_QUOTED_KEY = /'[^'\n]*':/y;
// after ": ", a plain value of version characters (no indicator first; no blank, "#", bracket or comma in it,
// and a colon only before a character that is no blank: `link:../a`, `workspace:*`),
const SIMPLE_PLAIN = /[\w^~<=+./](?:[\w.^~<>=+/()@*-]|:(?=[^\s]))*/y;
// `{}` or a one-pair flow mapping of such a plain scalar or a single-quoted one without '' in it,
const SIMPLE_MAP = /\{(?:\}|[A-Za-z][\w-]*: (?:[\w+/=.][\w+/=.-]*|'[^'\n]*')\})/y;
// or a flow sequence of word items.
const SIMPLE_SEQ = /\[[\w.][\w.-]*(?:, [\w.][\w.-]*)*\]/y;

/** The kind of the value after a simple key's colon at `colon` when it is one of the simple shapes and fills the line; else undefined. */
function simpleValue(text: string, colon: number, end: number): ValueKind | undefined {
  if (text.charCodeAt(colon + 1) !== SPACE) return undefined;
  const at = colon + 2;
  const code = text.charCodeAt(at);
  const pattern = code === 0x7b ? SIMPLE_MAP : code === 0x5b ? SIMPLE_SEQ : SIMPLE_PLAIN;
  pattern.lastIndex = at;
  if (!pattern.test(text) || pattern.lastIndex !== end) return undefined;
  return pattern === SIMPLE_PLAIN ? 'plain' : 'flow';
}

/** What readValue and readKey found (one object, reused: they run once per line). */
const found = { kind: 'none' as ValueKind, at: 0, end: 0, keyEnd: 0, after: 0 };

/** The value of a line at `at` (after "key:" or "- ") into `found` (kind, at, end); checks it is whole on the line. */
function readValue(text: string, at: number, end: number, fail: Fail, depth: number): void {
  const start = skipBlanks(text, at, end);
  found.at = start;
  found.end = start;
  found.kind = 'none';
  if (start >= end) return;
  const code = text.charCodeAt(start);
  if (code === 0x23) {
    if (start === at) throw fail('broken', 'a comment must be separated from a key by a space', start);
    return;
  }
  if (code === 0x27 || code === 0x22) {
    const stop = code === 0x27 ? singleQuoteEnd(text, start, end) : doubleQuoteEnd(text, start, end);
    if (stop === -1) throw fail('broken', 'a quoted value is not closed on its line', start);
    if (stop < -1) throw fail('broken', 'a double-quoted value holds an invalid escape', -2 - stop);
    trailing(text, stop, end, fail, 'a quoted value');
    found.kind = code === 0x27 ? 'single' : 'double';
    found.end = stop;
    return;
  }
  if (code === 0x7b || code === 0x5b) {
    const stop = flowEnd(text, start, end, fail, depth);
    trailing(text, stop, end, fail, 'a flow collection');
    found.kind = 'flow';
    found.end = stop;
    return;
  }
  if (code === 0x7c || code === 0x3e) {
    let i = start + 1;
    for (; i < end && !isBlank(text.charCodeAt(i)); i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x31 && c <= 0x39) throw fail('unsupported', 'a block scalar with an explicit indentation', i);
      if (c !== 0x2b && c !== 0x2d) throw fail('broken', 'a block scalar header is malformed', i);
    }
    if (i > start + 2) throw fail('broken', 'a block scalar header is malformed', start);
    trailing(text, i, end, fail, 'a block scalar header');
    found.kind = 'block';
    found.end = i;
    return;
  }
  const problem = startProblem(text, start, end, false);
  if (problem !== undefined) throw fail(problem[0], problem[1], start);
  found.kind = 'plain';
  found.end = plainEnd(text, start, end, fail);
}

/**
 * A key at `at` followed by ":" and a blank or the line end: true, with the key's end (as written) in
 * `found.keyEnd` and the offset after the colon in `found.after`; false when the line holds no key there (a
 * plain or quoted scalar, for a sequence entry).
 */
function readKey(text: string, at: number, end: number, fail: Fail): boolean {
  const code = text.charCodeAt(at);
  if (code === 0x27 || code === 0x22) {
    const stop = code === 0x27 ? singleQuoteEnd(text, at, end) : doubleQuoteEnd(text, at, end);
    if (stop === -1) throw fail('broken', 'a quoted key or value is not closed on its line', at);
    if (stop < -1) throw fail('broken', 'a double-quoted value holds an invalid escape', -2 - stop);
    const colon = skipBlanks(text, stop, end);
    if (colon >= end || text.charCodeAt(colon) !== 0x3a) return false;
    if (colon + 1 < end && !isBlank(text.charCodeAt(colon + 1))) throw fail('broken', 'expected a space after ":"', colon + 1);
    found.keyEnd = stop;
    found.after = colon + 1;
    return true;
  }
  if (code === 0x7b || code === 0x5b) return false;
  const problem = startProblem(text, at, end, false);
  if (problem !== undefined && code !== 0x7c && code !== 0x3e) throw fail(problem[0], problem[1], at);
  for (let i = nextStop(text, at, end); i < end; i = nextStop(text, i + 1, end)) {
    if (text.charCodeAt(i) === 0x23) {
      if (isBlank(text.charCodeAt(i - 1))) return false;
      continue;
    }
    if (i + 1 === end || isBlank(text.charCodeAt(i + 1))) {
      let stop = i;
      while (stop > at && isBlank(text.charCodeAt(stop - 1))) stop--;
      if (code === 0x7c || code === 0x3e) throw fail('broken', 'a key starts with a block scalar indicator', at);
      found.keyEnd = stop;
      found.after = i + 1;
      return true;
    }
  }
  return false;
}

/** A mapping with more keys than this checks duplicates with a set of strings. */
const SMALL_MAPPING = 12;

/** Whether text[a, a + length) equals text[b, b + length). */
function sameSpan(text: string, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
  return true;
}

/** The line a reader reports, one object reused for every line; the key string is made only when asked for. */
class LineState implements YamlLine {
  line = 0;
  start = 0;
  end = 0;
  depth = 0;
  item = false;
  hasKey = false;
  keyAt = 0;
  keyEnd = 0;
  kind: ValueKind = 'none';
  valueAt = 0;
  valueEnd = 0;
  decoded: string | undefined = undefined;
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  get key(): string | undefined {
    if (!this.hasKey) return undefined;
    if (this.decoded === undefined) this.decoded = keyText(this.text, this.keyAt, this.keyEnd);
    return this.decoded;
  }

  set(lineNo: number, start: number, end: number, depth: number, item: boolean, hasKey: boolean, keyAt: number, keyEnd: number, kind: ValueKind, valueAt: number, valueEnd: number, decoded: string | undefined): void {
    this.line = lineNo;
    this.start = start;
    this.end = end;
    this.depth = depth;
    this.item = item;
    this.hasKey = hasKey;
    this.keyAt = keyAt;
    this.keyEnd = keyEnd;
    this.kind = kind;
    this.valueAt = valueAt;
    this.valueEnd = valueEnd;
    this.decoded = decoded;
  }

  keyIs(name: string): boolean {
    if (!this.hasKey) return false;
    const code = this.text.charCodeAt(this.keyAt);
    if (code === 0x27 || code === 0x22) return this.key === name;
    return this.keyEnd - this.keyAt === name.length && this.text.startsWith(name, this.keyAt);
  }
}

/** A key as written at [at, end), decoded. */
function keyText(text: string, at: number, end: number): string {
  const code = text.charCodeAt(at);
  return code === 0x27 || code === 0x22 ? unquote(text.slice(at, end)) : text.slice(at, end);
}

/**
 * The open blocks of a document, innermost at depth `top`, as parallel arrays reused from line to line:
 * nothing is allocated per mapping. A mapping's keys, as js-yaml compares them: plain string keys as offsets
 * (start, end), the others (quoted, or plain of another YAML type) as strings, and all as a set of strings
 * once the mapping is large.
 */
class Blocks {
  readonly indents: number[] = [];
  readonly seqs: boolean[] = [];
  readonly flushes: boolean[] = [];
  readonly plainKeys: number[][] = [];
  readonly namedKeys: string[][] = [];
  readonly plainCounts: number[] = [];
  readonly namedCounts: number[] = [];
  readonly keySets: (Set<string> | undefined)[] = [];

  /** Open a block at `depth`. */
  open(depth: number, indent: number, seq: boolean, flush: boolean): void {
    this.indents[depth] = indent;
    this.seqs[depth] = seq;
    this.flushes[depth] = flush;
    this.plainKeys[depth] ??= [];
    this.namedKeys[depth] ??= [];
    this.plainCounts[depth] = 0;
    this.namedCounts[depth] = 0;
    this.keySets[depth] = undefined;
  }

  /**
   * Record the key at [at, end) in the mapping at `depth`; throws for a duplicate. Returns the key as a
   * string when it made one (the line then hands the same string to the visitor).
   */
  addKey(text: string, depth: number, at: number, end: number, fail: Fail): string | undefined {
    const code = text.charCodeAt(at);
    const quoted = code === 0x27 || code === 0x22;
    const type = quoted ? 'string' : plainTypeAt(text, at, end);
    if (type === 'merge') throw fail('unsupported', 'a YAML merge key ("<<")', at);
    const set = this.keySets[depth];
    if (set !== undefined) {
      const decoded = quoted ? keyText(text, at, end) : text.slice(at, end);
      const key = type === 'string' ? decoded : keyString(decoded, type);
      if (set.has(key)) throw fail('broken', 'a mapping has a duplicate key', at);
      set.add(key);
      return decoded;
    }
    const plain = this.plainKeys[depth] as number[];
    const named = this.namedKeys[depth] as string[];
    const plainCount = this.plainCounts[depth] as number;
    const namedCount = this.namedCounts[depth] as number;
    let decoded: string | undefined;
    if (!quoted && type === 'string') {
      const length = end - at;
      const last = text.charCodeAt(end - 1);
      for (let i = 0; i < plainCount; i += 2) {
        const from = plain[i] as number;
        // Length, then last character (keys of one mapping mostly differ there), then the whole span.
        if ((plain[i + 1] as number) - from === length && text.charCodeAt(from + length - 1) === last && sameSpan(text, from, at, length)) throw fail('broken', 'a mapping has a duplicate key', at);
      }
      for (let i = 0; i < namedCount; i++) if ((named[i] as string).length === length && text.startsWith(named[i] as string, at)) throw fail('broken', 'a mapping has a duplicate key', at);
      plain[plainCount] = at;
      plain[plainCount + 1] = end;
      this.plainCounts[depth] = plainCount + 2;
    } else {
      decoded = quoted ? keyText(text, at, end) : text.slice(at, end);
      const key = type === 'string' ? decoded : keyString(decoded, type);
      for (let i = 0; i < namedCount; i++) if (named[i] === key) throw fail('broken', 'a mapping has a duplicate key', at);
      for (let i = 0; i < plainCount; i += 2) if ((plain[i + 1] as number) - (plain[i] as number) === key.length && text.startsWith(key, plain[i] as number)) throw fail('broken', 'a mapping has a duplicate key', at);
      named[namedCount] = key;
      this.namedCounts[depth] = namedCount + 1;
    }
    if ((this.plainCounts[depth] as number) / 2 + (this.namedCounts[depth] as number) > SMALL_MAPPING) {
      const all = new Set(named.slice(0, this.namedCounts[depth]));
      for (let i = 0; i < (this.plainCounts[depth] as number); i += 2) all.add(text.slice(plain[i] as number, plain[i + 1] as number));
      this.keySets[depth] = all;
    }
    return decoded;
  }
}

/**
 * Every content line of the document `doc`, in order, to `visit`; throws ERR_LOCKGUARD_BROKEN_LOCKFILE or
 * ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE (naming `path`, the reason, line and column) where the text leaves pnpm's
 * YAML. The top level must be a mapping. `simple: false` reads every line by the general path (for tests).
 */
export function readYamlLines(text: string, doc: DocumentSpan, path: string, visit: (line: YamlLine) => void, options: { readonly simple?: boolean } = {}): void {
  resetHash();
  // The simple shapes' shortcut (on unless told otherwise: a test reads every line both ways and compares).
  const simple = options.simple !== false;
  const blocks = new Blocks();
  // Where the line being read is, for errors (the loop's own counters stay locals: closures do not capture them).
  const where = { line: 0, start: 0 };
  const fail: Fail = (kind, reason, offset) => {
    const position = { line: where.line, column: offset - where.start + 1 };
    return kind === 'broken' ? brokenLockfile(path, reason, position) : unsupportedLockfile(path, reason, position);
  };
  const line = new LineState(text);
  const indents = blocks.indents;
  let top = -1;
  let lineNo = doc.line - 1;
  /** The last line opened a block ("key:" or "-" with nothing after): its indentation, else -1. */
  let opener = -1;
  let openerIsKey = false;
  /** Inside a block scalar: the indentation of the line that started it, and of its content (-1 until seen). */
  let scalarParent = -1;
  let scalarIndent = -1;
  let scalarDepth = 0;

  for (let pos = doc.from; pos < doc.to; ) {
    lineNo++;
    const lineStart = pos;
    let lineEnd = text.indexOf('\n', pos);
    if (lineEnd === -1 || lineEnd > doc.to) lineEnd = doc.to;
    pos = lineEnd + 1;
    where.line = lineNo;
    where.start = lineStart;
    let at = lineStart;
    while (at < lineEnd && text.charCodeAt(at) === SPACE) at++;
    const indent = at - lineStart;

    if (scalarParent !== -1) {
      if (skipBlanks(text, at, lineEnd) >= lineEnd) continue;
      if (scalarIndent === -1 && indent > scalarParent) scalarIndent = indent;
      if (scalarIndent !== -1 && indent >= scalarIndent) {
        line.set(lineNo, lineStart, lineEnd, scalarDepth, false, false, at, at, 'block', at, lineEnd, undefined);
        visit(line);
        continue;
      }
      scalarParent = -1;
      scalarIndent = -1;
    }
    if (at >= lineEnd) continue;
    let code = text.charCodeAt(at);
    if (code === TAB) {
      if (skipBlanks(text, at, lineEnd) >= lineEnd) continue;
      throw fail('broken', 'a tab is used for indentation', at);
    }
    if (code === 0x23) continue;
    if (indent === 0 && (code === 0x2d || code === 0x2e) && (text.startsWith('---', at) || text.startsWith('...', at)) && (at + 3 === lineEnd || isBlank(text.charCodeAt(at + 3)))) {
      throw fail('unsupported', 'a YAML document marker with text on its line, or a document end marker', at);
    }
    if (indent === 0 && code === 0x25) throw fail('unsupported', 'a YAML directive', at);

    const isItem = code === 0x2d && (at + 1 === lineEnd || isBlank(text.charCodeAt(at + 1)));
    // Where this line belongs: a new block under the opener, or the open block with its indentation.
    if (top === -1) {
      if (isItem) throw fail('broken', 'the top level is a sequence, not a mapping', at);
      blocks.open(++top, indent, false, false);
    } else if (opener !== -1 && indent > opener) {
      if (top + 1 >= MAX_DEPTH) throw fail('unsupported', `nesting deeper than ${MAX_DEPTH} levels`, at);
      blocks.open(++top, indent, isItem, false);
    } else if (opener !== -1 && indent === opener && isItem && openerIsKey) {
      if (top + 1 >= MAX_DEPTH) throw fail('unsupported', `nesting deeper than ${MAX_DEPTH} levels`, at);
      blocks.open(++top, indent, true, true);
    } else {
      while ((indents[top] as number) > indent || (blocks.flushes[top] === true && indents[top] === indent && !isItem)) {
        top--;
        if (top === -1) throw fail('broken', 'a line is indented less than the top level', at);
      }
      if (indents[top] !== indent) {
        throw fail('broken', (indents[top] as number) < indent ? 'a line is indented under a value that is already given on the line above' : 'a line is indented to no enclosing level', at);
      }
      if (blocks.seqs[top] === true && !isItem) throw fail('broken', 'expected a sequence entry ("- ")', at);
      if (blocks.seqs[top] !== true && isItem) throw fail('broken', 'a sequence entry inside a mapping', at);
    }
    opener = -1;
    let depth = top;

    if (isItem) {
      const content = skipBlanks(text, at + 1, lineEnd);
      if (content >= lineEnd || text.charCodeAt(content) === 0x23) {
        opener = indent;
        openerIsKey = false;
        line.set(lineNo, lineStart, at + 1, depth, true, false, content, content, 'none', content, content, undefined);
        visit(line);
        continue;
      }
      code = text.charCodeAt(content);
      if (code === 0x2d && (content + 1 === lineEnd || isBlank(text.charCodeAt(content + 1)))) throw fail('unsupported', 'a sequence nested on one line ("- - ")', content);
      if (!readKey(text, content, lineEnd, fail)) {
        readValue(text, content, lineEnd, fail, depth);
        if (found.kind === 'block') (scalarParent = indent), (scalarDepth = depth + 1);
        line.set(lineNo, lineStart, found.end, depth, true, false, content, content, found.kind, found.at, found.end, undefined);
        visit(line);
        continue;
      }
      // `- key: value`: a mapping whose keys sit at the key's column.
      const keyEnd = found.keyEnd;
      const after = found.after;
      if (top + 1 >= MAX_DEPTH) throw fail('unsupported', `nesting deeper than ${MAX_DEPTH} levels`, content);
      blocks.open(++top, content - lineStart, false, false);
      depth = top;
      const decoded = blocks.addKey(text, depth, content, keyEnd, fail);
      readValue(text, after, lineEnd, fail, depth);
      if (found.kind === 'none') (opener = content - lineStart), (openerIsKey = true);
      if (found.kind === 'block') (scalarParent = content - lineStart), (scalarDepth = depth + 1);
      line.set(lineNo, lineStart, found.kind === 'none' ? after : found.end, depth, true, true, content, keyEnd, found.kind, found.at, found.end, decoded);
      visit(line);
      continue;
    }

    // The lines pnpm writes most, recognized whole (see simpleValueEnd); anything else takes the general path.
    const keyPattern = code === 0x27 ? SIMPLE_QUOTED_KEY : SIMPLE_KEY;
    keyPattern.lastIndex = at;
    if (simple && keyPattern.test(text)) {
      const keyEnd = keyPattern.lastIndex - 1;
      const kind = keyEnd + 1 === lineEnd ? 'none' : simpleValue(text, keyEnd, lineEnd);
      if (kind !== undefined) {
        const decoded = blocks.addKey(text, depth, at, keyEnd, fail);
        const valueAt = kind === 'none' ? lineEnd : keyEnd + 2;
        if (kind === 'none') (opener = indent), (openerIsKey = true);
        line.set(lineNo, lineStart, lineEnd, depth, false, true, at, keyEnd, kind, valueAt, lineEnd, decoded);
        visit(line);
        continue;
      }
    }
    if (!readKey(text, at, lineEnd, fail)) {
      // Not "key: value": a scalar on its own line (a multi-line value, or a lost colon).
      readValue(text, at, lineEnd, fail, depth);
      throw fail('broken', 'expected "key: value" (a value continued on its own line is not read)', at);
    }
    const keyEnd = found.keyEnd;
    const after = found.after;
    const decoded = blocks.addKey(text, depth, at, keyEnd, fail);
    readValue(text, after, lineEnd, fail, depth);
    if (found.kind === 'none') (opener = indent), (openerIsKey = true);
    if (found.kind === 'block') (scalarParent = indent), (scalarDepth = depth + 1);
    line.set(lineNo, lineStart, found.kind === 'none' ? after : found.end, depth, false, true, at, keyEnd, found.kind, found.at, found.end, decoded);
    visit(line);
  }
}
