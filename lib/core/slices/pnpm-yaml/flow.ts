// Flow collections (`{...}`, `[...]`) of the YAML a pnpm lockfile is written in, read on one line.
//
// Owns: `flowEnd`: where a flow collection ends, checking what js-yaml checks (matching brackets, commas,
// colons, duplicate keys compared as js-yaml compares them) and refusing what a line reader does not read
// (anchors, aliases, tags, complex keys, a mapping inside a sequence, nesting deeper than MAX_DEPTH).
// Invariants: an explicit stack, never recursion (a 200,000-deep `[[[...]]]` costs one pass and a refusal).

import { isBlank, keyString, MAX_DEPTH, plainType, singleQuoteEnd, doubleQuoteEnd, skipBlanks, startProblem, unquote, type Fail } from './scalar.js';

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
