// What `run.json` holds, and the check of everything read back from it.
//
// Owns: the RunRecord shape and `validateRecord`, which a record must pass before any of its fields is used.
// Invariants: a record read back names only the table's own workspace-relative entries: every entry path
// is one of the fixed entries of its package manager (with that kind), or a patch file (`*.patch`) inside
// the workspace; no absolute path, no `..`, no NUL, no backslash. Its id is its folder's name. Anything
// else is ERR_LOCKGUARD_BROKEN_LEDGER naming the file: a forged record never steers a read or a move
// outside the workspace.

import { posix } from 'node:path';
import type { FileDigest, TableKey } from '../core/digest.js';
import { isAncestorMarkerPath, type EntryKind, type Scope } from '../core/entries.js';
import { isPackageManager, knownEntries } from '../core/package-managers/registry.js';
import { LockguardError } from '../core/errors.js';
import type { FingerprintEntry } from '../core/fingerprints.js';
import type { PackageManager } from '../core/workspace.js';
import { LEDGER_DIR } from './ledger-layout.js';

export type RunKind = 'snapshot' | 'run';
export type Policy = 'flag' | 'withhold' | 'refuse';

/** What `run.json` holds: the table as read, and who the run is. */
export interface RunRecord {
  readonly version: 1;
  readonly id: string;
  readonly kind: RunKind;
  readonly root: string;
  readonly manager: PackageManager;
  readonly scope: Scope;
  /**
   * The scope its verdict judges, when narrower than the table read: a guarded run reads the full table (the
   * pre-run check and the report need the install markers) but judges on the inputs, which are what the
   * runners' keys fold. Absent: `scope` (snapshots, and runs recorded before the field existed).
   */
  readonly judged?: Scope;
  /** The read moment (epoch ms). */
  readonly at: number;
  readonly key: TableKey;
  readonly entries: readonly FingerprintEntry[];
  readonly pid: number;
  /** Process start time as the kernel counts it (clock ticks since boot), for liveness; null if unknown. */
  readonly pidStart: number | null;
  readonly host: string;
  /** The boot the run was made in (trust.ts): with `host`, what ties the record to this machine. Absent before 0.2. */
  readonly boot?: string | null;
  readonly policy?: Policy;
  readonly command?: readonly string[];
  /** A snapshot's name (`snapshot --name`, upper case): the gate of one cache among several in a CI job. */
  readonly name?: string;
  /**
   * Per lockfile digest whose copy in `blobs/` is not its bytes (credentials redacted, blobs.ts): what the
   * copy hashes to, or null when none could be kept. Absent: every copy is the bytes themselves.
   */
  readonly copies?: Readonly<Record<string, FileDigest | null>>;
  /**
   * How the run kept its lockfile copies (`COPIES_VERSION`): redacted, each copy that is not its bytes named in
   * `copies`. Absent: a record written before the redaction (a later run may since have replaced its
   * verbatim copy with a redacted one). A later version is read as absent (the conservative reading).
   */
  readonly copiesVersion?: number;
}

/** The `copiesVersion` this lockguard writes: 1, copies redacted (blobs.ts) and every redacted one in `copies`. */
export const COPIES_VERSION = 1;

/** What the copy a run kept of one lockfile's bytes must be, as its record says. */
export interface KeptCopy {
  /** What the copy must hash to: the bytes' own digest unless redacted; null: none kept. */
  readonly digest: FileDigest | null;
  /**
   * True when the record names every copy that is not its bytes (`copiesVersion`): any other copy is forged.
   * False for a record older than the redaction, whose verbatim copy a later run may have replaced.
   */
  readonly recorded: boolean;
}

/** What the copy of the lockfile bytes `digest` a run kept must be (`digest` null: none kept). */
export function keptCopy(record: Pick<RunRecord, 'copies' | 'copiesVersion'>, digest: FileDigest): KeptCopy {
  const copies = record.copies;
  return {
    digest: copies !== undefined && Object.hasOwn(copies, digest) ? (copies[digest] as FileDigest | null) : digest,
    recorded: record.copiesVersion === COPIES_VERSION,
  };
}

function copiesOk(copies: unknown): boolean {
  if (copies === undefined) return true;
  if (copies === null || typeof copies !== 'object' || Array.isArray(copies)) return false;
  return Object.entries(copies).every(
    ([digest, copy]) => DIGEST.test(digest) && (copy === null || (typeof copy === 'string' && DIGEST.test(copy))),
  );
}

/** The scope a run's verdict judges (`judged`, else the scope of the table it read). */
export function judgedScope(record: Pick<RunRecord, 'scope' | 'judged'>): Scope {
  return record.judged ?? record.scope;
}

/** Run folder names: `<UTC stamp>-<kind>-<6 hex>`. */
// Ids up to 0.1.0 stamped milliseconds (`\d{9}Z`); newer ones microseconds (`\d{12}Z`), so they sort by creation.
export const RUN_ID = /^\d{8}T(?:\d{9}|\d{12})Z-(snapshot|run)-[0-9a-f]{6}$/;

const DIGEST = /^[0-9a-f]{64}$/;

export function brokenRecord(path: string, problem: string, cause?: unknown): LockguardError {
  return new LockguardError('ERR_LOCKGUARD_BROKEN_LEDGER', `The lockguard record "${path}" ${problem}.`, {
    path,
    cause,
    hint: `Delete "${posix.dirname(path)}" and take a new snapshot (lockguard snapshot).`,
  });
}

/** A clean workspace-relative POSIX path: not empty, not absolute, no `.`/`..` segments, no NUL or backslash. */
function isWorkspaceRelative(path: string): boolean {
  if (path === '' || path.includes('\0') || path.includes('\\') || posix.isAbsolute(path)) return false;
  if (posix.normalize(path) !== path) return false;
  return !path.split('/').some((segment) => segment === '..' || segment === '.' || segment === '');
}

/** Whether `path` may stand in a table of `manager` with `kind`: a fixed entry of that kind, a patch file, or an ancestor marker. */
export function isTableEntry(manager: PackageManager, path: string, kind: EntryKind): boolean {
  if (kind === 'ancestor-marker') return isAncestorMarkerPath(path);
  if (!isWorkspaceRelative(path)) return false;
  if (kind === 'patch')
    return path.endsWith('.patch') && !path.startsWith(`${LEDGER_DIR}/`) && !path.startsWith('node_modules/');
  return knownEntries(manager).some((spec) => spec.path === path && spec.kind === kind);
}

function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** A time in ms a Date can hold (status prints it as one: 1e300 is finite and no time). */
function time(value: unknown): value is number {
  return finite(value) && Math.abs(value) <= 8.64e15;
}

function entryOk(manager: PackageManager, entry: unknown): boolean {
  if (entry === null || typeof entry !== 'object') return false;
  const e = entry as Partial<FingerprintEntry>;
  if (typeof e.path !== 'string' || typeof e.kind !== 'string' || !isTableEntry(manager, e.path, e.kind as EntryKind))
    return false;
  if (!(e.digest === null || (typeof e.digest === 'string' && DIGEST.test(e.digest)))) return false;
  if (e.normalize !== undefined && e.normalize !== 'modules-yaml') return false;
  const id = e.identity;
  if (id === null) return true;
  return (
    typeof id === 'object' &&
    id !== undefined &&
    finite(id.ino) &&
    finite(id.dev) &&
    finite(id.size) &&
    time(id.ctimeMs) &&
    time(id.mtimeMs)
  );
}

/** Check a parsed `run.json` (at `path`, in the folder named `folderName`); the record, or a loud error. */
export function validateRecord(path: string, value: unknown, folderName: string): RunRecord {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw brokenRecord(path, 'is not a JSON object');
  const record = value as Partial<RunRecord>;
  if (record.version !== 1)
    throw brokenRecord(
      path,
      `has an unknown version (${typeof record.version === 'number' ? record.version : typeof record.version}); expected 1`,
    );
  const shapeOk =
    typeof record.id === 'string' &&
    (record.kind === 'snapshot' || record.kind === 'run') &&
    typeof record.root === 'string' &&
    posix.isAbsolute(record.root) &&
    !record.root.includes('\0') &&
    typeof record.manager === 'string' &&
    isPackageManager(record.manager) &&
    (record.scope === 'inputs' || record.scope === 'full') &&
    (record.judged === undefined || record.judged === 'inputs' || record.judged === record.scope) &&
    time(record.at) &&
    typeof record.key === 'string' &&
    DIGEST.test(record.key) &&
    Number.isSafeInteger(record.pid) &&
    (record.pidStart === undefined || record.pidStart === null || finite(record.pidStart)) &&
    (record.boot === undefined || record.boot === null || typeof record.boot === 'string') &&
    (record.policy === undefined ||
      record.policy === 'flag' ||
      record.policy === 'withhold' ||
      record.policy === 'refuse') &&
    (record.command === undefined ||
      (Array.isArray(record.command) && record.command.every((word) => typeof word === 'string'))) &&
    (record.name === undefined || (typeof record.name === 'string' && /^[A-Z][A-Z0-9_]{0,39}$/.test(record.name))) &&
    copiesOk(record.copies) &&
    (record.copiesVersion === undefined ||
      (Number.isSafeInteger(record.copiesVersion) && (record.copiesVersion as number) >= 1)) &&
    Array.isArray(record.entries);
  if (!shapeOk) throw brokenRecord(path, 'is missing fields or has fields of the wrong type');
  if (record.id !== folderName)
    throw brokenRecord(path, `names the run "${record.id}", but its folder is "${folderName}"`);
  const manager = record.manager as PackageManager;
  const bad = (record.entries as unknown[]).findIndex((entry) => !entryOk(manager, entry));
  if (bad !== -1)
    throw brokenRecord(
      path,
      `lists an entry (number ${bad + 1}) that is not a workspace-relative entry of a ${manager} table (no "..", no absolute path, a known file or a .patch)`,
    );
  const seen = new Set<string>();
  for (const entry of record.entries as FingerprintEntry[]) {
    if (seen.has(entry.path)) throw brokenRecord(path, `lists the entry "${entry.path}" twice`);
    seen.add(entry.path);
  }
  return { ...(record as RunRecord), pidStart: finite(record.pidStart) ? record.pidStart : null };
}
