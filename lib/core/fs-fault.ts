// Turning a file-system fault into a setup error the user can fix: the path, what was found, the fix.
//
// Owns: the mapping errno -> LockguardError code + hint for the faults a disk or a permission can cause
// (ENOSPC, EDQUOT, EROFS, EACCES, EPERM, EEXIST, ENOTDIR, ELOOP, EISDIR, EMFILE, EIO, ...).
// Invariants: a fault is never a lockguard bug (exit 2, never 70); messages name the path and the errno,
// never file contents; ENOENT is not handled here (callers treat it as a value).

import { errnoCode, LockguardError } from './errors.js';

/** Errno codes that are the disk's or the user's setup, never lockguard's bug. */
const SETUP_ERRNOS: ReadonlySet<string> = new Set([
  'ENOSPC',
  'EDQUOT',
  'EROFS',
  'EACCES',
  'EPERM',
  'EEXIST',
  'ENOTDIR',
  'EISDIR',
  'ELOOP',
  'EMFILE',
  'ENFILE',
  'EIO',
  'ENAMETOOLONG',
  'EXDEV',
  'EBUSY',
  'ETXTBSY',
  'ENOTEMPTY',
]);

/** True for a Node system error whose errno is a setup fault. */
export function isFsFault(error: unknown): boolean {
  const code = errnoCode(error);
  return code !== undefined && SETUP_ERRNOS.has(code);
}

/**
 * The LockguardError for a fault while `doing` (a verb phrase: "write", "create the folder", "append to")
 * on `path`. A LockguardError passes through unchanged.
 */
export function fsFault(error: unknown, path: string, doing: string): LockguardError {
  if (error instanceof LockguardError) return error;
  const code = errnoCode(error) ?? 'unknown error';
  const at = `Cannot ${doing} "${path}"`;
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return new LockguardError('ERR_LOCKGUARD_DISK', `${at}: the file system is full (${code}).`, {
        path,
        cause: error,
        hint: 'Free space (or inodes: df -i) on the file system that holds it, then run the command again. Nothing was lost.',
      });
    case 'EROFS':
      return new LockguardError('ERR_LOCKGUARD_DISK', `${at}: the file system is read-only (EROFS).`, {
        path,
        cause: error,
        hint: 'lockguard keeps its records in .lockguard/ inside the workspace: mount it read-write (or run from a writable checkout).',
      });
    case 'EACCES':
    case 'EPERM':
      return new LockguardError('ERR_LOCKGUARD_ACCESS', `${at}: permission denied (${code}).`, {
        path,
        cause: error,
        hint: 'Give the user running lockguard write access to it and its folder (chown/chmod u+rwx), or run as the user that owns the workspace.',
      });
    case 'EEXIST':
    case 'ENOTDIR':
    case 'EISDIR':
    case 'ENOTEMPTY':
      return new LockguardError(
        'ERR_LOCKGUARD_BROKEN_LEDGER',
        `${at}: something of the wrong kind is in the way (${code}: a file where a folder belongs, or the reverse).`,
        {
          path,
          cause: error,
          hint: 'Move or remove what stands at that path (lockguard recreates its own folders), then run the command again.',
        },
      );
    case 'ELOOP':
      return new LockguardError(
        'ERR_LOCKGUARD_UNSAFE_LEDGER',
        `${at}: it is a symbolic link, and lockguard never follows links in its ledger (ELOOP).`,
        {
          path,
          cause: error,
          hint: 'Remove the link; lockguard recreates the folder or file inside the workspace.',
        },
      );
    default:
      return new LockguardError('ERR_LOCKGUARD_IO', `${at} (${code}).`, {
        path,
        cause: error,
        hint: 'Check the disk and the permissions of that path, then run the command again.',
      });
  }
}
