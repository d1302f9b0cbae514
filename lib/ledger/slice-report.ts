// How a run's lockfile moved, project by project: the slice diff between the bytes the run read (kept
// content-addressed in the ledger, blobs.ts) and the file as it is now.
//
// Owns: `describeLockfileMoves` / `describeLockfileMove` (structured diff plus one line of text), for
// `verify`, `status` and the run report; reading them back from a report (`reportedSliceMoves`: status shows
// what the run saw, not the file as it is later).
// Invariants: a report never throws for what it cannot tell: old bytes not kept, a lockfile now gone or
// broken, a format without slices; each is a value with a `reason` and a plainer line (a kept copy that is
// not what its run recorded is a broken ledger: ERR_LOCKGUARD_BROKEN_LEDGER, blobs.ts). Both sides are
// sliced as kept: the copy the run kept, and the file now redacted the same way (core/redact.ts
// `redactLockfile`), so a diff holds no change that is only redaction and misses none the real bytes hold
// (each credential leaves its own tag). Never echoes lockfile contents; never writes; names from the
// lockfile reach the line with control characters escaped and credentials redacted (core/redact.ts), in
// the line and in the diff's data alike.

import { join } from 'node:path';
import { fileDigest, type FileDigest } from '../core/digest.js';
import { isLockguardError } from '../core/errors.js';
import { readEntry, realFileSystem } from '../core/file-probe.js';
import { MESSAGE_MAX, printable, printableUpTo } from '../core/printable.js';
import { redactLabel, redactLockfile, redactRecord } from '../core/redact.js';
import { describeSliceDiff, diffSlices, type SliceDiff } from '../core/slices/diff.js';
import { formatOf, slicesFromLockfileAsync } from '../core/slices/slices.js';
import { readBlob } from './blobs.js';
import type { RunRecord } from './ledger.js';
import { keptCopy, type KeptCopy } from './run-record.js';

/** Why a move has no per-project detail. */
type SliceMoveGap =
  | 'old-bytes-not-kept'
  | 'lockfile-removed'
  | 'no-slices-for-format'
  | 'lockfile-unreadable'
  | 'credential-not-cut';

export interface SliceMove {
  /** Workspace-relative lockfile path. */
  readonly lockfile: string;
  readonly was: FileDigest;
  /** Digest now; null when the file is gone. */
  readonly now: FileDigest | null;
  /** The per-project diff, when it could be computed. */
  readonly diff: SliceDiff | undefined;
  /** Set when `diff` is undefined: what was missing. */
  readonly gap: SliceMoveGap | undefined;
  /** Every project of the lockfile now (importer path and package name), when it was sliced: to map a task's folder to its slice. */
  readonly projects?: readonly { readonly importer: string; readonly name: string | undefined }[];
  /** One line: "pnpm-lock.yaml moved: the slice of packages/b changed (is-number 7.0.0 → 6.0.0); 543 other projects unchanged". */
  readonly text: string;
}

/** Every lockfile of the run whose bytes differ now from what it read, with its slice diff. */
async function describeLockfileMoves(record: RunRecord, root: string = record.root): Promise<SliceMove[]> {
  const moves: SliceMove[] = [];
  for (const entry of record.entries) {
    if (entry.kind !== 'lockfile' || entry.digest === null) continue;
    const move = await describeOne(root, entry.path, entry.digest, keptCopy(record, entry.digest));
    if (move !== undefined) moves.push(move);
  }
  return moves;
}

/** The first moved lockfile of the run (there is one per package manager), or undefined when none moved. */
export async function describeLockfileMove(
  record: RunRecord,
  root: string = record.root,
): Promise<SliceMove | undefined> {
  return (await describeLockfileMoves(record, root))[0];
}

async function describeOne(
  root: string,
  lockfile: string,
  was: FileDigest,
  copy: KeptCopy,
): Promise<SliceMove | undefined> {
  let nowBytes: Buffer | undefined;
  try {
    const result = readEntry(realFileSystem, join(root, lockfile), true);
    nowBytes = result.state === 'file' ? result.bytes : undefined;
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    return gap(lockfile, was, null, 'lockfile-unreadable', `${lockfile} moved and cannot be read now (${error.code})`);
  }
  if (nowBytes === undefined) return gap(lockfile, was, null, 'lockfile-removed', `${lockfile} was removed`);
  const now = fileDigest(nowBytes);
  if (now === was) return undefined;
  if (formatOf(lockfile) === undefined) return gap(lockfile, was, now, 'no-slices-for-format', `${lockfile} moved`);
  const uncut = `${lockfile} moved (it holds a credential that cannot be cut out without changing the file's structure, so lockguard keeps no copy of it: no per-project detail)`;
  if (copy.digest === null) return gap(lockfile, was, now, 'credential-not-cut', uncut);
  const oldBytes = readBlob(root, was, copy);
  if (oldBytes === undefined)
    return gap(
      lockfile,
      was,
      now,
      'old-bytes-not-kept',
      `${lockfile} moved (the bytes the run read are not kept: no per-project detail)`,
    );
  const nowCopy = redactLockfile(nowBytes);
  if (nowCopy === undefined) return gap(lockfile, was, now, 'credential-not-cut', uncut);
  try {
    const before = await slicesFromLockfileAsync(oldBytes, { lockfile, root, names: false, redacted: true });
    const after = await slicesFromLockfileAsync(nowCopy, { lockfile, root, redacted: true });
    // What must slice is the file itself: were its reader to take the copy but refuse the real bytes (yarn
    // v1 splits an unquoted word at a `:` the cut removed), the move is told as unreadable, as without a copy.
    if (nowCopy !== nowBytes) await slicesFromLockfileAsync(nowBytes, { lockfile, root, names: false });
    // Names and versions may hold URLs with credentials (a tarball's `?_authToken=`): redacted as recorded.
    const diff = redactDiff(diffSlices(before, after));
    const projects = after.slices.map((slice) => ({ importer: slice.importer, name: slice.name }));
    return {
      lockfile,
      was,
      now,
      diff,
      gap: undefined,
      projects,
      text: printableUpTo(describeSliceDiff(diff), MESSAGE_MAX),
    };
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    return gap(
      lockfile,
      was,
      now,
      'lockfile-unreadable',
      `${lockfile} moved and its new bytes cannot be sliced (${error.code})`,
    );
  }
}

/** The diff fit to record and print: every value through the redactor, package names as labels. */
function redactDiff(diff: SliceDiff): SliceDiff {
  const redacted = redactRecord(diff);
  return {
    ...redacted,
    changed: redacted.changed.map((change) => ({
      ...change,
      packages: change.packages.map((pkg) => ({ ...pkg, name: redactLabel(pkg.name) })),
      contentChanged: change.contentChanged.map(redactLabel),
    })),
  };
}

function gap(lockfile: string, was: FileDigest, now: FileDigest | null, reason: SliceMoveGap, text: string): SliceMove {
  return { lockfile, was, now, diff: undefined, gap: reason, text };
}

/** A move as plain JSON data (null for what is missing), for `--json` outputs and reports. */
export interface SliceMoveJson {
  readonly lockfile: string;
  readonly was: FileDigest;
  readonly now: FileDigest | null;
  readonly text: string;
  readonly gap: SliceMoveGap | null;
  readonly diff: SliceDiff | null;
}

export function sliceMoveJson(move: SliceMove): SliceMoveJson {
  return {
    lockfile: move.lockfile,
    was: move.was,
    now: move.now,
    text: move.text,
    gap: move.gap ?? null,
    diff: move.diff ?? null,
  };
}

/**
 * The slice moves a run's report recorded (what its lockfile did during the run, whatever the file holds
 * now), or undefined when there is no report or it holds no readable list. A report is ledger data, not
 * trusted: each item must have the fields a move has, and its text is escaped again.
 */
export function reportedSliceMoves(report: unknown): SliceMoveJson[] | undefined {
  const slices = report !== null && typeof report === 'object' ? (report as { slices?: unknown }).slices : undefined;
  if (!Array.isArray(slices)) return undefined;
  const moves: SliceMoveJson[] = [];
  for (const item of slices as unknown[]) {
    if (item === null || typeof item !== 'object') return undefined;
    const move = item as Partial<Record<keyof SliceMoveJson, unknown>>;
    if (typeof move.lockfile !== 'string' || typeof move.text !== 'string' || typeof move.was !== 'string')
      return undefined;
    moves.push({
      lockfile: printable(move.lockfile),
      was: move.was as FileDigest,
      now: typeof move.now === 'string' ? (move.now as FileDigest) : null,
      text: printableUpTo(move.text, MESSAGE_MAX),
      gap: typeof move.gap === 'string' ? (move.gap as SliceMoveGap) : null,
      diff: move.diff !== null && typeof move.diff === 'object' ? (move.diff as SliceDiff) : null,
    });
  }
  return moves;
}

/** The moves of the lockfiles among `movedPaths` (cheap when none of them is a lockfile: no read at all). */
export async function lockfileMovesAmong(
  record: RunRecord,
  movedPaths: readonly string[],
  root: string = record.root,
): Promise<SliceMove[]> {
  const lockfiles = record.entries.filter((entry) => entry.kind === 'lockfile' && movedPaths.includes(entry.path));
  if (lockfiles.length === 0) return [];
  return describeLockfileMoves({ ...record, entries: lockfiles }, root);
}
