// yarn v1's yarn.lock read with yarn 1's own grammar: its tokenizer and parser (yarn 1.22.22
// src/lockfile/parse.js), ported so that lockguard reads exactly the entries, fields and dependencies yarn reads.
//
// Owns: `parseYarnClassic` (text in, entries out: each with its patterns, its exact text, version and
// dependencies as yarn's parse leaves them: a key given twice keeps its last value).
// yarn 1's reader: a quoted string is JSON; a bare word starts with a letter, `/`, `.` or `-` and runs to a
// space, `:`, `,` or line break; digits are a number, `true`/`false` booleans; `#` starts a comment; spaces
// after a line break are the indentation, in steps of two (odd: "Invalid number of spaces"); any other
// character is an invalid token. When its parser fails, yarn 1 tries the file as YAML: a layout it never
// writes, which lockguard refuses too (ERR_LOCKGUARD_BROKEN_LOCKFILE, "not in yarn 1's lockfile syntax"). So is
// a file yarn stops reading before its end (an indented line after a blank or comment line inside an entry:
// yarn ignores the rest), an entry that is not a mapping, a version that is not a version (yarn: "invalid
// package version"), and dependency maps that are not maps.
// Invariants: one pass, no recursion deeper than the file's indentation levels, never echoes the file.

import type { LockguardError } from '../errors.js';
import { brokenLockfile } from '../lockfile-errors.js';

export interface ClassicEntry {
  readonly patterns: readonly string[];
  readonly text: string;
  readonly version: string;
  readonly deps: readonly (readonly [name: string, range: string])[];
}

const NEWLINE = 0;
const INDENT = 1;
const STRING = 2;
const NUMBER = 3;
const BOOLEAN = 4;
const COLON = 5;
const COMMA = 6;
const INVALID = 7;
const EOF = 8;

type Value = string | number | boolean | Fields;
interface Fields {
  [key: string]: Value;
}

/** A version as semver reads one (yarn 1 refuses others): `1.2.3`, pre-release and build parts, a `v` or `=` first. */
const VERSION = /^[v=]?\d+\.\d+\.\d+(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** Read a v1 yarn.lock's text (line breaks already "\n") into entries (`path` names the file in errors). */
export function parseYarnClassic(text: string, path: string): ClassicEntry[] {
  const n = text.length;
  let pos = 0;
  let line = 1;
  let lastNewline = false;
  // The current token.
  let type: number = EOF;
  let value: string | number | boolean = '';
  let tokenLine = 1;
  let tokenStart = 0;
  let tokenEnd = 0;
  const fail = (reason: string, at: number): LockguardError =>
    brokenLockfile(path, `${reason}: it is not in yarn 1's lockfile syntax`, { line: at, column: 1 });

  /** The next token that is not a comment (yarn's Parser.next). */
  const next = (): void => {
    for (;;) {
      if (pos >= n) {
        type = EOF;
        tokenLine = line;
        return;
      }
      const start = pos;
      const c = text.charCodeAt(pos);
      tokenLine = line;
      tokenStart = start;
      if (c === 10) {
        pos++;
        line++;
        type = NEWLINE;
      } else if (c === 35) {
        const end = text.indexOf('\n', pos);
        pos = end === -1 ? n : end;
        lastNewline = false;
        continue;
      } else if (c === 32) {
        if (lastNewline) {
          const from = pos;
          while (text.charCodeAt(pos) === 32) pos++;
          const size = pos - from;
          if (size % 2 !== 0) throw fail('an odd indentation', line);
          type = INDENT;
          value = size / 2;
        } else {
          pos++;
          lastNewline = false;
          continue;
        }
      } else if (c === 34) {
        let i = pos + 1;
        for (; i < n; i++) {
          if (text.charCodeAt(i) === 34 && !(text.charCodeAt(i - 1) === 92 && text.charCodeAt(i - 2) !== 92)) {
            i++;
            break;
          }
        }
        const raw = text.slice(pos, i);
        for (let k = pos; k < i; k++) if (text.charCodeAt(k) === 10) line++;
        pos = i;
        try {
          value = JSON.parse(raw) as string;
          type = typeof value === 'string' ? STRING : INVALID;
        } catch {
          type = INVALID;
        }
      } else if (c >= 48 && c <= 57) {
        while (pos < n && text.charCodeAt(pos) >= 48 && text.charCodeAt(pos) <= 57) pos++;
        type = NUMBER;
        value = Number(text.slice(start, pos));
      } else if (text.startsWith('true', pos)) {
        pos += 4;
        type = BOOLEAN;
        value = true;
      } else if (text.startsWith('false', pos)) {
        pos += 5;
        type = BOOLEAN;
        value = false;
      } else if (c === 58) {
        pos++;
        type = COLON;
      } else if (c === 44) {
        pos++;
        type = COMMA;
      } else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 47 || c === 46 || c === 45) {
        let i = pos;
        for (; i < n; i++) {
          const d = text.charCodeAt(i);
          if (d === 58 || d === 32 || d === 10 || d === 13 || d === 44) break;
        }
        value = text.slice(pos, i);
        pos = i;
        type = STRING;
      } else {
        type = INVALID;
        pos++;
      }
      lastNewline = c === 10;
      tokenEnd = pos;
      return;
    }
  };

  const entries: ClassicEntry[] = [];
  // Where the entry being read began, and the end of the last token it holds.
  let entryStart = 0;
  let lastValueEnd = 0;

  // The current token's type, read through a call: `next()` changes it (TypeScript would narrow a variable).
  const kind = (): number => type;

  /** yarn's Parser.parse(indent). */
  const parse = (indent: number): Fields => {
    // No prototype, as yarn's own map: a key named __proto__ is a key.
    const obj = Object.create(null) as Fields;
    for (;;) {
      if (kind() === NEWLINE) {
        next();
        if (indent === 0) continue;
        if (kind() !== INDENT) break;
        if (value === indent) next();
        else break;
      } else if (kind() === INDENT) {
        if (value === indent) next();
        else break;
      } else if (kind() === EOF) {
        break;
      } else if (kind() === STRING) {
        const keyLine = tokenLine;
        const keyStart = tokenStart;
        if (value === '') throw fail('an empty key', tokenLine);
        const keys = [value as string];
        next();
        while (kind() === COMMA) {
          next();
          if (kind() !== STRING || value === '') throw fail('a key list that is not strings', tokenLine);
          keys.push(value as string);
          next();
        }
        if (indent === 0) entryStart = text.lastIndexOf('\n', keyStart) + 1;
        if (kind() === COLON) {
          next();
          const nested = parse(indent + 1);
          for (const key of keys) obj[key] = nested;
          if (indent === 0) entries.push(entryOf(keys, nested, keyLine));
          if (indent !== 0 && kind() !== INDENT) break;
        } else if (kind() === BOOLEAN || kind() === STRING || kind() === NUMBER) {
          if (indent === 0) throw fail('an entry that is not a mapping', keyLine);
          for (const key of keys) obj[key] = value;
          lastValueEnd = tokenEnd;
          next();
        } else {
          throw fail('a key without a value', tokenLine);
        }
      } else {
        throw fail('an unexpected character', tokenLine);
      }
    }
    return obj;
  };

  const entryOf = (patterns: string[], fields: Fields, keyLine: number): ClassicEntry => {
    const version = fields['version'];
    if (typeof version !== 'string' || !VERSION.test(version.trim()))
      throw fail('an entry without a valid version', keyLine);
    const deps: [string, string][] = [];
    for (const field of ['dependencies', 'optionalDependencies']) {
      const map = fields[field];
      if (map === undefined) continue;
      if (typeof map !== 'object') throw fail('a dependency list that is not a mapping', keyLine);
      for (const [name, range] of Object.entries(map)) {
        if (typeof range === 'object') throw fail('a dependency without a range', keyLine);
        deps.push([name, String(range)]);
      }
    }
    const stop = text.indexOf('\n', Math.max(lastValueEnd, entryStart));
    return { patterns, text: text.slice(entryStart, stop === -1 ? n : stop), version, deps };
  };

  next();
  parse(0);
  if (kind() !== EOF)
    throw fail(
      'yarn stops reading it here (an indented line after a blank or comment line inside an entry)',
      tokenLine,
    );
  return entries;
}
