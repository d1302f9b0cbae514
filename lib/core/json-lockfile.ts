// Reading a JSON lockfile or install marker (package-lock.json, npm-shrinkwrap.json,
// node_modules/.package-lock.json) without ever echoing it.
//
// Owns: `parseLockfileJson` (a leading BOM dropped and CRLF read as npm reads them; JSON.parse for the
// value; on a failure, a scan of lockguard's own says why and where, as fields) and `jsonValuePosition` (the
// line and column of a member's value, for shape errors found after the parse).
// Invariants: an error is a fixed reason plus a line and a column, never the parser's message (Node 20's
// quotes the source around the error); the scan is iterative, so no nesting depth can overflow the stack;
// duplicate keys read as JSON.parse and npm read them (the last one wins).

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
  const n = text.length;
  const stack: Frame[] = [];
  const keys: string[] = [];
  let i = 0;
  const skip = (): void => {
    while (i < n && WHITESPACE.has(text.charCodeAt(i))) i++;
  };
  const end = (): Problem => ({ reason: 'it ends in the middle of a value', at: n });
  /** Reads a string at `i` (on its quote); returns its end or a problem. */
  const string = (): number | Problem => {
    const start = i;
    for (let j = i + 1; j < n; j++) {
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
    return { reason: 'a string is not closed', at: start };
  };
  const number = (): number | Problem => {
    const start = i;
    let j = i;
    if (text.charCodeAt(j) === 0x2d) j++;
    if (text.charCodeAt(j) === 0x30) j++;
    else if (isDigit(text.charCodeAt(j))) while (isDigit(text.charCodeAt(j))) j++;
    else return { reason: 'a number is malformed', at: start };
    if (text.charCodeAt(j) === 0x2e) {
      j++;
      if (!isDigit(text.charCodeAt(j))) return { reason: 'a number is malformed', at: start };
      while (isDigit(text.charCodeAt(j))) j++;
    }
    if (text.charCodeAt(j) === 0x65 || text.charCodeAt(j) === 0x45) {
      j++;
      if (text.charCodeAt(j) === 0x2b || text.charCodeAt(j) === 0x2d) j++;
      if (!isDigit(text.charCodeAt(j))) return { reason: 'a number is malformed', at: start };
      while (isDigit(text.charCodeAt(j))) j++;
    }
    return j;
  };

  // States: a value is expected, a value or the close of an array, a key or the close of an object, or
  // what follows a value (a comma, a close, or the end).
  let state: 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'after' = 'value';
  for (;;) {
    skip();
    if (state === 'after') {
      const top = stack.at(-1);
      if (top === undefined) return i < n ? { reason: 'there is text after the JSON value', at: i } : undefined;
      if (i >= n) return end();
      const code = text.charCodeAt(i);
      if (code === 0x2c) {
        i++;
        state = top.object ? 'key' : 'value';
      } else if (code === (top.object ? 0x7d : 0x5d)) {
        i++;
        stack.pop();
        if (top.object) keys.pop();
      } else
        return {
          reason: top.object ? 'expected "," or "}" after a member' : 'expected "," or "]" after an element',
          at: i,
        };
      continue;
    }
    if (i >= n)
      return state === 'value' && stack.length === 0 && i === 0 ? { reason: 'it holds no JSON value', at: 0 } : end();
    const code = text.charCodeAt(i);
    if (state === 'key-or-close' || state === 'key') {
      if (code === 0x7d && state === 'key-or-close') {
        i++;
        stack.pop();
        keys.pop();
        state = 'after';
        continue;
      }
      if (code !== 0x22) return { reason: 'expected a member name in double quotes', at: i };
      const start = i;
      const stop = string();
      if (typeof stop !== 'number') return stop;
      i = stop;
      keys[keys.length - 1] = JSON.parse(text.slice(start, stop)) as string;
      skip();
      if (i >= n) return end();
      if (text.charCodeAt(i) !== 0x3a) return { reason: 'expected ":" after a member name', at: i };
      i++;
      state = 'value';
      continue;
    }
    if (state === 'value-or-close' && code === 0x5d) {
      i++;
      stack.pop();
      state = 'after';
      continue;
    }
    // A value starts here.
    const top = stack.at(-1);
    if (visit !== undefined && (top === undefined || top.object)) visit(keys, i);
    if (code === 0x7b) {
      stack.push({ object: true });
      keys.push('');
      i++;
      state = 'key-or-close';
    } else if (code === 0x5b) {
      stack.push({ object: false });
      i++;
      state = 'value-or-close';
    } else if (code === 0x22) {
      const stop = string();
      if (typeof stop !== 'number') return stop;
      i = stop;
      state = 'after';
    } else if (code === 0x2d || isDigit(code)) {
      const stop = number();
      if (typeof stop !== 'number') return stop;
      i = stop;
      state = 'after';
    } else {
      const word = text.startsWith('true', i)
        ? 4
        : text.startsWith('false', i)
          ? 5
          : text.startsWith('null', i)
            ? 4
            : 0;
      if (word === 0)
        return { reason: 'expected a value (an object, array, string, number, true, false or null)', at: i };
      i += word;
      state = 'after';
    }
  }
}
