// Reading a JSON lockfile or install marker (package-lock.json, npm-shrinkwrap.json,
// node_modules/.package-lock.json) without ever echoing it.
//
// Owns: `parseLockfileJson` (a leading BOM dropped and CRLF read as npm reads them; JSON.parse for the
// value; on a failure, a scan of lockguard's own says why and where, as fields) and `jsonValuePosition` (the
// line and column of a member's value, for shape errors found after the parse).
// Invariants: an error is a fixed reason plus a line and a column, never the parser's message (Node 20's
// quotes the source around the error); the scan (`JsonScan`, a method per state it expects) is iterative,
// so no nesting depth can overflow the stack; duplicate keys read as JSON.parse and npm read them (the last
// one wins).

import type { TextPosition } from './errors.js';
import { brokenLockfile, lockfileText, positionAt } from './lockfile-errors.js';

/** The parsed value of a JSON lockfile's bytes; throws ERR_LOCKGUARD_BROKEN_LOCKFILE naming the reason, line and column. */
export function parseLockfileJson(
  bytes: Uint8Array,
  absPath: string,
): { readonly text: string; readonly value: unknown } {
  const text = lockfileText(bytes);
  try {
    return { text, value: JSON.parse(text) };
  } catch {
    const problem = scanJson(text) ?? { reason: 'it is not valid JSON', at: 0 };
    throw brokenLockfile(absPath, problem.reason, positionAt(text, problem.at));
  }
}

/** Where the value of the last member at `path` (object keys from the top) starts, or undefined. */
export function jsonValuePosition(text: string, path: readonly string[]): TextPosition | undefined {
  let found: number | undefined;
  scanJson(text, (keys, at) => {
    if (keys.length === path.length && keys.every((key, i) => key === path[i])) found = at;
  });
  return found === undefined ? undefined : positionAt(text, found);
}

interface Problem {
  readonly reason: string;
  readonly at: number;
}

interface Frame {
  readonly object: boolean;
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
const isHex = (code: number): boolean =>
  isDigit(code) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);

/**
 * The first place `text` is not JSON (RFC 8259, as JSON.parse reads it), or undefined when it is. `visit` is
 * told where each value starts, with the object keys leading to it (array positions are skipped).
 */
function scanJson(text: string, visit?: (keys: readonly string[], at: number) => void): Problem | undefined {
  return new JsonScan(text, visit).scan();
}

/**
 * What is expected next: a value, a value or the close of an array, a key or the close of an object, or what
 * follows a value (a comma, a close, or the end).
 */
type Expect = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'after';

/** A section's answer when the scan reads on (no problem yet, not at the end). */
const MORE: Problem = { reason: '', at: -1 };

/**
 * One scan of a text: the offset, what is expected there and the open containers (with the object keys
 * leading to them). `scan` loops; each state's section is a method, returning a problem, undefined (the
 * text is JSON) or MORE.
 */
class JsonScan {
  private readonly text: string;
  private readonly n: number;
  private readonly visit: ((keys: readonly string[], at: number) => void) | undefined;
  private readonly stack: Frame[] = [];
  private readonly keys: string[] = [];
  private i = 0;
  private expect: Expect = 'value';

  constructor(text: string, visit: ((keys: readonly string[], at: number) => void) | undefined) {
    this.text = text;
    this.n = text.length;
    this.visit = visit;
  }

  scan(): Problem | undefined {
    for (;;) {
      this.i = skipWhitespace(this.text, this.i, this.n);
      const problem = this.expect === 'after' ? this.after() : this.next();
      if (problem !== MORE) return problem;
    }
  }

  /** After a value: a comma, the close of its container, or the end of the text. */
  private after(): Problem | undefined {
    const { text, i, n, stack } = this;
    const top = stack.at(-1);
    if (top === undefined) return i < n ? { reason: 'there is text after the JSON value', at: i } : undefined;
    if (i >= n) return endsEarly(n);
    const code = text.charCodeAt(i);
    if (code === 0x2c) {
      this.i = i + 1;
      this.expect = top.object ? 'key' : 'value';
    } else if (code === (top.object ? 0x7d : 0x5d)) {
      this.i = i + 1;
      stack.pop();
      if (top.object) this.keys.pop();
    } else
      return {
        reason: top.object ? 'expected "," or "}" after a member' : 'expected "," or "]" after an element',
        at: i,
      };
    return MORE;
  }

  /** Where a key, a value or a close is expected. */
  private next(): Problem {
    const { i, n, expect } = this;
    if (i >= n)
      return expect === 'value' && this.stack.length === 0 && i === 0
        ? { reason: 'it holds no JSON value', at: 0 }
        : endsEarly(n);
    const code = this.text.charCodeAt(i);
    if (expect === 'key-or-close' || expect === 'key') return this.member(code);
    if (expect === 'value-or-close' && code === 0x5d) {
      this.i = i + 1;
      this.stack.pop();
      this.expect = 'after';
      return MORE;
    }
    return this.value(code);
  }

  /** A member's name and its colon (its first character `code`), or the close of an object that may end. */
  private member(code: number): Problem {
    const { text, i, n } = this;
    if (code === 0x7d && this.expect === 'key-or-close') {
      this.i = i + 1;
      this.stack.pop();
      this.keys.pop();
      this.expect = 'after';
      return MORE;
    }
    if (code !== 0x22) return { reason: 'expected a member name in double quotes', at: i };
    const stop = stringEnd(text, i, n);
    if (typeof stop !== 'number') return stop;
    this.keys[this.keys.length - 1] = JSON.parse(text.slice(i, stop)) as string;
    const colon = skipWhitespace(text, stop, n);
    if (colon >= n) return endsEarly(n);
    if (text.charCodeAt(colon) !== 0x3a) return { reason: 'expected ":" after a member name', at: colon };
    this.i = colon + 1;
    this.expect = 'value';
    return MORE;
  }

  /** A value at `i` (its first character `code`): an object or array opened, a string, number or word read. */
  private value(code: number): Problem {
    const { text, i, stack } = this;
    const top = stack.at(-1);
    if (this.visit !== undefined && (top === undefined || top.object)) this.visit(this.keys, i);
    if (code === 0x7b) {
      stack.push({ object: true });
      this.keys.push('');
      this.i = i + 1;
      this.expect = 'key-or-close';
      return MORE;
    }
    if (code === 0x5b) {
      stack.push({ object: false });
      this.i = i + 1;
      this.expect = 'value-or-close';
      return MORE;
    }
    const stop =
      code === 0x22
        ? stringEnd(text, i, this.n)
        : code === 0x2d || isDigit(code)
          ? numberEnd(text, i)
          : wordEnd(text, i);
    if (typeof stop !== 'number') return stop;
    this.i = stop;
    this.expect = 'after';
    return MORE;
  }
}

/** The offset of the first character from `at` that is no JSON whitespace. */
function skipWhitespace(text: string, at: number, n: number): number {
  let i = at;
  while (i < n && WHITESPACE.has(text.charCodeAt(i))) i++;
  return i;
}

const endsEarly = (n: number): Problem => ({ reason: 'it ends in the middle of a value', at: n });

/** The end of the string at `at` (on its quote), or a problem. */
function stringEnd(text: string, at: number, n: number): number | Problem {
  for (let j = at + 1; j < n; j++) {
    const code = text.charCodeAt(j);
    if (code === 0x22) return j + 1;
    if (code < 0x20) return { reason: 'a string holds a raw control character', at: j };
    if (code === 0x5c) {
      const next = text.charCodeAt(j + 1);
      if (next === 0x75) {
        for (let k = 2; k < 6; k++)
          if (!isHex(text.charCodeAt(j + k))) return { reason: 'a string holds an invalid \\u escape', at: j };
        j += 5;
      } else if (ESCAPES.has(next)) j++;
      else return { reason: 'a string holds an invalid escape', at: j };
    }
  }
  return { reason: 'a string is not closed', at };
}

/** The end of the number at `at`, or a problem. */
function numberEnd(text: string, at: number): number | Problem {
  let j = at;
  if (text.charCodeAt(j) === 0x2d) j++;
  if (text.charCodeAt(j) === 0x30) j++;
  else if (isDigit(text.charCodeAt(j))) while (isDigit(text.charCodeAt(j))) j++;
  else return { reason: 'a number is malformed', at };
  if (text.charCodeAt(j) === 0x2e) {
    j++;
    if (!isDigit(text.charCodeAt(j))) return { reason: 'a number is malformed', at };
    while (isDigit(text.charCodeAt(j))) j++;
  }
  if (text.charCodeAt(j) === 0x65 || text.charCodeAt(j) === 0x45) {
    j++;
    if (text.charCodeAt(j) === 0x2b || text.charCodeAt(j) === 0x2d) j++;
    if (!isDigit(text.charCodeAt(j))) return { reason: 'a number is malformed', at };
    while (isDigit(text.charCodeAt(j))) j++;
  }
  return j;
}

/** The end of `true`, `false` or `null` at `at`, or a problem (no value starts there). */
function wordEnd(text: string, at: number): number | Problem {
  const word = text.startsWith('true', at) ? 4 : text.startsWith('false', at) ? 5 : text.startsWith('null', at) ? 4 : 0;
  if (word === 0) return { reason: 'expected a value (an object, array, string, number, true, false or null)', at };
  return at + word;
}
