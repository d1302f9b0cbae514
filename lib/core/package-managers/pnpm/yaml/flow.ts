// Flow collections (`{...}`, `[...]`) of the YAML a pnpm lockfile is written in, read on one line.
//
// Owns: `flowEnd`: where a flow collection ends, checking what js-yaml checks (matching brackets, commas,
// colons, duplicate keys compared as js-yaml compares them) and refusing what a line reader does not read
// (anchors, aliases, tags, complex keys, a mapping inside a sequence, nesting deeper than MAX_DEPTH).
// flowEnd's loop keeps the offset and the frames; its sections are functions taking them (`open`, `scalarNodeEnd`).
// Invariants: an explicit stack, never recursion (a 200,000-deep `[[[...]]]` costs one pass and a refusal).

import {
  isBlank,
  keyString,
  MAX_DEPTH,
  plainType,
  singleQuoteEnd,
  doubleQuoteEnd,
  skipBlanks,
  startProblem,
  unquote,
  type Fail,
} from './scalar.js';

// Runs of characters that cannot end or change a plain scalar in a flow collection (sticky: `lastIndex` is
// where the run stops).
const FLOW_RUN = /[^,[\]{}:#\n]*/y;

/** Where a run of `run` characters starting at `at` stops. */
function runEnd(run: RegExp, text: string, at: number): number {
  run.lastIndex = at;
  run.test(text);
  return run.lastIndex;
}

interface FlowFrame {
  readonly map: boolean;
  readonly open: number;
  /** entry: at the start or after a comma; value: after a key's colon; after: after an entry. */
  state: 'entry' | 'value' | 'after';
  keys: Set<string> | undefined;
}

/** The scalar `scalarEnd` read last (one record, reused: nothing is allocated per scalar). */
const scanned = { value: '', quoted: false };

/** A quoted or plain scalar at `at` (its first character `code`) into `scanned`; the offset after it. */
function scalarEnd(text: string, at: number, end: number, code: number, fail: Fail): number {
  if (code === 0x27 || code === 0x22) {
    const stop = code === 0x27 ? singleQuoteEnd(text, at, end) : doubleQuoteEnd(text, at, end);
    if (stop === -1) throw fail('broken', 'a quoted value is not closed on its line', at);
    if (stop < -1) throw fail('broken', 'a double-quoted value holds an invalid escape', -2 - stop);
    scanned.value = unquote(text.slice(at, stop));
    scanned.quoted = true;
    return stop;
  }
  const problem = startProblem(text, at, end, true);
  if (problem !== undefined) throw fail(problem[0], problem[1], at);
  let i: number;
  for (i = runEnd(FLOW_RUN, text, at); i < end; i = runEnd(FLOW_RUN, text, i + 1)) {
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
  while (last > at && isBlank(text.charCodeAt(last - 1))) last--;
  scanned.value = text.slice(at, last);
  scanned.quoted = false;
  return last;
}

/** The "," after an entry, or after a key with no value (then true: the key's value is empty); anything else is refused. */
function separator(frame: FlowFrame, code: number, at: number, fail: Fail): boolean {
  if (frame.state === 'after') {
    if (code !== 0x2c)
      throw fail(
        'broken',
        frame.map ? 'expected "," or "}" in a flow mapping' : 'expected "," or "]" in a flow sequence',
        at,
      );
    frame.state = 'entry';
    return false;
  }
  if (frame.state !== 'value') throw fail('broken', 'an empty entry in a flow collection', at);
  frame.state = 'entry';
  return true;
}

/** A flow mapping's key, unique as js-yaml compares keys; a merge key is refused. */
function addKey(frame: FlowFrame, scalar: string, quoted: boolean, at: number, fail: Fail): void {
  if (frame.keys === undefined) frame.keys = new Set();
  const type = quoted ? 'string' : plainType(scalar);
  if (type === 'merge') throw fail('unsupported', 'a YAML merge key ("<<")', at);
  const dupKey = type === 'string' ? scalar : keyString(scalar, type);
  if (frame.keys.has(dupKey)) throw fail('broken', 'a flow mapping has a duplicate key', at);
  frame.keys.add(dupKey);
}

/**
 * A flow collection (`{...}` / `[...]`) at `at`, on one line: its end. Checks what js-yaml checks (closing
 * brackets, commas, colons, duplicate keys) and refuses anchors, aliases, tags and complex keys.
 * `pairs`, when given, receives the top-level `key: scalar` pairs of a flow mapping (decoded; undefined for a
 * nested collection or a missing value). Sections: a close, a separator, a nested collection (`open`), a
 * scalar (`scalarNodeEnd`, then a key or a value); the offset stays this loop's local (a reader object per
 * collection costs ~5% of the instructions here, a function for the scalar's key-or-value ~2%).
 */
export function flowEnd(
  text: string,
  at: number,
  end: number,
  fail: Fail,
  depth: number,
  pairs?: [string, string | undefined][],
): number {
  const stack: FlowFrame[] = [];
  let i = open(stack, text.charCodeAt(at) === 0x7b, at, depth, fail);
  let pendingKey: string | undefined;
  while (stack.length > 0) {
    i = skipBlanks(text, i, end);
    const top = stack[stack.length - 1] as FlowFrame;
    if (i >= end) throw notClosed(top, fail);
    const code = text.charCodeAt(i);
    // Whether the top-level mapping's last key is left here with no scalar value.
    let empty = false;
    if (code === (top.map ? 0x7d : 0x5d)) {
      // A key with no value before the close (`{a: }`, `{a:}`): an empty value.
      empty = top.state === 'value' && stack.length === 1;
      stack.pop();
      i++;
      const parent = stack[stack.length - 1];
      if (parent !== undefined) parent.state = 'after';
    } else if (top.state === 'after' || code === 0x2c) {
      empty = separator(top, code, i, fail) && stack.length === 1;
      i++;
    } else if (code === 0x7b || code === 0x5b) {
      if (top.map && top.state === 'entry') throw fail('unsupported', 'a YAML complex key (a collection as a key)', i);
      top.state = 'after';
      empty = stack.length === 1;
      i = open(stack, code === 0x7b, i, depth, fail);
    } else {
      const nodeAt = i;
      i = scalarNodeEnd(text, i, end, code, fail);
      const isKey = i < end && text.charCodeAt(i) === 0x3a;
      if (top.map && top.state === 'entry') {
        if (!isKey) throw fail('broken', 'expected "key: value" in a flow mapping', nodeAt);
        addKey(top, scanned.value, scanned.quoted, nodeAt, fail);
        pendingKey = scanned.value;
        top.state = 'value';
        i++;
      } else {
        if (isKey) throw colonInValue(top, i, fail);
        if (top.map && stack.length === 1 && pairs !== undefined && pendingKey !== undefined)
          pairs.push([pendingKey, scanned.value]);
        top.state = 'after';
      }
    }
    if (empty && pairs !== undefined && pendingKey !== undefined) pairs.push([pendingKey, undefined]);
  }
  return i;
}

/** A collection opened at `at` (a mapping or a sequence) on the stack; the offset past its bracket. */
function open(stack: FlowFrame[], map: boolean, at: number, depth: number, fail: Fail): number {
  if (depth + stack.length >= MAX_DEPTH) throw fail('unsupported', `nesting deeper than ${MAX_DEPTH} levels`, at);
  stack.push({ map, open: at, state: 'entry', keys: undefined });
  return at + 1;
}

/** A scalar node at `at` (its first character `code`, no bracket) into `scanned`; the offset after it and its blanks. */
function scalarNodeEnd(text: string, at: number, end: number, code: number, fail: Fail): number {
  if (code === 0x5d || code === 0x7d) throw fail('broken', 'a closing bracket does not match its opening one', at);
  if (code === 0x23) throw fail('broken', 'a comment inside a flow collection', at);
  return skipBlanks(text, scalarEnd(text, at, end, code, fail), end);
}

/** The refusal of a collection `top` not closed on its line. */
function notClosed(top: FlowFrame, fail: Fail): Error {
  return fail(
    'broken',
    top.map ? 'a flow mapping ("{") is not closed on its line' : 'a flow sequence ("[") is not closed on its line',
    top.open,
  );
}

/** The refusal of a ":" after a value in `top` (a mapping's value, or a sequence's entry read as a key). */
function colonInValue(top: FlowFrame, at: number, fail: Fail): Error {
  return fail(
    top.map ? 'broken' : 'unsupported',
    top.map ? 'a flow mapping value holds ":"' : 'a mapping inside a flow sequence',
    at,
  );
}
