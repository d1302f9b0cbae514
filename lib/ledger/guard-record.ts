// What a guarded run guards, on disk: `<run folder>/guard.json`, so a later process can finish the run's
// withholding when its guard died.
//
// Owns: the record's shape (per guarded runner cache: runner, dir, source, shared, summaries, and the
// before-listing of its entries), writing it atomically and reading it back validated.
// When it is written: before the child is spawned, only when the run guards a runner cache (a run that
// guards none has nothing a later command could withhold). Writing it right after the spawn would save that one
// write from the start-up path only if the child could never save a cache entry before the write lands,
// and that rests on timing (how fast the child starts, and the scheduler), which cannot be proven; one small
// file before the spawn costs a fraction of a millisecond, so the record is always there before any save.
// Invariants: the shapes are structural (run/ knows no runner adapter); anything read back is validated
// (absolute, normalized cache dirs, never inside `.lockguard`; plain keys; made on this machine since it
// last booted, trust.ts), and an invalid record reads as none (the recovery then withholds nothing it cannot
// name, and says so). A valid record only names caches: what is touched is the cache as it resolves now
// (trust.ts trustedCache, applied by the CLI's recovery).

import { posix } from 'node:path';
import { writeAtomic } from './atomic.js';
import { parseLine, readLedgerFile } from './ledger-fs.js';
import { LEDGER_DIR, RUN_FILES } from './ledger-layout.js';
import { machineStamp, madeHere } from './trust.js';
import { recordJson } from '../core/printable.js';

/** Stat identity of a cache entry's primary path: inode, size, mtime, ctime (integrations/runners/listing.ts takes it). */
export type RecordedIdentity = readonly [ino: number, size: number, mtimeMs: number, ctimeMs: number];

export interface GuardedCacheRecord {
  readonly runner: string;
  /** The workspace root the runner keys on. */
  readonly root: string;
  readonly dir: string;
  readonly source: string;
  readonly shared?: boolean;
  readonly summaries?: string;
  /** The command itself starts this runner (else the workspace configures it). */
  readonly started: boolean;
  /** The listing taken just before the command: every entry's key and its primary path's identity. */
  readonly before: {
    readonly dir: string;
    readonly exists: boolean;
    readonly takenAt: number;
    readonly entries: readonly (readonly [key: string, identity: RecordedIdentity | 'link'])[];
  };
}

export interface GuardRecord {
  readonly version: 1;
  /** Where it was written (trust.ts): a record not made on this machine since it last booted is never acted on. */
  readonly host?: string;
  readonly boot?: string | null;
  /** Just before the child was spawned (epoch ms). */
  readonly runStartedAt: number;
  readonly caches: readonly GuardedCacheRecord[];
}

export function writeGuard(runDir: string, record: GuardRecord): void {
  writeAtomic(posix.join(runDir, RUN_FILES.guard), recordJson({ ...record, ...machineStamp() }));
}

const PLAIN = /^[\w.-]+$/;

function absolutePath(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    posix.isAbsolute(value) &&
    posix.normalize(value) === value &&
    !value.includes('\0') &&
    !value.split('/').includes(LEDGER_DIR)
  );
}

function identityOk(value: unknown): boolean {
  return (
    value === 'link' ||
    (Array.isArray(value) && value.length === 4 && value.every((n) => typeof n === 'number' && Number.isFinite(n)))
  );
}

function cacheOk(value: unknown): value is GuardedCacheRecord {
  if (value === null || typeof value !== 'object') return false;
  const c = value as Partial<GuardedCacheRecord>;
  const before = c.before;
  return (
    typeof c.runner === 'string' &&
    PLAIN.test(c.runner) &&
    absolutePath(c.root) &&
    absolutePath(c.dir) &&
    typeof c.source === 'string' &&
    (c.shared === undefined || typeof c.shared === 'boolean') &&
    (c.summaries === undefined || absolutePath(c.summaries)) &&
    typeof c.started === 'boolean' &&
    before !== null &&
    typeof before === 'object' &&
    before.dir === c.dir &&
    typeof before.exists === 'boolean' &&
    typeof before.takenAt === 'number' &&
    Array.isArray(before.entries) &&
    before.entries.every(
      (pair) =>
        Array.isArray(pair) &&
        pair.length === 2 &&
        typeof pair[0] === 'string' &&
        PLAIN.test(pair[0]) &&
        identityOk(pair[1]),
    )
  );
}

/** The largest guard record read back (a listing of every cache entry's identity before the run). */
const MAX_GUARD_BYTES = 512 << 20;

/** The run's guard record, or undefined when it has none or it is not valid (`problem` says which). */
export function readGuard(runDir: string): { record: GuardRecord | undefined; problem: string | undefined } {
  const path = posix.join(runDir, RUN_FILES.guard);
  const bytes = readLedgerFile(path, MAX_GUARD_BYTES);
  if (bytes === undefined)
    return {
      record: undefined,
      problem:
        'it recorded no guarded caches: it guarded no runner cache, or its guard died before it started its command',
    };
  const value = parseLine(bytes) as Partial<GuardRecord> | undefined;
  if (
    value === undefined ||
    value === null ||
    typeof value !== 'object' ||
    value.version !== 1 ||
    typeof value.runStartedAt !== 'number' ||
    !Array.isArray(value.caches) ||
    !value.caches.every(cacheOk)
  ) {
    return { record: undefined, problem: `its record of guarded caches "${path}" is not valid` };
  }
  if (!madeHere(value))
    return {
      record: undefined,
      problem: `its record of guarded caches "${path}" was not made on this machine since it last booted; nothing it names was touched`,
    };
  return { record: value as GuardRecord, problem: undefined };
}
