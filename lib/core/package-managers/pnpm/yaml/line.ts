// One line's key and value in the YAML a pnpm lockfile is written in: the general reading, and a shortcut for
// the shapes pnpm writes most.
//
// Owns: `readKey` and `readValue` (into the shared `found` record: kind, offsets), and `simpleValue` with the
// SIMPLE_* patterns, which recognise whole lines that the general reading accepts with the same result
// (a test reads every line both ways and compares).
// Invariants: a value is whole on its line (a quote or flow collection not closed there is refused); nothing
// here keeps state across lines but `found`, which the reader reads before the next call.

import { flowEnd } from './flow.js';
import {
  isBlank,
  nextStop,
  plainEnd,
  SPACE,
  singleQuoteEnd,
  doubleQuoteEnd,
  skipBlanks,
  startProblem,
  trailing,
  type Fail,
} from './scalar.js';

/** How a line's value is written. */
export type ValueKind = 'none' | 'plain' | 'single' | 'double' | 'flow' | 'block';

// The line shapes pnpm writes most, as sticky patterns: each accepts only text the general path below
// accepts with the same reading (checked by the same tests), so they change nothing but the speed. A key of
// word characters (no quote, no colon, no space) and its colon, or a single-quoted key with no quote in it:
export const SIMPLE_KEY = /[A-Za-z_][\w./@+-]*:/y;
export const SIMPLE_QUOTED_KEY = /'[^'\n]*':/y;
// after ": ", a plain value of version characters (no indicator first; no blank, "#", bracket or comma in it,
// and a colon only before a character that is no blank: `link:../a`, `workspace:*`),
const SIMPLE_PLAIN = /[\w^~<=+./](?:[\w.^~<>=+/()@*-]|:(?=[^\s]))*/y;
// `{}` or a one-pair flow mapping of such a plain scalar or a single-quoted one without '' in it,
const SIMPLE_MAP = /\{(?:\}|[A-Za-z][\w-]*: (?:[\w+/=.][\w+/=.-]*|'[^'\n]*')\})/y;
// or a flow sequence of word items.
const SIMPLE_SEQ = /\[[\w.][\w.-]*(?:, [\w.][\w.-]*)*\]/y;

/** The kind of the value after a simple key's colon at `colon` when it is one of the simple shapes and fills the line; else undefined. */
export function simpleValue(text: string, colon: number, end: number): ValueKind | undefined {
  if (text.charCodeAt(colon + 1) !== SPACE) return undefined;
  const at = colon + 2;
  const code = text.charCodeAt(at);
  const pattern = code === 0x7b ? SIMPLE_MAP : code === 0x5b ? SIMPLE_SEQ : SIMPLE_PLAIN;
  pattern.lastIndex = at;
  if (!pattern.test(text) || pattern.lastIndex !== end) return undefined;
  return pattern === SIMPLE_PLAIN ? 'plain' : 'flow';
}

/** What readValue and readKey found (one object, reused: they run once per line). */
export const found = { kind: 'none' as ValueKind, at: 0, end: 0, keyEnd: 0, after: 0 };

/** The value of a line at `at` (after "key:" or "- ") into `found` (kind, at, end); checks it is whole on the line. */
export function readValue(text: string, at: number, end: number, fail: Fail, depth: number): void {
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
export function readKey(text: string, at: number, end: number, fail: Fail): boolean {
  const code = text.charCodeAt(at);
  if (code === 0x27 || code === 0x22) {
    const stop = code === 0x27 ? singleQuoteEnd(text, at, end) : doubleQuoteEnd(text, at, end);
    if (stop === -1) throw fail('broken', 'a quoted key or value is not closed on its line', at);
    if (stop < -1) throw fail('broken', 'a double-quoted value holds an invalid escape', -2 - stop);
    const colon = skipBlanks(text, stop, end);
    if (colon >= end || text.charCodeAt(colon) !== 0x3a) return false;
    if (colon + 1 < end && !isBlank(text.charCodeAt(colon + 1)))
      throw fail('broken', 'expected a space after ":"', colon + 1);
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
