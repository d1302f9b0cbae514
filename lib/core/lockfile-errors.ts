// The refusal of a lockfile (or install marker) lockguard cannot read, and the decoding every reader shares.
//
// Owns: `brokenLockfile` / `unsupportedLockfile` (one message shape: the path, a reason lockguard wrote,
// the line and column as fields and in the text, then the fix for that package manager), `positionAt`
// (offset to line and column), and `lockfileText` (UTF-8 with a leading BOM dropped, as pnpm and npm read it).
// Invariants: a reason is a fixed phrase of lockguard's, never a parser's message and never text from the
// file (a key, a value, a line), so a secret in a broken lockfile is never printed.

import { basename } from 'node:path';
import { LockguardError, type TextPosition } from './errors.js';
import { MESSAGE_MAX, printableUpTo } from './printable.js';

/** The fix for a lockfile that is broken, by its file name. */
function fixFor(absPath: string): string {
  const name = basename(absPath);
  if (name === 'package-lock.json' || name === 'npm-shrinkwrap.json')
    return `Restore it (git checkout -- ${name}) or let npm rewrite it (npm install).`;
  if (name === '.package-lock.json') return 'Reinstall to rewrite it (npm ci).';
  if (name === 'lock.yaml') return 'Reinstall to rewrite it (pnpm install --frozen-lockfile).';
  if (name === 'pnpm-lock.yaml') return `Restore it (git checkout -- ${name}) or let pnpm rewrite it (pnpm install).`;
  if (name === 'yarn.lock') return `Restore it (git checkout -- ${name}) or let yarn rewrite it (yarn install).`;
  if (name === 'bun.lock') return `Restore it (git checkout -- ${name}) or let bun rewrite it (bun install).`;
  return `Restore it (git checkout -- ${name}) or let the package manager rewrite it (install).`;
}

function where(position: TextPosition | undefined): string {
  return position === undefined ? '' : ` (line ${position.line}, column ${position.column})`;
}

/** ERR_LOCKGUARD_BROKEN_LOCKFILE: the package manager would refuse it too, or lockguard cannot tell its entries apart. */
export function brokenLockfile(absPath: string, reason: string, position?: TextPosition): LockguardError {
  return new LockguardError(
    'ERR_LOCKGUARD_BROKEN_LOCKFILE',
    `The lockfile at "${printableUpTo(absPath, MESSAGE_MAX)}" is broken: ${printableUpTo(reason, MESSAGE_MAX)}${where(position)}.`,
    {
      path: absPath,
      hint: fixFor(absPath),
      ...(position === undefined ? {} : { position }),
    },
  );
}

/** ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE: valid for the package manager, but written in a form it never writes and lockguard does not read. */
export function unsupportedLockfile(absPath: string, reason: string, position?: TextPosition): LockguardError {
  return new LockguardError(
    'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE',
    `The lockfile at "${printableUpTo(absPath, MESSAGE_MAX)}" uses ${printableUpTo(reason, MESSAGE_MAX)}${where(position)}, which the package manager never writes: per-project slices cannot be read from it.`,
    {
      path: absPath,
      hint: 'Write it out plainly (or let the package manager rewrite it), or use the whole-table key (lockguard key).',
      ...(position === undefined ? {} : { position }),
    },
  );
}

/** The 1-based line and column of `offset` in `text` (lines end at "\n"). */
export function positionAt(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++;
    lineStart = at + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** The bytes as text the way pnpm and npm read them: UTF-8, a leading byte order mark dropped. */
export function lockfileText(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
