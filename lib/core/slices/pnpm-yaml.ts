// The YAML a pnpm lockfile is written in, read line by line: block structure from indentation, one key and
// value per line, nothing built into objects and nothing expanded.
//
// Owns: `readYamlLines`: every content line of a document (pnpm-yaml-text.ts decodes and splits them) with
// its depth, key and value, from the block structure the indentation gives, and each mapping's keys unique
// (the scalar, flow and line parts are pnpm-yaml-scalar.ts, -flow.ts and -line.ts). It refuses what pnpm's
// YAML parser refuses (ERR_LOCKGUARD_BROKEN_LOCKFILE: a duplicate key, a tab or a bad indentation, a quote or flow
// collection not closed, a stray colon or indicator, a non-printable character, invalid UTF-8) and what YAML
// allows but pnpm never writes and a line reader cannot read faithfully (ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE:
// anchors, aliases and tags, complex keys, directives, a block scalar with an explicit indentation, nesting
// deeper than 64 levels). A value continued on the next line is refused as broken (pnpm writes each on one).
// Invariants: every refusal is a fixed reason plus a line and a column, never text from the file; one pass
// over the lines and no recursion (flow collections are read with an explicit stack), so no input can make
// it overflow the stack, expand an alias, or take more than linear time.

import { brokenLockfile, unsupportedLockfile } from '../lockfile-errors.js';
import { found, readKey, readValue, SIMPLE_KEY, SIMPLE_QUOTED_KEY, simpleValue, type ValueKind } from './pnpm-yaml-line.js';
import { isBlank, keyString, MAX_DEPTH, plainTypeAt, resetHash, skipBlanks, SPACE, TAB, unquote, type Fail, type PlainType } from './pnpm-yaml-scalar.js';
import type { DocumentSpan } from './pnpm-yaml-text.js';

export type { ValueKind };

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
class LineState implements YamlLine {
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

  set(lineNo: number, start: number, end: number, depth: number, item: boolean, hasKey: boolean, keyAt: number, keyEnd: number, kind: ValueKind, valueAt: number, valueEnd: number, decoded: string | undefined): void {
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
class Blocks {
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
    const type = quoted || (letter && code !== 0x74 && code !== 0x54 && code !== 0x66 && code !== 0x46 && code !== 0x6e && code !== 0x4e) ? 'string' : plainTypeAt(text, at, end);
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
        if ((plain[i + 1] as number) - from === length && text.charCodeAt(from + length - 1) === last && sameSpan(text, from, at, length)) throw fail('broken', 'a mapping has a duplicate key', at);
      }
      for (let i = 0; i < namedCount; i++) if ((named[i] as string).length === length && text.startsWith(named[i] as string, at)) throw fail('broken', 'a mapping has a duplicate key', at);
      plain[plainCount] = at;
      plain[plainCount + 1] = end;
      this.plainCounts[depth] = plainCount + 2;
    } else {
      decoded = quoted ? keyText(text, at, end) : text.slice(at, end);
      const key = type === 'string' ? decoded : keyString(decoded, type);
      for (let i = 0; i < namedCount; i++) if (named[i] === key) throw fail('broken', 'a mapping has a duplicate key', at);
      for (let i = 0; i < plainCount; i += 2) if ((plain[i + 1] as number) - (plain[i] as number) === key.length && text.startsWith(key, plain[i] as number)) throw fail('broken', 'a mapping has a duplicate key', at);
      named[namedCount] = key;
      this.namedCounts[depth] = namedCount + 1;
    }
    if ((this.plainCounts[depth] as number) / 2 + (this.namedCounts[depth] as number) > SMALL_MAPPING) {
      const all = new Set(named.slice(0, this.namedCounts[depth]));
      for (let i = 0; i < (this.plainCounts[depth] as number); i += 2) all.add(text.slice(plain[i] as number, plain[i + 1] as number));
      this.keySets[depth] = all;
    }
    return decoded;
  }
}

/** The depth a visitor asked for (none: every line). */
// biome-ignore lint/suspicious/noConfusingVoidType: a visitor may return nothing (keep visiting) or the depth it wants next.
const wanted = (asked: number | void): number => (typeof asked === 'number' ? asked : Number.POSITIVE_INFINITY);

/**
 * Every content line of the document `doc`, in order, to `visit`; throws ERR_LOCKGUARD_BROKEN_LOCKFILE or
 * ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE (naming `path`, the reason, line and column) where the text leaves pnpm's
 * YAML. The top level must be a mapping. Every line is checked; `visit` is called for those not deeper than
 * the depth its last call returned (none: every line), and told where the previous content line ended
 * (`prevEnd`, visited or not). Returns the end of the document's last content line. `simple: false` reads
 * every line by the general path (for tests).
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a visitor may return nothing (keep visiting) or the depth it wants next.
export function readYamlLines(text: string, doc: DocumentSpan, path: string, visit: (line: YamlLine) => number | void, options: { readonly simple?: boolean } = {}): number {
  resetHash();
  // The simple shapes' shortcut (on unless told otherwise: a test reads every line both ways and compares).
  const simple = options.simple !== false;
  const blocks = new Blocks();
  // Where the line being read is, for errors (the loop's own counters stay locals: closures do not capture them).
  const where = { line: 0, start: 0 };
  const fail: Fail = (kind, reason, offset) => {
    const position = { line: where.line, column: offset - where.start + 1 };
    return kind === 'broken' ? brokenLockfile(path, reason, position) : unsupportedLockfile(path, reason, position);
  };
  const line = new LineState(text);
  const indents = blocks.indents;
  let top = -1;
  let lineNo = doc.line - 1;
  /** The last line opened a block ("key:" or "-" with nothing after): its indentation, else -1. */
  let opener = -1;
  let openerIsKey = false;
  /** Inside a block scalar: the indentation of the line that started it, and of its content (-1 until seen). */
  let scalarParent = -1;
  let scalarIndent = -1;
  let scalarDepth = 0;
  /** The deepest line the visitor wants reported now, and where the last content line ended. */
  let want = Number.POSITIVE_INFINITY;
  let lastEnd = doc.from;

  for (let pos = doc.from; pos < doc.to; ) {
    lineNo++;
    const lineStart = pos;
    let lineEnd = text.indexOf('\n', pos);
    if (lineEnd === -1 || lineEnd > doc.to) lineEnd = doc.to;
    pos = lineEnd + 1;
    where.line = lineNo;
    where.start = lineStart;
    let at = lineStart;
    while (at < lineEnd && text.charCodeAt(at) === SPACE) at++;
    const indent = at - lineStart;

    if (scalarParent !== -1) {
      if (skipBlanks(text, at, lineEnd) >= lineEnd) continue;
      if (scalarIndent === -1 && indent > scalarParent) scalarIndent = indent;
      if (scalarIndent !== -1 && indent >= scalarIndent) {
        if (scalarDepth <= want) {
          line.set(lineNo, lineStart, lineEnd, scalarDepth, false, false, at, at, 'block', at, lineEnd, undefined);
          line.prevEnd = lastEnd;
          want = wanted(visit(line));
        }
        lastEnd = lineEnd;
        continue;
      }
      scalarParent = -1;
      scalarIndent = -1;
    }
    if (at >= lineEnd) continue;
    let code = text.charCodeAt(at);
    if (code === TAB) {
      if (skipBlanks(text, at, lineEnd) >= lineEnd) continue;
      throw fail('broken', 'a tab is used for indentation', at);
    }
    if (code === 0x23) continue;
    if (indent === 0 && (code === 0x2d || code === 0x2e) && (text.startsWith('---', at) || text.startsWith('...', at)) && (at + 3 === lineEnd || isBlank(text.charCodeAt(at + 3)))) {
      throw fail('unsupported', 'a YAML document marker with text on its line, or a document end marker', at);
    }
    if (indent === 0 && code === 0x25) throw fail('unsupported', 'a YAML directive', at);

    const isItem = code === 0x2d && (at + 1 === lineEnd || isBlank(text.charCodeAt(at + 1)));
    // Where this line belongs: a new block under the opener, or the open block with its indentation.
    if (top === -1) {
      if (isItem) throw fail('broken', 'the top level is a sequence, not a mapping', at);
      blocks.open(++top, indent, false, false);
    } else if (opener !== -1 && indent > opener) {
      if (top + 1 >= MAX_DEPTH) throw fail('unsupported', `nesting deeper than ${MAX_DEPTH} levels`, at);
      blocks.open(++top, indent, isItem, false);
    } else if (opener !== -1 && indent === opener && isItem && openerIsKey) {
      if (top + 1 >= MAX_DEPTH) throw fail('unsupported', `nesting deeper than ${MAX_DEPTH} levels`, at);
      blocks.open(++top, indent, true, true);
    } else {
      while ((indents[top] as number) > indent || (blocks.flushes[top] === true && indents[top] === indent && !isItem)) {
        top--;
        if (top === -1) throw fail('broken', 'a line is indented less than the top level', at);
      }
      if (indents[top] !== indent) {
        throw fail('broken', (indents[top] as number) < indent ? 'a line is indented under a value that is already given on the line above' : 'a line is indented to no enclosing level', at);
      }
      if (blocks.seqs[top] === true && !isItem) throw fail('broken', 'expected a sequence entry ("- ")', at);
      if (blocks.seqs[top] !== true && isItem) throw fail('broken', 'a sequence entry inside a mapping', at);
    }
    opener = -1;
    let depth = top;

    if (isItem) {
      const content = skipBlanks(text, at + 1, lineEnd);
      if (content >= lineEnd || text.charCodeAt(content) === 0x23) {
        opener = indent;
        openerIsKey = false;
        if (depth <= want) {
          line.set(lineNo, lineStart, at + 1, depth, true, false, content, content, 'none', content, content, undefined);
          line.prevEnd = lastEnd;
          want = wanted(visit(line));
        }
        lastEnd = at + 1;
        continue;
      }
      code = text.charCodeAt(content);
      if (code === 0x2d && (content + 1 === lineEnd || isBlank(text.charCodeAt(content + 1)))) throw fail('unsupported', 'a sequence nested on one line ("- - ")', content);
      if (!readKey(text, content, lineEnd, fail)) {
        readValue(text, content, lineEnd, fail, depth);
        if (found.kind === 'block') {
          scalarParent = indent;
          scalarDepth = depth + 1;
        }
        if (depth <= want) {
          line.set(lineNo, lineStart, found.end, depth, true, false, content, content, found.kind, found.at, found.end, undefined);
          line.prevEnd = lastEnd;
          want = wanted(visit(line));
        }
        lastEnd = found.end;
        continue;
      }
      // `- key: value`: a mapping whose keys sit at the key's column.
      const keyEnd = found.keyEnd;
      const after = found.after;
      if (top + 1 >= MAX_DEPTH) throw fail('unsupported', `nesting deeper than ${MAX_DEPTH} levels`, content);
      blocks.open(++top, content - lineStart, false, false);
      depth = top;
      const decoded = blocks.addKey(text, depth, content, keyEnd, fail);
      readValue(text, after, lineEnd, fail, depth);
      if (found.kind === 'none') {
        opener = content - lineStart;
        openerIsKey = true;
      }
      if (found.kind === 'block') {
        scalarParent = content - lineStart;
        scalarDepth = depth + 1;
      }
      const end = found.kind === 'none' ? after : found.end;
      if (depth <= want) {
        line.set(lineNo, lineStart, end, depth, true, true, content, keyEnd, found.kind, found.at, found.end, decoded);
        line.keyIsString = blocks.keyType === 'string';
        line.prevEnd = lastEnd;
        want = wanted(visit(line));
      }
      lastEnd = end;
      continue;
    }

    // The lines pnpm writes most, recognized whole (see simpleValueEnd); anything else takes the general path.
    const keyPattern = code === 0x27 ? SIMPLE_QUOTED_KEY : SIMPLE_KEY;
    keyPattern.lastIndex = at;
    if (simple && keyPattern.test(text)) {
      const keyEnd = keyPattern.lastIndex - 1;
      const kind = keyEnd + 1 === lineEnd ? 'none' : simpleValue(text, keyEnd, lineEnd);
      if (kind !== undefined) {
        const decoded = blocks.addKey(text, depth, at, keyEnd, fail);
        const valueAt = kind === 'none' ? lineEnd : keyEnd + 2;
        if (kind === 'none') {
          opener = indent;
          openerIsKey = true;
        }
        if (depth <= want) {
          line.set(lineNo, lineStart, lineEnd, depth, false, true, at, keyEnd, kind, valueAt, lineEnd, decoded);
          line.keyIsString = blocks.keyType === 'string';
          line.prevEnd = lastEnd;
          want = wanted(visit(line));
        }
        lastEnd = lineEnd;
        continue;
      }
    }
    if (!readKey(text, at, lineEnd, fail)) {
      // Not "key: value": a scalar on its own line (a multi-line value, or a lost colon).
      readValue(text, at, lineEnd, fail, depth);
      throw fail('broken', 'expected "key: value" (a value continued on its own line is not read)', at);
    }
    const keyEnd = found.keyEnd;
    const after = found.after;
    const decoded = blocks.addKey(text, depth, at, keyEnd, fail);
    readValue(text, after, lineEnd, fail, depth);
    if (found.kind === 'none') {
      opener = indent;
      openerIsKey = true;
    }
    if (found.kind === 'block') {
      scalarParent = indent;
      scalarDepth = depth + 1;
    }
    const end = found.kind === 'none' ? after : found.end;
    if (depth <= want) {
      line.set(lineNo, lineStart, end, depth, false, true, at, keyEnd, found.kind, found.at, found.end, decoded);
      line.keyIsString = blocks.keyType === 'string';
      line.prevEnd = lastEnd;
      want = wanted(visit(line));
    }
    lastEnd = end;
  }
  return lastEnd;
}
