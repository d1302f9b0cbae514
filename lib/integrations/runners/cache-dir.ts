// Reading a runner's cache folder: its names, with a missing folder as a value and anything else loud.
//
// Owns: `cacheNames(dir)` (one readdir) and `cacheError`, the LockguardError for an unreadable cache dir
// (permission, not a folder, other), shared by the listing and by the adapters whose layout is sharded.
// Invariants: never follows or reads an entry; ENOENT is `undefined`; every other failure names the dir
// and says that nothing was moved.

import { readdirSync } from 'node:fs';
import { errnoCode, LockguardError } from '../../core/errors.js';

export function cacheError(dir: string, error: unknown): LockguardError {
  const code = errnoCode(error);
  if (code === 'EACCES' || code === 'EPERM') {
    return new LockguardError(
      'ERR_LOCKGUARD_ACCESS',
      `Cannot read the runner cache dir "${dir}" (permission denied).`,
      {
        path: dir,
        cause: error,
        hint: 'Nothing was moved. Give your user read and write access to it (chmod u+rwx), or point the runner at a cache dir you own.',
      },
    );
  }
  if (code === 'ENOTDIR') {
    return new LockguardError(
      'ERR_LOCKGUARD_IO',
      `Expected the runner cache dir "${dir}" to be a folder, but it is not.`,
      {
        path: dir,
        cause: error,
        hint: 'Nothing was moved. Remove or rename that file; the runner recreates its cache folder.',
      },
    );
  }
  return new LockguardError(
    'ERR_LOCKGUARD_IO',
    `Cannot list the runner cache dir "${dir}" (${code ?? 'unknown error'}).`,
    { path: dir, cause: error, hint: 'Nothing was moved.' },
  );
}

/** readdir, with ENOENT as undefined and everything else loud. */
export function cacheNames(dir: string): string[] | undefined {
  try {
    return readdirSync(dir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw cacheError(dir, error);
  }
}

/** A lowercase hex name (turbo hashes, pipeline keys). */
export const HEX = /^[0-9a-f]+$/;
