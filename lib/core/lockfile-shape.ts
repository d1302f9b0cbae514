// A cheap sanity check of a lockfile's bytes, before its digest goes into a key.
//
// Owns: refusing a lockfile that no package manager would accept as it is (empty, merge-conflict markers,
// no lockfileVersion, not a JSON object: package-lock.json, npm-shrinkwrap.json, bun.lock), with the line
// where it breaks. A leading UTF-8 BOM and CRLF line breaks are accepted, as pnpm and npm accept them.
// Invariants: a byte scan, not a parse (the table must not cost a YAML parse, and must accept pnpm 12's
// two-document form); messages name the path and the line, never the contents.

import { LockguardError } from './errors.js';
import { startsWith } from './digest.js';

// Searched without the leading newline (a needle starting with a frequent byte is several times slower);
// a hit counts when it starts a line.
const CONFLICT = [Buffer.from('<<<<<<<'), Buffer.from('>>>>>>>')];
const BOM = '\u00ef\u00bb\u00bf';

function lineOf(bytes: Buffer, offset: number): number {
  let line = 1;
  for (let i = bytes.indexOf(10); i !== -1 && i < offset; i = bytes.indexOf(10, i + 1)) line++;
  return line;
}

function broken(absPath: string, relPath: string, reason: string): LockguardError {
  return new LockguardError('ERR_LOCKGUARD_BROKEN_LOCKFILE', `The lockfile at "${absPath}" is broken: ${reason}.`, {
    path: absPath,
    hint: `Restore it (git checkout -- ${relPath}) or resolve the conflict, then let the package manager rewrite it (install).`,
  });
}

/** Throws ERR_LOCKGUARD_BROKEN_LOCKFILE when `bytes` cannot be the lockfile named `relPath`. */
export function checkLockfileShape(absPath: string, relPath: string, bytes: Buffer): void {
  if (bytes.length === 0) throw broken(absPath, relPath, 'it is empty');
  for (const marker of CONFLICT) {
    for (let at = bytes.indexOf(marker); at !== -1; at = bytes.indexOf(marker, at + 1)) {
      if (at === 0 || bytes[at - 1] === 10 || bytes[at - 1] === 13 || (at === 3 && startsWith(bytes, BOM)))
        throw broken(absPath, relPath, `it has merge-conflict markers (line ${lineOf(bytes, at)})`);
    }
  }
  if (relPath.endsWith('pnpm-lock.yaml')) {
    // A UTF-8 byte order mark first, and CR line breaks, are read by pnpm as they are (measured: pnpm 10 and 12).
    const head = startsWith(bytes, BOM) ? bytes.subarray(3) : bytes;
    if (
      !startsWith(head, 'lockfileVersion:') &&
      bytes.indexOf('\nlockfileVersion:') === -1 &&
      bytes.indexOf('\rlockfileVersion:') === -1
    ) {
      throw broken(absPath, relPath, 'it has no top-level lockfileVersion');
    }
  } else if (relPath.endsWith('.json') || relPath.endsWith('bun.lock')) {
    const text = bytes.subarray(0, 4096).toString('utf8').trimStart();
    const tail = bytes
      .subarray(Math.max(0, bytes.length - 64))
      .toString('utf8')
      .trimEnd();
    if (!text.startsWith('{') || !tail.endsWith('}')) throw broken(absPath, relPath, 'it is not a JSON object');
    if (bytes.indexOf('"lockfileVersion"') === -1) throw broken(absPath, relPath, 'it has no "lockfileVersion"');
  }
}
