// One package line of bun.lock as bun writes it (`    "key": [ ... ],`), read without a JSON parse: the
// fast path of lock.ts's packages block.
//
// Owns: `packageLine` (the line's key, ident, tuple text and dependency names, or undefined when the line
// is not in bun's layout: the caller then reads the whole file through a JSONC parse) and `stringAt` (a JSON
// string literal at an index). Invariants: strings on a line with no backslash end at the next quote; a
// line with one is read literal by literal; nothing here throws on a line it does not take.

import type { BunPackage } from './lock-types.js';

/** The JSON string literal starting at `at` (a `"`): [value, index after it], or undefined. */
export function stringAt(text: string, at: number): [string, number] | undefined {
  const end = stringEnd(text, at, true);
  if (end === -1) return undefined;
  const raw = text.slice(at + 1, end - 1);
  if (!raw.includes('\\')) return [raw, end];
  const value = jsonString(text.slice(at, end));
  return value === undefined ? undefined : [value, end];
}

/** The dependency maps of a package's info object, by the text before `ependencies": {` (one scan a line finds them all). */
const DEP_FIELDS = ['"d', '"optionalD', '"peerD'];
const DEP_TAIL = 'ependencies": {';

/**
 * The names of the flat `"name": "range"` objects of `dependencies`, `optionalDependencies` and
 * `peerDependencies` in a tuple's text (the first map of each); false if one is not that shape. In a text
 * with no backslash (`escaped` false) a string ends at the next quote; otherwise each is read as a JSON string.
 */
function depNames(text: string, into: string[], escaped: boolean, optional: string[]): boolean {
  let seen = 0;
  for (let at = text.indexOf(DEP_TAIL); at !== -1; at = text.indexOf(DEP_TAIL, at + DEP_TAIL.length)) {
    let field = -1;
    for (let f = 0; f < DEP_FIELDS.length; f++) {
      const head = DEP_FIELDS[f] as string;
      if (text.startsWith(head, at - head.length)) field = f;
    }
    if (field === -1 || (seen & (1 << field)) !== 0) continue;
    seen |= 1 << field;
    const names = field === 0 ? into : optional;
    let pos = at + DEP_TAIL.length;
    for (;;) {
      while (text.charCodeAt(pos) === 32) pos++;
      if (text.charCodeAt(pos) === 125) break;
      // `"name": "range"`: the range opens two characters after the name's closing quote.
      const nameEnd = stringEnd(text, pos, escaped);
      if (nameEnd === -1 || text.charCodeAt(nameEnd) !== 58 || text.charCodeAt(nameEnd + 1) !== 32) return false;
      const rangeEnd = stringEnd(text, nameEnd + 2, escaped);
      if (rangeEnd === -1) return false;
      if (escaped) {
        const name = jsonString(text.slice(pos, nameEnd));
        if (name === undefined || jsonString(text.slice(nameEnd + 2, rangeEnd)) === undefined) return false;
        names.push(name);
      } else {
        names.push(text.slice(pos + 1, nameEnd - 1));
      }
      pos = rangeEnd;
      if (text.charCodeAt(pos) === 44) pos++;
    }
  }
  return true;
}

/** The index after the JSON string starting at `at` (a `"`), or -1; with no backslash in the text it ends at the next quote. */
function stringEnd(text: string, at: number, escaped: boolean): number {
  if (text.charCodeAt(at) !== 34) return -1;
  if (!escaped) {
    const end = text.indexOf('"', at + 1);
    return end === -1 ? -1 : end + 1;
  }
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i + 1;
  }
  return -1;
}

/** A JSON string literal's value, or undefined when it is not one. */
function jsonString(literal: string): string | undefined {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}

/** Optional and peer dependency names of the line being read (reused: most packages have none). */
const scratch: string[] = [];

/** `deps` with the optional names of `scratch` after its required ones. */
function withOptional(deps: string[]): { deps: string[]; required: number } {
  const required = deps.length;
  if (scratch.length > 0) for (const name of scratch) deps.push(name);
  return { deps, required };
}

/** A package line as bun writes it (`    "key": [ ... ],`), read without a JSON parse; undefined if it is not. */
export function packageLine(line: string): BunPackage | undefined {
  if (!line.startsWith('    "')) return undefined;
  const end = line.endsWith('],') ? line.length - 1 : line.endsWith(']') ? line.length : -1;
  if (end === -1) return undefined;
  const deps: string[] = [];
  scratch.length = 0;
  if (!line.includes('\\')) {
    // Most lines hold no backslash: their strings end at the next quote.
    const keyEnd = line.indexOf('"', 5);
    if (keyEnd === -1 || !line.startsWith('": ["', keyEnd)) return undefined;
    const text = line.slice(keyEnd + 3, end);
    const identEnd = text.indexOf('"', 2);
    if (identEnd === -1 || !depNames(text, deps, false, scratch)) return undefined;
    return { key: line.slice(5, keyEnd), ident: text.slice(2, identEnd), text, ...withOptional(deps) };
  }
  const key = stringAt(line, 4);
  if (key === undefined || !line.startsWith(': [', key[1])) return undefined;
  const text = line.slice(key[1] + 2, end);
  const ident = stringAt(text, 1);
  if (ident === undefined || !depNames(text, deps, true, scratch)) return undefined;
  return { key: key[0], ident: ident[0], text, ...withOptional(deps) };
}
