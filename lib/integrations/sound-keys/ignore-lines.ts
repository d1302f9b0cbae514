// One line-based ignore file (.gitignore, .nxignore) as sound keys edit it: lockguard's line added with its
// comment above, or taken back with that comment.
//
// Owns: `ignoreFileEdit(root, file, want)`: the FileEdit that makes `file` hold (or no longer hold) one of
// lockguard's lines; undefined when it already is so.
// Invariants: reads the one file, writes nothing; only whole lines lockguard's own `lines` name are removed,
// with the one comment line right above each when it is lockguard's (it starts "# lockguard's"); every
// other line and the line endings stay.

import { join } from 'node:path';
import type { FileEdit } from './types.js';
import { readConfigText } from '../../core/bounded-read.js';

export interface IgnoreLine {
  /** The line init writes. */
  readonly line: string;
  /** Lines that count as it (trimmed), the written one among them. */
  readonly matches: ReadonlySet<string>;
  /** The comment written above it. */
  readonly comment: string;
  /** What the user is told, added and removed. */
  readonly added: string;
  readonly removed: string;
}

const OWN_COMMENT = "# lockguard's";

export function ignoreFileEdit(root: string, file: string, want: IgnoreLine, present: boolean): FileEdit | undefined {
  const path = join(root, file);
  const text = readConfigText(path, root) ?? '';
  const lines = text.split('\n');
  // The file's own line ending: a CRLF file stays CRLF (its lines keep their \r; added lines get one).
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const hits = lines.flatMap((line, i) => (want.matches.has(line.trim()) ? [i] : []));
  if (present) {
    if (hits.length > 0) return undefined;
    const sep = text === '' || text.endsWith('\n') ? '' : eol;
    return {
      file,
      text: `${text}${sep}${want.comment}${eol}${want.line}${eol}`,
      added: [`${want.line} ${want.added}`],
    };
  }
  if (hits.length === 0) return undefined;
  const drop = new Set(hits);
  for (const i of hits) if (lines[i - 1]?.trim().startsWith(OWN_COMMENT) === true) drop.add(i - 1);
  return {
    file,
    text: lines.filter((_, i) => !drop.has(i)).join('\n'),
    added: hits.map((i) => `${lines[i]?.trim() ?? ''} ${want.removed}`),
  };
}
