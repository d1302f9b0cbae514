// The block structure of a pnpm lockfile's YAML as the line reader (reader.ts) keeps it, and the line it
// reports.
//
// Owns: `YamlLine` (what a visitor is told about one content line) and `LineState`, the one object that
// carries it, reused for every line; `Blocks`, the open blocks of a document (indent, sequence or mapping)
// and each mapping's keys, unique as js-yaml compares them (plain string keys by offsets, other keys as
// strings, a set once a mapping is large).
// Invariants: nothing is allocated per line or per mapping (parallel arrays reused from line to line); a
// duplicate is a fixed reason plus a position (`fail`), never text from the file.

import type { ValueKind } from './line.js';
import { keyString, plainTypeAt, unquote, type Fail, type PlainType } from './scalar.js';

/**
 * One content line (comment and blank lines are not reported; block scalar content lines are, as kind
 * 'block'). The reader passes the same object for every line: read it during the call, keep nothing of it.
 */
export interface YamlLine {
  /** 1-based line number. */
  readonly line: number;
  /** Offset of the line's first character. */
  readonly start: number;
  /** Offset just after the line's content (trailing blanks and comment excluded). */
  readonly end: number;
  /** Nesting depth: 0 for the document's top-level keys; a compact `- key:` line has its mapping's depth. */
  readonly depth: number;
  /** The line is a sequence entry (`- ...`). */
  readonly item: boolean;
  /** The key, decoded (`'@a/b@1.0.0'` -> `@a/b@1.0.0`); undefined for a plain sequence entry or scalar content. */
  readonly key: string | undefined;
  /** Offset and end of the key as written (its quotes included, when quoted). */
  readonly keyAt: number;
  readonly keyEnd: number;
  readonly kind: ValueKind;
  /** Offset and end of the value as written (quotes and brackets included); equal when there is none. */
  readonly valueAt: number;
  readonly valueEnd: number;
  /** Where the content line before this one ended (visited or not): an entry's text ends there when this line starts the next one. */
  readonly prevEnd: number;
  /** Whether YAML reads the key as a string (a quoted key, or a plain one that is no number, boolean, null or date). */
  readonly keyIsString: boolean;
  /** Whether the key is `name` (no string is made for a plain key). */
  keyIs(name: string): boolean;
}

/** A mapping with more keys than this checks duplicates with a set of strings. */
const SMALL_MAPPING = 12;

/** Whether text[a, a + length) equals text[b, b + length). */
function sameSpan(text: string, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
  return true;
}

/** The line a reader reports, one object reused for every line; the key string is made only when asked for. */
export class LineState implements YamlLine {
  line = 0;
  start = 0;
  end = 0;
  depth = 0;
  item = false;
  hasKey = false;
  keyAt = 0;
  keyEnd = 0;
  kind: ValueKind = 'none';
  valueAt = 0;
  valueEnd = 0;
  decoded: string | undefined = undefined;
  keyIsString = true;
  prevEnd = 0;
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  get key(): string | undefined {
    if (!this.hasKey) return undefined;
    if (this.decoded === undefined) this.decoded = keyText(this.text, this.keyAt, this.keyEnd);
    return this.decoded;
  }

  set(
    lineNo: number,
    start: number,
    end: number,
    depth: number,
    item: boolean,
    hasKey: boolean,
    keyAt: number,
    keyEnd: number,
    kind: ValueKind,
    valueAt: number,
    valueEnd: number,
    decoded: string | undefined,
  ): void {
    this.line = lineNo;
    this.start = start;
    this.end = end;
    this.depth = depth;
    this.item = item;
    this.hasKey = hasKey;
    this.keyAt = keyAt;
    this.keyEnd = keyEnd;
    this.kind = kind;
    this.valueAt = valueAt;
    this.valueEnd = valueEnd;
    this.decoded = decoded;
  }

  keyIs(name: string): boolean {
    if (!this.hasKey) return false;
    const code = this.text.charCodeAt(this.keyAt);
    if (code === 0x27 || code === 0x22) return this.key === name;
    return this.keyEnd - this.keyAt === name.length && this.text.startsWith(name, this.keyAt);
  }
}

/** A key as written at [at, end), decoded. */
function keyText(text: string, at: number, end: number): string {
  const code = text.charCodeAt(at);
  return code === 0x27 || code === 0x22 ? unquote(text.slice(at, end)) : text.slice(at, end);
}

/**
 * The open blocks of a document, innermost at depth `top`, as parallel arrays reused from line to line:
 * nothing is allocated per mapping. A mapping's keys, as js-yaml compares them: plain string keys as offsets
 * (start, end), the others (quoted, or plain of another YAML type) as strings, and all as a set of strings
 * once the mapping is large.
 */
export class Blocks {
  readonly indents: number[] = [];
  readonly seqs: boolean[] = [];
  readonly flushes: boolean[] = [];
  readonly plainKeys: number[][] = [];
  readonly namedKeys: string[][] = [];
  readonly plainCounts: number[] = [];
  readonly namedCounts: number[] = [];
  readonly keySets: (Set<string> | undefined)[] = [];
  /** The YAML type of the key addKey last saw (the line reports it). */
  keyType: PlainType = 'string';

  /** Open a block at `depth`. */
  open(depth: number, indent: number, seq: boolean, flush: boolean): void {
    this.indents[depth] = indent;
    this.seqs[depth] = seq;
    this.flushes[depth] = flush;
    this.plainKeys[depth] ??= [];
    this.namedKeys[depth] ??= [];
    this.plainCounts[depth] = 0;
    this.namedCounts[depth] = 0;
    this.keySets[depth] = undefined;
  }

  /**
   * Record the key at [at, end) in the mapping at `depth`; throws for a duplicate. Returns the key as a
   * string when it made one (the line then hands the same string to the visitor).
   */
  addKey(text: string, depth: number, at: number, end: number, fail: Fail): string | undefined {
    const code = text.charCodeAt(at);
    const quoted = code === 0x27 || code === 0x22;
    // plainTypeAt's own first test, inlined: a key starting with a letter but t, f, n (any case) is a string.
    const letter = (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
    const type =
      quoted ||
      (letter && code !== 0x74 && code !== 0x54 && code !== 0x66 && code !== 0x46 && code !== 0x6e && code !== 0x4e)
        ? 'string'
        : plainTypeAt(text, at, end);
    this.keyType = type;
    if (type === 'merge') throw fail('unsupported', 'a YAML merge key ("<<")', at);
    const set = this.keySets[depth];
    if (set !== undefined) {
      const decoded = quoted ? keyText(text, at, end) : text.slice(at, end);
      const key = type === 'string' ? decoded : keyString(decoded, type);
      if (set.has(key)) throw fail('broken', 'a mapping has a duplicate key', at);
      set.add(key);
      return decoded;
    }
    const plain = this.plainKeys[depth] as number[];
    const named = this.namedKeys[depth] as string[];
    const plainCount = this.plainCounts[depth] as number;
    const namedCount = this.namedCounts[depth] as number;
    let decoded: string | undefined;
    if (!quoted && type === 'string') {
      const length = end - at;
      const last = text.charCodeAt(end - 1);
      for (let i = 0; i < plainCount; i += 2) {
        const from = plain[i] as number;
        // Length, then last character (keys of one mapping mostly differ there), then the whole span.
        if (
          (plain[i + 1] as number) - from === length &&
          text.charCodeAt(from + length - 1) === last &&
          sameSpan(text, from, at, length)
        )
          throw fail('broken', 'a mapping has a duplicate key', at);
      }
      for (let i = 0; i < namedCount; i++)
        if ((named[i] as string).length === length && text.startsWith(named[i] as string, at))
          throw fail('broken', 'a mapping has a duplicate key', at);
      plain[plainCount] = at;
      plain[plainCount + 1] = end;
      this.plainCounts[depth] = plainCount + 2;
    } else {
      decoded = quoted ? keyText(text, at, end) : text.slice(at, end);
      const key = type === 'string' ? decoded : keyString(decoded, type);
      for (let i = 0; i < namedCount; i++)
        if (named[i] === key) throw fail('broken', 'a mapping has a duplicate key', at);
      for (let i = 0; i < plainCount; i += 2)
        if ((plain[i + 1] as number) - (plain[i] as number) === key.length && text.startsWith(key, plain[i] as number))
          throw fail('broken', 'a mapping has a duplicate key', at);
      named[namedCount] = key;
      this.namedCounts[depth] = namedCount + 1;
    }
    if ((this.plainCounts[depth] as number) / 2 + (this.namedCounts[depth] as number) > SMALL_MAPPING)
      this.toSet(text, depth);
    return decoded;
  }

  /** The mapping at `depth` has grown past SMALL_MAPPING: its keys from now on as a set of strings. */
  private toSet(text: string, depth: number): void {
    const plain = this.plainKeys[depth] as number[];
    const all = new Set((this.namedKeys[depth] as string[]).slice(0, this.namedCounts[depth]));
    for (let i = 0; i < (this.plainCounts[depth] as number); i += 2)
      all.add(text.slice(plain[i] as number, plain[i + 1] as number));
    this.keySets[depth] = all;
  }
}
