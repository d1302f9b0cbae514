// The one error type lockguard throws when it cannot go on.
//
// Owns: LockguardError, its stable codes, and the message shape every user-facing failure follows:
// what was expected at which path, what was found, and the fix.
// Invariants: a message never echoes file contents or environment values (paths only); verdicts
// (moved, withheld, stale) are never errors; ENOENT is a value elsewhere, never an error here.

/** Stable codes: tests and callers match on these, never on message text. */
export type LockguardErrorCode =
  | 'ERR_LOCKGUARD_USAGE'
  | 'ERR_LOCKGUARD_BAD_SETTING'
  | 'ERR_LOCKGUARD_NOT_A_WORKSPACE'
  | 'ERR_LOCKGUARD_NOT_A_FILE'
  | 'ERR_LOCKGUARD_DANGLING_LINK'
  | 'ERR_LOCKGUARD_ACCESS'
  | 'ERR_LOCKGUARD_IO'
  | 'ERR_LOCKGUARD_BROKEN_LOCKFILE'
  | 'ERR_LOCKGUARD_BROKEN_LEDGER'
  | 'ERR_LOCKGUARD_NO_SNAPSHOT'
  | 'ERR_LOCKGUARD_BAD_RUN'
  | 'ERR_LOCKGUARD_PRE_CHECK'
  | 'ERR_LOCKGUARD_SPAWN'
  | 'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE'
  | 'ERR_LOCKGUARD_UNKNOWN_PROJECT'
  | 'ERR_LOCKGUARD_PLAN'
  | 'ERR_LOCKGUARD_REFUSED'
  | 'ERR_LOCKGUARD_EXISTS'
  /** A path a record or a lockfile names leads outside the workspace (a project folder linked elsewhere). */
  | 'ERR_LOCKGUARD_OUTSIDE_WORKSPACE'
  /** The disk under the ledger is full or read-only (ENOSPC, EDQUOT, EROFS). */
  | 'ERR_LOCKGUARD_DISK'
  /** Something under `.lockguard/` is a symlink (or a file where a folder belongs): never followed. */
  | 'ERR_LOCKGUARD_UNSAFE_LEDGER'
  /** Another live lockguard process holds the lock on this part of the ledger. */
  | 'ERR_LOCKGUARD_BUSY'
  /** A lock or record under `.lockguard/` was not made on this machine since it last booted: never acted on. */
  | 'ERR_LOCKGUARD_FOREIGN'
  /** A runner's configuration file (turbo.json, nx.json, project.json) that lockguard init cannot read. */
  | 'ERR_LOCKGUARD_BAD_CONFIG'
  /** A workspace file over the size limit of its kind (core/bounded-read.ts), or nested past the depth limit. */
  | 'ERR_LOCKGUARD_TOO_LARGE'
  /** A child lockguard started for itself (a runner's dry run) did not finish in time and was killed. */
  | 'ERR_LOCKGUARD_TIMEOUT';

/** Where in a file a failure is (1-based; columns count UTF-16 code units, as editors and js-yaml do). */
export interface TextPosition {
  readonly line: number;
  readonly column: number;
}

export interface LockguardErrorOptions {
  /** What the user should do about it; printed after the message. */
  readonly hint?: string;
  /** The path the failure is about, absolute. */
  readonly path?: string;
  /** Where in the file at `path` (a broken lockfile), as fields: the message only repeats them. */
  readonly position?: TextPosition;
  readonly cause?: unknown;
}

export class LockguardError extends Error {
  readonly code: LockguardErrorCode;
  readonly hint: string | undefined;
  readonly path: string | undefined;
  readonly position: TextPosition | undefined;

  constructor(code: LockguardErrorCode, message: string, options: LockguardErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LockguardError';
    this.code = code;
    this.hint = options.hint;
    this.path = options.path;
    this.position = options.position;
  }
}

export function isLockguardError(value: unknown): value is LockguardError {
  return value instanceof LockguardError;
}

/** The errno code of a Node system error, or undefined. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}
