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

import { brokenLockfile, unsupportedLockfile } from '../../lockfile-errors.js';
import { found, readKey, readValue, SIMPLE_KEY, SIMPLE_QUOTED_KEY, simpleValue, type ValueKind } from './line.js';
import { isBlank, MAX_DEPTH, resetHash, skipBlanks, SPACE, TAB, type Fail } from './scalar.js';
import { Blocks, LineState, type YamlLine } from './blocks.js';
import type { DocumentSpan } from './text.js';

export type { ValueKind, YamlLine };

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
