// One line's key and value in the YAML a pnpm lockfile is written in: the general reading, and a shortcut for
// the shapes pnpm writes most.
//
// Owns: `readKey` and `readValue` (into the shared `found` record: kind, offsets), and `simpleKeyColon` /
// `simpleValue`, which recognise whole lines that the general reading accepts with the same result
// (a test reads every line both ways and compares).
// Invariants: a value is whole on its line (a quote or flow collection not closed there is refused); nothing
// here keeps state across lines but `found`, which the reader reads before the next call.

import { flowEnd } from './pnpm-yaml-flow.js';
import { isBlank, nextStop, plainEnd, SPACE, singleQuoteEnd, doubleQuoteEnd, skipBlanks, startProblem, trailing, unquote, type Fail } from './pnpm-yaml-scalar.js';

/** How a line's value is written. */
export type ValueKind = 'none' | 'plain' | 'single' | 'double' | 'flow' | 'block';

// The line shapes pnpm writes most, recognised whole: each accepts only text the general path below accepts
// with the same reading (a test reads every line both ways), so they change nothing but the speed.
// Character classes, by ASCII code (anything else is not simple):
const KEY_FIRST = 1; // [A-Za-z_]
const KEY_BODY = 2; // [A-Za-z0-9_./@+-]
const PLAIN_FIRST = 4; // [A-Za-z0-9_^~<=+./]: no indicator
const PLAIN_BODY = 8; // [A-Za-z0-9_.^~<>=+/()@*-]: no blank, "#", bracket, comma or quote (a colon: see below)
const CLASSES = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  const char = String.fromCharCode(code);
  const word = /\w/.test(char);
  CLASSES[code] = (/[A-Za-z_]/.test(char) ? KEY_FIRST : 0) | (word || './@+-'.includes(char) ? KEY_BODY : 0) | (word || '^~<=+./'.includes(char) ? PLAIN_FIRST : 0) | (word || '.^~<>=+/()@*-'.includes(char) ? PLAIN_BODY : 0);
}
const is = (code: number, kind: number): boolean => code < 128 && ((CLASSES[code] as number) & kind) !== 0;

/** A simple key at `at`: a plain one of key characters, or a single-quoted one with no quote inside; the offset of its colon, or -1. */
export function simpleKeyColon(text: string, at: number, end: number): number {
  let i = at;
  if (text.charCodeAt(i) === 0x27) {
    const close = text.indexOf("'", i + 1);
    return close !== -1 && close + 1 < end && text.charCodeAt(close + 1) === 0x3a ? close + 1 : -1;
  }
  if (!is(text.charCodeAt(i), KEY_FIRST)) return -1;
  for (i++; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x3a) return i;
    if (!is(code, KEY_BODY)) return -1;
  }
  return -1;
}

/** Whether text[at, end) is a simple plain value: version characters, a colon only before a non-blank (`link:../a`). */
function simplePlain(text: string, at: number, end: number): boolean {
  if (!is(text.charCodeAt(at), PLAIN_FIRST)) return false;
  for (let i = at + 1; i < end; i++) {
    const code = text.charCodeAt(i);
    if (is(code, PLAIN_BODY)) continue;
    if (code !== 0x3a || i + 1 === end) return false;
    const next = text.charCodeAt(i + 1);
    if (next === 0x20 || next === 0x09) return false;
  }
  return true;
}

// `{}` or a one-pair flow mapping of a plain scalar of such characters or a single-quoted one without '' in
// it, and a flow sequence of word items (sticky patterns: these lines are fewer).
const SIMPLE_MAP = /\{(?:\}|[A-Za-z][\w-]*: (?:[\w+/=.][\w+/=.-]*|'[^'\n]*')\})/y;
const SIMPLE_SEQ = /\[[\w.][\w.-]*(?:, [\w.][\w.-]*)*\]/y;

/** The kind of the value after a simple key's colon at `colon` when it is one of the simple shapes and fills the line; else undefined. */
export function simpleValue(text: string, colon: number, end: number): ValueKind | undefined {
  if (text.charCodeAt(colon + 1) !== SPACE) return undefined;
  const at = colon + 2;
  const code = text.charCodeAt(at);
  if (code !== 0x7b && code !== 0x5b) return at < end && simplePlain(text, at, end) ? 'plain' : undefined;
  const pattern = code === 0x7b ? SIMPLE_MAP : SIMPLE_SEQ;
  pattern.lastIndex = at;
  return pattern.test(text) && pattern.lastIndex === end ? 'flow' : undefined;
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

