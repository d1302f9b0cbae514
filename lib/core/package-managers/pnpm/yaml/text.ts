// Decoding a pnpm lockfile's bytes as pnpm reads them, and splitting the text into YAML documents.
//
// Owns: `decodePnpmLockfile` (UTF-8, which pnpm 12 requires: invalid UTF-8 is refused with its position; a
// leading BOM dropped; CRLF and a lone CR read as line breaks, as YAML reads them; a non-printable character,
// which js-yaml refuses, refused with its position) and `yamlDocuments` (the non-empty documents between
// `---` lines: pnpm 12 writes an env document before the main one).
// Invariants: a refusal names a reason, a line and a column, never text from the file.

import { isUtf8 } from 'node:buffer';
import { brokenLockfile, positionAt } from '../../../lockfile-errors.js';

export interface DocumentSpan {
  readonly from: number;
  readonly to: number;
  /** 1-based line number of the document's first line. */
  readonly line: number;
}

// js-yaml's "non-printable characters" (C0 controls but tab and line breaks, DEL, C1 but NEL, U+FFFE/FFFF).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this regex's purpose.
export const NON_PRINTABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]/;

/** The lockfile's text as pnpm reads it, line breaks normalized to "\n"; throws for invalid UTF-8 or a non-printable character. */
export function decodePnpmLockfile(bytes: Uint8Array, path: string): string {
  if (!isUtf8(bytes)) {
    const at = firstInvalidUtf8(bytes);
    const before = Buffer.from(bytes.buffer, bytes.byteOffset, at).toString('utf8');
    const normalized = before.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
    throw brokenLockfile(path, 'it is not valid UTF-8', positionAt(normalized, normalized.length));
  }
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
  const bad = NON_PRINTABLE.exec(text);
  if (bad !== null)
    throw brokenLockfile(
      path,
      bad[0] === '\0' ? 'it holds a NUL byte' : 'it holds a non-printable character',
      positionAt(text, bad.index),
    );
  return text;
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const byte = bytes[i] as number;
    const length =
      byte < 0x80
        ? 1
        : byte >= 0xc2 && byte < 0xe0
          ? 2
          : byte >= 0xe0 && byte < 0xf0
            ? 3
            : byte >= 0xf0 && byte < 0xf5
              ? 4
              : 0;
    if (length === 0) return i;
    const slice = bytes.subarray(i, i + length);
    if (slice.length < length || !isUtf8(slice)) return i;
    i += length;
  }
  return bytes.length;
}

/** The non-empty YAML documents of `text`, split at `---` lines. */
export function yamlDocuments(text: string): DocumentSpan[] {
  const spans: DocumentSpan[] = [];
  let from = 0;
  let line = 1;
  let counted = 0;
  let linesBefore = 1;
  const lineAt = (offset: number): number => {
    for (let i = text.indexOf('\n', counted); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
      linesBefore++;
      counted = i + 1;
    }
    return linesBefore;
  };
  const push = (to: number): void => {
    if (text.slice(from, to).trim() !== '') spans.push({ from, to, line });
  };
  for (const match of text.matchAll(/^---[ \t]*$/gm)) {
    push(match.index);
    from = Math.min(text.length, match.index + match[0].length + 1);
    line = lineAt(match.index) + 1;
  }
  push(text.length);
  return spans;
}
