// yarn v1's yarn.lock read with yarn 1's own grammar: its tokenizer and parser (yarn 1.22.22
// src/lockfile/parse.js), ported so that lockguard reads exactly the entries, fields and dependencies yarn reads.
//
// Owns: `parseYarnClassic` (text in, entries out: each with its patterns, its exact text, version and
// dependencies as yarn's parse leaves them: a key given twice keeps its last value), read by one
// `ClassicParser`: the tokenizer's state and the current token are its fields, each token kind and the
// parse its methods.
// yarn 1's reader: a quoted string is JSON; a bare word starts with a letter, `/`, `.` or `-` and runs to a
// space, `:`, `,` or line break; digits are a number, `true`/`false` booleans; `#` starts a comment; spaces
// after a line break are the indentation, in steps of two (odd: "Invalid number of spaces"); any other
// character is an invalid token. When its parser fails, yarn 1 tries the file as YAML: a layout it never
// writes, which lockguard refuses too (ERR_LOCKGUARD_BROKEN_LOCKFILE, "not in yarn 1's lockfile syntax"). So is
// a file yarn stops reading before its end (an indented line after a blank or comment line inside an entry:
// yarn ignores the rest), an entry that is not a mapping, a version that is not a version (yarn: "invalid
// package version"), and dependency maps that are not maps.
// Invariants: one pass, no recursion deeper than the file's indentation levels nor than MAX_DEPTH (deeper is
// ERR_LOCKGUARD_BROKEN_LOCKFILE, exit 2), never echoes the file.

import type { LockguardError } from '../../errors.js';
import { brokenLockfile } from '../../lockfile-errors.js';

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

/**
 * The deepest nesting read: a lockfile yarn writes nests three levels (entry, field, dependency); the parser
 * recurses once per level, so a file nested thousands deep is refused here, never a RangeError (exit 70).
 */
const MAX_DEPTH = 100;

/** A version as semver reads one (yarn 1 refuses others): `1.2.3`, pre-release and build parts, a `v` or `=` first. */
const VERSION = /^[v=]?\d+\.\d+\.\d+(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** Read a v1 yarn.lock's text (line breaks already "\n") into entries (`path` names the file in errors). */
export function parseYarnClassic(text: string, path: string): ClassicEntry[] {
  return new ClassicParser(text, path).read();
}

/**
 * yarn 1's Tokenizer and Parser over one text, their state in this one object's fields (nothing allocated
 * per token): the tokenizer's place and the current token; `next` reads a token, the kinds that span
 * characters a method each (an indentation, a quoted string, a bare word); `parse` is yarn's Parser.parse,
 * `entryOf` an entry from a top-level key's mapping.
 */
class ClassicParser {
  private readonly text: string;
  private readonly path: string;
  private readonly n: number;
  private pos = 0;
  private line = 1;
  private lastNewline = false;
  // The current token.
  private type: number = EOF;
  private value: string | number | boolean = '';
  private tokenLine = 1;
  private tokenStart = 0;
  private tokenEnd = 0;
  private readonly entries: ClassicEntry[] = [];
  // Where the entry being read began, and the end of the last token it holds.
  private entryStart = 0;
  private lastValueEnd = 0;

  constructor(text: string, path: string) {
    this.text = text;
    this.path = path;
    this.n = text.length;
  }

  read(): ClassicEntry[] {
    this.next();
    this.parse(0);
    if (this.kind() !== EOF)
      throw this.fail(
        'yarn stops reading it here (an indented line after a blank or comment line inside an entry)',
        this.tokenLine,
      );
    return this.entries;
  }

  private fail(reason: string, at: number): LockguardError {
    return brokenLockfile(this.path, `${reason}: it is not in yarn 1's lockfile syntax`, { line: at, column: 1 });
  }

  /** The current token's type, read through a call: `next()` changes it (TypeScript would narrow the field). */
  private kind(): number {
    return this.type;
  }

  /** The next token that is not a comment (yarn's Parser.next). */
  private next(): void {
    const text = this.text;
    for (;;) {
      const pos = this.pos;
      if (pos >= this.n) {
        this.type = EOF;
        this.tokenLine = this.line;
        return;
      }
      const c = text.charCodeAt(pos);
      this.tokenLine = this.line;
      this.tokenStart = pos;
      if (c === 10) {
        this.pos = pos + 1;
        this.line++;
        this.type = NEWLINE;
      } else if (c === 35) {
        const end = text.indexOf('\n', pos);
        this.pos = end === -1 ? this.n : end;
        this.lastNewline = false;
        continue;
      } else if (c === 32) {
        if (!this.lastNewline) {
          this.pos = pos + 1;
          continue;
        }
        this.indent();
      } else if (c === 34) {
        this.quoted();
      } else if (c >= 48 && c <= 57) {
        let end = pos + 1;
        while (end < this.n && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
        this.pos = end;
        this.type = NUMBER;
        this.value = Number(text.slice(pos, end));
      } else if (text.startsWith('true', pos)) {
        this.symbol(pos + 4, BOOLEAN);
        this.value = true;
      } else if (text.startsWith('false', pos)) {
        this.symbol(pos + 5, BOOLEAN);
        this.value = false;
      } else if (c === 58) {
        this.symbol(pos + 1, COLON);
      } else if (c === 44) {
        this.symbol(pos + 1, COMMA);
      } else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 47 || c === 46 || c === 45) {
        this.word();
      } else {
        this.symbol(pos + 1, INVALID);
      }
      this.lastNewline = c === 10;
      this.tokenEnd = this.pos;
      return;
    }
  }

  /** A token of fixed characters ending at `end` (its value, if any, set by the caller). */
  private symbol(end: number, type: number): void {
    this.pos = end;
    this.type = type;
  }

  /** The spaces after a line break: the indentation, in steps of two. */
  private indent(): void {
    const text = this.text;
    const from = this.pos;
    let end = from;
    while (text.charCodeAt(end) === 32) end++;
    this.pos = end;
    const size = end - from;
    if (size % 2 !== 0) throw this.fail('an odd indentation', this.line);
    this.type = INDENT;
    this.value = size / 2;
  }

  /** A quoted string: JSON, to the first quote not escaped as yarn 1 sees an escape (it may span lines). */
  private quoted(): void {
    const { text, n, pos } = this;
    let i = pos + 1;
    for (; i < n; i++) {
      if (text.charCodeAt(i) === 34 && !(text.charCodeAt(i - 1) === 92 && text.charCodeAt(i - 2) !== 92)) {
        i++;
        break;
      }
    }
    const raw = text.slice(pos, i);
    for (let k = pos; k < i; k++) if (text.charCodeAt(k) === 10) this.line++;
    this.pos = i;
    try {
      this.value = JSON.parse(raw) as string;
      this.type = typeof this.value === 'string' ? STRING : INVALID;
    } catch {
      this.type = INVALID;
    }
  }

  /** A bare word: to a space, `:`, `,` or line break. */
  private word(): void {
    const { text, n, pos } = this;
    let i = pos;
    for (; i < n; i++) {
      const d = text.charCodeAt(i);
      if (d === 58 || d === 32 || d === 10 || d === 13 || d === 44) break;
    }
    this.value = text.slice(pos, i);
    this.pos = i;
    this.type = STRING;
  }

  /** yarn's Parser.parse(indent). */
  private parse(indent: number): Fields {
    // No prototype, as yarn's own map: a key named __proto__ is a key.
    const obj = Object.create(null) as Fields;
    for (;;) {
      if (this.kind() === NEWLINE) {
        this.next();
        if (indent === 0) continue;
        if (this.kind() !== INDENT) break;
        if (this.value === indent) this.next();
        else break;
      } else if (this.kind() === INDENT) {
        if (this.value === indent) this.next();
        else break;
      } else if (this.kind() === EOF) {
        break;
      } else if (this.kind() === STRING) {
        const keyLine = this.tokenLine;
        const keyStart = this.tokenStart;
        if (this.value === '') throw this.fail('an empty key', this.tokenLine);
        const keys = [this.value as string];
        this.next();
        while (this.kind() === COMMA) {
          this.next();
          if (this.kind() !== STRING || this.value === '')
            throw this.fail('a key list that is not strings', this.tokenLine);
          keys.push(this.value as string);
          this.next();
        }
        if (indent === 0) this.entryStart = this.text.lastIndexOf('\n', keyStart) + 1;
        if (this.kind() === COLON) {
          this.next();
          // yarn 1's own parser recurses here too and overflows its stack thousands of levels down.
          if (indent === MAX_DEPTH) throw this.fail(`mappings nested deeper than ${MAX_DEPTH} levels`, keyLine);
          const nested = this.parse(indent + 1);
          for (const key of keys) obj[key] = nested;
          if (indent === 0) this.entries.push(this.entryOf(keys, nested, keyLine));
          if (indent !== 0 && this.kind() !== INDENT) break;
        } else if (this.kind() === BOOLEAN || this.kind() === STRING || this.kind() === NUMBER) {
          if (indent === 0) throw this.fail('an entry that is not a mapping', keyLine);
          for (const key of keys) obj[key] = this.value;
          this.lastValueEnd = this.tokenEnd;
          this.next();
        } else {
          throw this.fail('a key without a value', this.tokenLine);
        }
      } else {
        throw this.fail('an unexpected character', this.tokenLine);
      }
    }
    return obj;
  }

  /** The entry a top-level key list and its mapping make (its text to the end of the last value it holds). */
  private entryOf(patterns: string[], fields: Fields, keyLine: number): ClassicEntry {
    const version = fields['version'];
    if (typeof version !== 'string' || !VERSION.test(version.trim()))
      throw this.fail('an entry without a valid version', keyLine);
    const deps: [string, string][] = [];
    for (const field of ['dependencies', 'optionalDependencies']) {
      const map = fields[field];
      if (map === undefined) continue;
      if (typeof map !== 'object') throw this.fail('a dependency list that is not a mapping', keyLine);
      for (const [name, range] of Object.entries(map)) {
        if (typeof range === 'object') throw this.fail('a dependency without a range', keyLine);
        deps.push([name, String(range)]);
      }
    }
    const text = this.text;
    const stop = text.indexOf('\n', Math.max(this.lastValueEnd, this.entryStart));
    return { patterns, text: text.slice(this.entryStart, stop === -1 ? this.n : stop), version, deps };
  }
}
