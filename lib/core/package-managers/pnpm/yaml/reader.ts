// The YAML a pnpm lockfile is written in, read line by line: block structure from indentation, one key and
// value per line, nothing built into objects and nothing expanded.
//
// Owns: `readYamlLines`: every content line of a document (text.ts decodes and splits them) with
// its depth, key and value, from the block structure the indentation gives, and each mapping's keys unique
// (the open blocks, key uniqueness and the reported line are blocks.ts; the scalar, flow and line
// parts scalar.ts, flow.ts and line.ts). It refuses what pnpm's
// YAML parser refuses (ERR_LOCKGUARD_BROKEN_LOCKFILE: a duplicate key, a tab or a bad indentation, a quote or flow
// collection not closed, a stray colon or indicator, a non-printable character, invalid UTF-8) and what YAML
// allows but pnpm never writes and a line reader cannot read faithfully (ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE:
// anchors, aliases and tags, complex keys, directives, a block scalar with an explicit indentation, nesting
// deeper than 64 levels). A value continued on the next line is refused as broken (pnpm writes each on one).
// Invariants: every refusal is a fixed reason plus a line and a column, never text from the file; one pass
// over the lines and no recursion (flow collections are read with an explicit stack), so no input can make
// it overflow the stack, expand an alias, or take more than linear time.

import { brokenLockfile, unsupportedLockfile } from '../../../lockfile-errors.js';
import { found, readKey, readValue, SIMPLE_KEY, SIMPLE_QUOTED_KEY, simpleValue } from './line.js';
import { isBlank, MAX_DEPTH, resetHash, skipBlanks, SPACE, TAB, type Fail } from './scalar.js';
import { Blocks, LineState, type YamlLine } from './blocks.js';
import type { DocumentSpan } from './text.js';

export type { YamlLine };

// biome-ignore lint/suspicious/noConfusingVoidType: a visitor may return nothing (keep visiting) or the depth it wants next.
type Visit = (line: YamlLine) => number | void;

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
export function readYamlLines(
  text: string,
  doc: DocumentSpan,
  path: string,
  visit: Visit,
  options: { readonly simple?: boolean } = {},
): number {
  resetHash();
  // The simple shapes' shortcut (on unless told otherwise: a test reads every line both ways and compares).
  return new LineReader(text, doc, path, visit, options.simple !== false).read();
}

/**
 * One document's reading: the open blocks and what the lines so far left open. `read` walks the lines;
 * each section of a line's reading is a method (a block scalar's line, where a line belongs, a sequence
 * entry: a bare `-`, `- value` or `- key: value`, a mapping line), all on this one object's fields, so
 * nothing is allocated per line.
 */
class LineReader {
  private readonly text: string;
  private readonly doc: DocumentSpan;
  private readonly visit: Visit;
  private readonly simple: boolean;
  private readonly blocks = new Blocks();
  private readonly line: LineState;
  // Where the line being read is, for the errors `fail` makes.
  private readonly where = { line: 0, start: 0 };
  private readonly fail: Fail;
  private top = -1;
  private lineNo: number;
  /** The last line opened a block ("key:" or "-" with nothing after): its indentation, else -1. */
  private opener = -1;
  private openerIsKey = false;
  /** Inside a block scalar: the indentation of the line that started it, and of its content (-1 until seen). */
  private scalarParent = -1;
  private scalarIndent = -1;
  private scalarDepth = 0;
  /** The deepest line the visitor wants reported now, and where the last content line ended. */
  private want = Number.POSITIVE_INFINITY;
  private lastEnd: number;

  constructor(text: string, doc: DocumentSpan, path: string, visit: Visit, simple: boolean) {
    this.text = text;
    this.doc = doc;
    this.visit = visit;
    this.simple = simple;
    this.line = new LineState(text);
    this.lineNo = doc.line - 1;
    this.lastEnd = doc.from;
    const where = this.where;
    this.fail = (kind, reason, offset) => {
      const position = { line: where.line, column: offset - where.start + 1 };
      return kind === 'broken' ? brokenLockfile(path, reason, position) : unsupportedLockfile(path, reason, position);
    };
  }

  /** Every line of the document; the end of its last content line. */
  read(): number {
    const { text, doc, fail } = this;
    for (let pos = doc.from; pos < doc.to; ) {
      const lineNo = ++this.lineNo;
      const lineStart = pos;
      let lineEnd = text.indexOf('\n', pos);
      if (lineEnd === -1 || lineEnd > doc.to) lineEnd = doc.to;
      pos = lineEnd + 1;
      this.where.line = lineNo;
      this.where.start = lineStart;
      let at = lineStart;
      while (at < lineEnd && text.charCodeAt(at) === SPACE) at++;
      const indent = at - lineStart;

      if (this.scalarParent !== -1 && this.scalarLine(lineStart, lineEnd, at, indent)) continue;
      if (at >= lineEnd) continue;
      const code = text.charCodeAt(at);
      if (code === TAB) {
        if (skipBlanks(text, at, lineEnd) >= lineEnd) continue;
        throw fail('broken', 'a tab is used for indentation', at);
      }
      if (code === 0x23) continue;
      if (
        indent === 0 &&
        (code === 0x2d || code === 0x2e) &&
        (text.startsWith('---', at) || text.startsWith('...', at)) &&
        (at + 3 === lineEnd || isBlank(text.charCodeAt(at + 3)))
      ) {
        throw fail('unsupported', 'a YAML document marker with text on its line, or a document end marker', at);
      }
      if (indent === 0 && code === 0x25) throw fail('unsupported', 'a YAML directive', at);

      const isItem = code === 0x2d && (at + 1 === lineEnd || isBlank(text.charCodeAt(at + 1)));
      this.place(at, indent, isItem);
      this.opener = -1;
      if (isItem) this.itemLine(lineStart, lineEnd, at, indent);
      else if (!this.simple || !this.simpleLine(lineStart, lineEnd, at, indent, code))
        this.keyLine(lineStart, lineEnd, at);
    }
    return this.lastEnd;
  }

  /** Hand the line (set by the caller) to the visitor, and take the depth it wants next. */
  private visited(): void {
    this.line.prevEnd = this.lastEnd;
    this.want = wanted(this.visit(this.line));
  }

  /** A line while a block scalar is open: true when it is the scalar's (blank or content), else the scalar ends. */
  private scalarLine(lineStart: number, lineEnd: number, at: number, indent: number): boolean {
    if (skipBlanks(this.text, at, lineEnd) >= lineEnd) return true;
    if (this.scalarIndent === -1 && indent > this.scalarParent) this.scalarIndent = indent;
    if (this.scalarIndent !== -1 && indent >= this.scalarIndent) {
      if (this.scalarDepth <= this.want) {
        this.line.set(
          this.lineNo,
          lineStart,
          lineEnd,
          this.scalarDepth,
          false,
          false,
          at,
          at,
          'block',
          at,
          lineEnd,
          undefined,
        );
        this.visited();
      }
      this.lastEnd = lineEnd;
      return true;
    }
    this.scalarParent = -1;
    this.scalarIndent = -1;
    return false;
  }

  /** Where this line belongs: a new block under the opener, or the open block with its indentation. */
  private place(at: number, indent: number, isItem: boolean): void {
    const { blocks, fail, opener } = this;
    const indents = blocks.indents;
    if (this.top === -1) {
      if (isItem) throw fail('broken', 'the top level is a sequence, not a mapping', at);
      blocks.open(++this.top, indent, false, false);
    } else if (opener !== -1 && indent > opener) {
      if (this.top + 1 >= MAX_DEPTH) throw fail('unsupported', `nesting deeper than ${MAX_DEPTH} levels`, at);
      blocks.open(++this.top, indent, isItem, false);
    } else if (opener !== -1 && indent === opener && isItem && this.openerIsKey) {
      if (this.top + 1 >= MAX_DEPTH) throw fail('unsupported', `nesting deeper than ${MAX_DEPTH} levels`, at);
      blocks.open(++this.top, indent, true, true);
    } else {
      let top = this.top;
      while (
        (indents[top] as number) > indent ||
        (blocks.flushes[top] === true && indents[top] === indent && !isItem)
      ) {
        top--;
        if (top === -1) throw fail('broken', 'a line is indented less than the top level', at);
      }
      this.top = top;
      if (indents[top] !== indent) {
        throw fail(
          'broken',
          (indents[top] as number) < indent
            ? 'a line is indented under a value that is already given on the line above'
            : 'a line is indented to no enclosing level',
          at,
        );
      }
      if (blocks.seqs[top] === true && !isItem) throw fail('broken', 'expected a sequence entry ("- ")', at);
      if (blocks.seqs[top] !== true && isItem) throw fail('broken', 'a sequence entry inside a mapping', at);
    }
  }

  /** A sequence entry: `-` alone (it opens a block), `- value`, or `- key: value` (a mapping at the key's column). */
  private itemLine(lineStart: number, lineEnd: number, at: number, indent: number): void {
    const { text, fail } = this;
    const content = skipBlanks(text, at + 1, lineEnd);
    if (content >= lineEnd || text.charCodeAt(content) === 0x23) {
      this.openerItem(lineStart, at, indent, content);
      return;
    }
    const code = text.charCodeAt(content);
    if (code === 0x2d && (content + 1 === lineEnd || isBlank(text.charCodeAt(content + 1))))
      throw fail('unsupported', 'a sequence nested on one line ("- - ")', content);
    if (!readKey(text, content, lineEnd, fail)) {
      this.valueItem(lineStart, lineEnd, indent, content);
      return;
    }
    // `- key: value`: a mapping whose keys sit at the key's column.
    const keyEnd = found.keyEnd;
    const after = found.after;
    if (this.top + 1 >= MAX_DEPTH) throw fail('unsupported', `nesting deeper than ${MAX_DEPTH} levels`, content);
    this.blocks.open(++this.top, content - lineStart, false, false);
    this.keyValue(lineStart, lineEnd, content, keyEnd, after, true);
  }

  /** `-` alone on its line (`content` is where its comment starts, or the line's end): it opens a block. */
  private openerItem(lineStart: number, at: number, indent: number, content: number): void {
    const depth = this.top;
    this.opener = indent;
    this.openerIsKey = false;
    if (depth <= this.want) {
      this.line.set(
        this.lineNo,
        lineStart,
        at + 1,
        depth,
        true,
        false,
        content,
        content,
        'none',
        content,
        content,
        undefined,
      );
      this.visited();
    }
    this.lastEnd = at + 1;
  }

  /** `- value` (from `content`): a scalar, a flow collection or the start of a block scalar. */
  private valueItem(lineStart: number, lineEnd: number, indent: number, content: number): void {
    const depth = this.top;
    readValue(this.text, content, lineEnd, this.fail, depth);
    if (found.kind === 'block') {
      this.scalarParent = indent;
      this.scalarDepth = depth + 1;
    }
    if (depth <= this.want) {
      const { kind, at, end } = found;
      this.line.set(this.lineNo, lineStart, end, depth, true, false, content, content, kind, at, end, undefined);
      this.visited();
    }
    this.lastEnd = found.end;
  }

  /** The lines pnpm writes most, recognized whole (see simpleValue): true when read, false for the general path. */
  private simpleLine(lineStart: number, lineEnd: number, at: number, indent: number, code: number): boolean {
    const { text } = this;
    const keyPattern = code === 0x27 ? SIMPLE_QUOTED_KEY : SIMPLE_KEY;
    keyPattern.lastIndex = at;
    if (!keyPattern.test(text)) return false;
    const keyEnd = keyPattern.lastIndex - 1;
    const kind = keyEnd + 1 === lineEnd ? 'none' : simpleValue(text, keyEnd, lineEnd);
    if (kind === undefined) return false;
    const depth = this.top;
    const decoded = this.blocks.addKey(text, depth, at, keyEnd, this.fail);
    const valueAt = kind === 'none' ? lineEnd : keyEnd + 2;
    if (kind === 'none') {
      this.opener = indent;
      this.openerIsKey = true;
    }
    if (depth <= this.want) {
      this.line.set(this.lineNo, lineStart, lineEnd, depth, false, true, at, keyEnd, kind, valueAt, lineEnd, decoded);
      this.line.keyIsString = this.blocks.keyType === 'string';
      this.visited();
    }
    this.lastEnd = lineEnd;
    return true;
  }

  /** A mapping line by the general path: `key: value`, `key:` (it opens a block), or a refusal. */
  private keyLine(lineStart: number, lineEnd: number, at: number): void {
    const { text, fail } = this;
    const depth = this.top;
    if (!readKey(text, at, lineEnd, fail)) {
      // Not "key: value": a scalar on its own line (a multi-line value, or a lost colon).
      readValue(text, at, lineEnd, fail, depth);
      throw fail('broken', 'expected "key: value" (a value continued on its own line is not read)', at);
    }
    this.keyValue(lineStart, lineEnd, at, found.keyEnd, found.after, false);
  }

  /**
   * A key read by readKey (`keyAt` to `keyEnd`, its value from `after`) in the open mapping: its uniqueness,
   * its value, the block it opens (`key:`) or the block scalar it starts, and the visit.
   */
  private keyValue(
    lineStart: number,
    lineEnd: number,
    keyAt: number,
    keyEnd: number,
    after: number,
    item: boolean,
  ): void {
    const { text, fail, line, blocks } = this;
    const depth = this.top;
    const column = keyAt - lineStart;
    const decoded = blocks.addKey(text, depth, keyAt, keyEnd, fail);
    readValue(text, after, lineEnd, fail, depth);
    if (found.kind === 'none') {
      this.opener = column;
      this.openerIsKey = true;
    }
    if (found.kind === 'block') {
      this.scalarParent = column;
      this.scalarDepth = depth + 1;
    }
    const end = found.kind === 'none' ? after : found.end;
    if (depth <= this.want) {
      line.set(this.lineNo, lineStart, end, depth, item, true, keyAt, keyEnd, found.kind, found.at, found.end, decoded);
      line.keyIsString = blocks.keyType === 'string';
      this.visited();
    }
    this.lastEnd = end;
  }
}
