// One line of yarn berry's yarn.lock, in the YAML subset yarn writes (its "syml"), read as yarn reads it.
//
// Owns: `symlLine` (a line's indentation, key and value) and the scalar forms it accepts.
// yarn 4 reads yarn.lock with js-yaml (FAILSAFE schema: every scalar a string) and, under `install
// --immutable`, refuses every file that is not what it would write itself (YN0028), so a line is accepted
// here only in a form yarn writes, where its YAML reading is its text: indentation in steps of two spaces,
// `key:` or `key: value` with one space, each scalar either plain (yarn's own "simple string" pattern: no
// indicator first, no `: `, ` #`, `,`, brackets, braces or trailing space) or double-quoted with JSON's escapes
// (which read the same in YAML). Single quotes, flow collections, anchors, tags, comments after a value, tabs
// and everything else are refused: js-yaml would read them otherwise or not at all ("bad indentation").
// Invariants: never throws itself; a refusal is a fixed reason the caller reports with the line's position.

/**
 * yarn's own test for a string it writes unquoted (@yarnpkg/parsers syml.ts `simpleStringPattern`, written
 * without its lookaheads: the same strings, tested in linear time; test/core/package-managers/yarn/syml.test.ts compares).
 */
const SIMPLE =
  /^[^-?:,\][{}#&*!|>'"%@` \t\r\n\u2028\u2029](?:[^,\][{}:#\r\n\u2028\u2029]*[^,\][{}:# \t\r\n\u2028\u2029])?$/;

/**
 * The line `symlLine` read last (module state, not an object a line: a lockfile has hundreds of thousands of
 * lines, and the reader uses each before the next is read).
 */
export const line = {
  /** Leading spaces. */
  indent: 0,
  key: '',
  /** The value's string, or undefined when the line opens a mapping (`key:`). */
  value: undefined as string | undefined,
};

/** A whole scalar's text read as yarn's syml: its string, or undefined when yarn would not write it so. */
export function symlScalar(raw: string): string | undefined {
  return scalarIn(raw, 0, raw.length);
}

/** The scalar `text[from, to)`: its string, or undefined when yarn would not write it so. */
function scalarIn(text: string, from: number, to: number): string | undefined {
  if (text.charCodeAt(from) === 34) {
    if (to - from < 2 || text.charCodeAt(to - 1) !== 34) return undefined;
    const raw = text.slice(from, to);
    if (!raw.includes('\\')) return raw.indexOf('"', 1) === raw.length - 1 ? raw.slice(1, -1) : undefined;
    try {
      const value: unknown = JSON.parse(raw);
      return typeof value === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  }
  const raw = text.slice(from, to);
  return SIMPLE.test(raw) ? raw : undefined;
}

/** The end of the key starting at `from` (a quoted key ends at its closing quote; a plain one at `:`), or -1. */
function keyEnd(text: string, from: number, to: number): number {
  if (text.charCodeAt(from) === 34) {
    for (let i = from + 1; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c === 92) i++;
      else if (c === 34) return i + 1;
    }
    return -1;
  }
  // A plain key holds no ':' (yarn quotes one that does).
  const colon = text.indexOf(':', from);
  return colon === -1 || colon >= to ? -1 : colon;
}

/** Read the line `text[from, to)` (no line break) as yarn's syml into `line`; the reason it is not in that form, or undefined. */
export function symlLine(text: string, from: number, to: number): string | undefined {
  let at = from;
  while (text.charCodeAt(at) === 32 && at < to) at++;
  const indent = at - from;
  if (at === to) return 'a line of only spaces';
  if (indent % 2 !== 0) return 'bad indentation (yarn indents by two spaces)';
  const end = keyEnd(text, at, to);
  if (end === -1 || text.charCodeAt(end) !== 58) return 'a line that is not "key: value" or "key:"';
  const key = scalarIn(text, at, end);
  if (key === undefined) return 'a key in a form yarn does not write';
  line.indent = indent;
  line.key = key;
  if (end + 1 === to) {
    line.value = undefined;
    return undefined;
  }
  if (text.charCodeAt(end + 1) !== 32 || end + 2 === to) return 'a line that is not "key: value" or "key:"';
  const value = scalarIn(text, end + 2, to);
  if (value === undefined) return 'a value in a form yarn does not write';
  line.value = value;
  return undefined;
}
