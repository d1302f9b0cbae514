// Scalars of the YAML a pnpm lockfile is written in, read in place: where quoted and plain scalars end, what
// type js-yaml gives a plain one, and how a quoted one decodes.
//
// Owns: the character tests every part of the reader shares, `unquote`, `plainType` / `plainTypeAt` (js-yaml's
// default schema: null, bool, int, float, timestamp, the merge key) and the key string js-yaml compares
// duplicates by, where a plain scalar may start (`startProblem`) and where it ends in block context
// (`plainEnd`, with one remembered search for "#" per document).
// Invariants: no recursion, no allocation but the strings asked for; a refusal goes through the caller's
// `Fail`, with an offset, never with text.

import type { LockguardError } from '../../../errors.js';

/** Deepest nesting read (block levels plus flow brackets); pnpm writes at most about 10. */
export const MAX_DEPTH = 64;

export const SPACE = 0x20;
export const TAB = 0x09;
export const isBlank = (code: number): boolean => code === SPACE || code === TAB;

/** A refusal at an offset of the document being read. */
export type Fail = (kind: 'broken' | 'unsupported', reason: string, offset: number) => LockguardError;

/** `'...'` starting at `at`: the offset after the closing quote, or -1 when it does not close before `end`. */
export function singleQuoteEnd(text: string, at: number, end: number): number {
  for (let i = at + 1; i < end; i++) {
    if (text.charCodeAt(i) !== 0x27) continue;
    if (text.charCodeAt(i + 1) === 0x27 && i + 1 < end) i++;
    else return i + 1;
  }
  return -1;
}

const DOUBLE_ESCAPES = /* @__PURE__ */ new Set('0abtnvfre "/\\N_LP\t'.split('').map((c) => c.charCodeAt(0)));
const HEX_ESCAPES = new Map([
  [0x78, 2],
  [0x75, 4],
  [0x55, 8],
]);
const isHex = (code: number): boolean =>
  (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);

/** `"..."` starting at `at`: the offset after the closing quote, -1 when it does not close, or -2 - offset of a bad escape. */
export function doubleQuoteEnd(text: string, at: number, end: number): number {
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
  if (text.length >= 2 && text.startsWith("'") && text.endsWith("'"))
    return text.includes("''") ? text.slice(1, -1).replaceAll("''", "'") : text.slice(1, -1);
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) return decodeDouble(text.slice(1, -1));
  return text;
}

const SIMPLE: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\x85',
  _: '\xa0',
  L: '\u2028',
  P: '\u2029',
};

function decodeDouble(body: string): string {
  if (!body.includes('\\')) return body;
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (_match, sequence: string) => {
    if (sequence.length > 1) {
      const code = Number.parseInt(sequence.slice(1), 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : '\uFFFD';
    }
    return SIMPLE[sequence] ?? sequence;
  });
}

/** What YAML (js-yaml's default schema, as pnpm reads it) makes of a plain scalar: a string, or another type. */
export type PlainType = 'string' | 'null' | 'bool' | 'int' | 'float' | 'timestamp' | 'merge';

const FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
const TIMESTAMP =
  /^[0-9]{4}-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9]{2})?))?$/;

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
  if (
    !(
      (first >= 0x30 && first <= 0x39) ||
      first === 0x2b ||
      first === 0x2d ||
      first === 0x2e ||
      first === 0x3c ||
      'tTfF'.includes(raw[0] as string)
    )
  )
    return 'string';
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
    if (
      first !== 0x74 &&
      first !== 0x54 &&
      first !== 0x66 &&
      first !== 0x46 &&
      first !== 0x6e &&
      first !== 0x4e &&
      first !== 0x7e &&
      first !== 0x3c
    )
      return 'string';
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
export function keyString(raw: string, type: PlainType): string {
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
      return String(
        body === '.inf'
          ? sign * Number.POSITIVE_INFINITY
          : body === '.nan'
            ? Number.NaN
            : sign * Number.parseFloat(body),
      );
    }
    case 'timestamp':
      return `\0date ${Date.parse(raw.replace(/[ \t]+/, 'T'))}`;
  }
}

/** The first offset in [at, end) that is not a blank. */
export function skipBlanks(text: string, at: number, end: number): number {
  while (at < end && isBlank(text.charCodeAt(at))) at++;
  return at;
}

/** After a value: only blanks, then an optional comment. Returns the value's end (blanks excluded) or fails. */
export function trailing(text: string, at: number, end: number, fail: Fail, what: string): void {
  const next = skipBlanks(text, at, end);
  if (next < end && !(text.charCodeAt(next) === 0x23 && next > at))
    throw fail('broken', `there is text after ${what} on its line`, next);
}

/** Plain-scalar start characters YAML reserves or gives another meaning (a value cannot start with them). */
export function startProblem(
  text: string,
  at: number,
  end: number,
  inFlow: boolean,
): ['broken' | 'unsupported', string] | undefined {
  const code = text.charCodeAt(at);
  const next = at + 1 < end ? text.charCodeAt(at + 1) : -1;
  const separated =
    next === -1 ||
    isBlank(next) ||
    (inFlow && (next === 0x2c || next === 0x5b || next === 0x5d || next === 0x7b || next === 0x7d));
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

// The next "#" at or after an offset, remembered: lines are read in order, so one search serves many of them
// (a lockfile often has none at all, or a few in URLs). Reset by readYamlLines for each document it reads
// (never compared by text: two equal 1 MB strings compare in linear time).
let hashFrom = 0;
let hashAt = -2;
export function resetHash(): void {
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
export function nextStop(text: string, at: number, end: number): number {
  let colon = text.indexOf(':', at);
  if (colon === -1 || colon > end) colon = end;
  const hash = nextHash(text, at);
  return Math.min(hash, colon);
}

/**
 * A plain scalar at `at` (block context): its end, blanks and comment excluded. Fails on a ": " inside it
 * (YAML reads a nested mapping there, which a compact line cannot hold).
 */
export function plainEnd(text: string, at: number, end: number, fail: Fail): number {
  let stop = end;
  for (let i = nextStop(text, at, end); i < end; i = nextStop(text, i + 1, end)) {
    if (text.charCodeAt(i) === 0x3a) {
      if (i + 1 === end || isBlank(text.charCodeAt(i + 1)))
        throw fail('broken', 'a plain value holds ": " (a mapping cannot start inside a value)', i);
    } else if (isBlank(text.charCodeAt(i - 1))) {
      stop = i;
      break;
    }
  }
  while (stop > at && isBlank(text.charCodeAt(stop - 1))) stop--;
  return stop;
}
