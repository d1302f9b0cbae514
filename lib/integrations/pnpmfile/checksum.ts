// pnpm's `pnpmfileChecksum`: what pnpm records in pnpm-lock.yaml for the workspace's `.pnpmfile.cjs`, computed
// and read/set as text, so `lockguard init` can record it itself and `doctor` can check it.
//
// Why (measured on pnpm 10.34.8, and the same value and place on pnpm 12.4.2): when the lockfile's
// pnpmfileChecksum differs from the pnpmfile's, pnpm 10 treats the lockfile's settings as outdated
// (`getOutdatedLockfileSetting`), which forces a full resolution: every importer's peers are resolved
// afresh, and a lockfile that incremental installs had left off that fixed point (a peer suffix kept after
// the peer was removed from the root) is rewritten far beyond the checksum line; a frozen install fails
// with ERR_PNPM_LOCKFILE_CONFIG_MISMATCH instead. lockguard's plugin registers no resolution hook outside a
// run (updateConfig only, returning pnpm's config untouched), so the checksum is the one thing that moves
// resolution: recorded up front, the next install resolves exactly as without the pnpmfile.
// pnpm's rule: a pnpmfile that exports `hooks` gets `sha256-<base64 sha256 of its text, CRLF read as LF>`
// (one file: the file's own hash); top-level keys are written in the order ROOT_KEYS below, each block
// followed by a blank line.
// Invariants: pure (text in, text out); an edit touches only the pnpmfileChecksum line (and the blank line
// after it); a lockfile whose shape is not understood is left alone (undefined), never guessed at.

import { nodeCrypto } from '../../core/lazy-builtins.js';

/** pnpm's checksum of a pnpmfile's text (what it records when the file exports hooks). */
export function pnpmfileChecksumOf(text: string): string {
  return `sha256-${nodeCrypto().createHash('sha256').update(text.split('\r\n').join('\n')).digest('base64')}`;
}

/** pnpm's top-level keys that come before pnpmfileChecksum (pnpm 10's ROOT_KEYS order). */
const KEYS_BEFORE = new Set(['lockfileVersion', 'settings', 'catalogs', 'overrides', 'packageExtensionsChecksum']);
const KEY = 'pnpmfileChecksum';
const TOP_KEY = /^([A-Za-z][\w-]*):/;

/** Where the main lockfile document starts (pnpm 11+ may put an env document first, ending with `---`). */
function mainDocumentStart(lines: readonly string[]): number {
  let start = 0;
  for (let index = 0; index < lines.length; index += 1) if (lines[index] === '---') start = index + 1;
  return start;
}

/** The lockfile's recorded pnpmfileChecksum; undefined when it records none. */
export function lockfileChecksum(lock: string): string | undefined {
  const lines = lock.split('\n');
  for (let index = mainDocumentStart(lines); index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    if (line.startsWith(`${KEY}:`)) return line.slice(KEY.length + 1).trim();
  }
  return undefined;
}

/**
 * The lockfile text with `checksum` recorded as pnpm writes it (undefined: the line taken out); the same
 * text when nothing changes; undefined when the text is not a lockfile this can edit safely.
 */
export function withLockfileChecksum(lock: string, checksum: string | undefined): string | undefined {
  const lines = lock.split('\n');
  const start = mainDocumentStart(lines);
  if (!(lines[start] ?? '').startsWith('lockfileVersion:')) return undefined;
  const at = lines.findIndex((line, index) => index >= start && line.startsWith(`${KEY}:`));
  if (at >= 0) {
    if (checksum === undefined) {
      const blankAfter = lines[at + 1] === '' ? 1 : 0;
      lines.splice(at, 1 + blankAfter);
    } else lines[at] = `${KEY}: ${checksum}`;
    return lines.join('\n');
  }
  if (checksum === undefined) return lock;
  let before = lines.length;
  for (let index = start + 1; index < lines.length; index += 1) {
    const key = TOP_KEY.exec(lines[index] ?? '')?.[1];
    if (key !== undefined && !KEYS_BEFORE.has(key)) {
      before = index;
      break;
    }
  }
  if (before === lines.length || lines[before - 1] !== '') return undefined;
  lines.splice(before, 0, `${KEY}: ${checksum}`, '');
  return lines.join('\n');
}
