// The save gate across processes: has anything in a recorded run's table moved?
//
// Owns: judging a ledger run (snapshot or guarded run) against the files now, and recording the verdict.
// Invariants: the verdict comes from the table re-checked through FingerprintWatch, never from a hook or
// a cache; once a run recorded a move it stays moved even if the bytes come back. Recording the verdict
// is best effort: a ledger that cannot be written (full, read-only, not ours) never hides the verdict.

import { join } from 'node:path';
import type { FileDigest } from '../core/digest.js';
import { fileDigest } from '../core/digest.js';
import { inScope, normalizeBytes } from '../core/entries.js';
import { readEntry, realFileSystem, type FileSystem } from '../core/file-probe.js';
import type { WorkspaceFingerprints } from '../core/fingerprints.js';
import { FingerprintWatch, type Move, type MoveKind } from '../core/watch.js';
import { isLockguardError, type LockguardError } from '../core/errors.js';
import { appendEvent, scanEvents, type RunHandle, type RunRecord } from './ledger.js';
import { judgedScope } from './run-record.js';

export interface MovedFile {
  readonly path: string;
  readonly kind: MoveKind;
  readonly was: FileDigest | null;
  /** Digest now, null when absent. */
  readonly now: FileDigest | null;
}

interface Verdict {
  readonly run: string;
  /** The scope the verdict judged (a guarded run's: inputs, what the runners' keys fold). */
  readonly scope: RunRecord['scope'];
  readonly key: RunRecord['key'];
  /** True when the save may happen: nothing the run's keys folded has moved. */
  readonly save: boolean;
  readonly moved: readonly MovedFile[];
}

/** A verdict and, when it could not be recorded in the run's events, why (the verdict stands). */
export interface RecordedVerdict extends Verdict {
  readonly unrecorded?: LockguardError;
  /** The moved paths a guarded run's own checks recorded while its command ran (the rest moved since). */
  readonly duringRun: readonly string[];
}

/**
 * A table as the ledger recorded it, narrowed to the entries its verdict judges (a guarded run's install
 * markers are in its record for the report, never in its verdict); no kept bytes, so racy re-reads compare
 * digests.
 */
function tableOf(record: RunRecord): WorkspaceFingerprints {
  const scope = judgedScope(record);
  return {
    root: record.root,
    manager: record.manager,
    scope,
    at: record.at,
    entries: scope === record.scope ? record.entries : record.entries.filter((entry) => inScope(entry.kind, scope)),
    files: new Map(),
    key: record.key,
  };
}

/** The digest an entry's file has now (null when absent); for reports only. */
export function currentDigest(
  root: string,
  move: Pick<Move, 'path'>,
  record: RunRecord,
  fs: FileSystem = realFileSystem,
): FileDigest | null {
  const entry = record.entries.find((candidate) => candidate.path === move.path);
  const result = readEntry(fs, join(root, move.path), true);
  if (result.state === 'absent') return null;
  const bytes = entry?.normalize === undefined ? result.bytes : normalizeBytes(entry.normalize, result.bytes);
  return fileDigest(bytes);
}

const DIGEST = /^[0-9a-f]{64}$/;
const KINDS = new Set(['rewritten', 'appeared', 'went']);
/** Without the run's table to check paths against, at most this many recorded moves are kept. */
const MOVES_WITHOUT_TABLE_MAX = 1000;

function digestOrNull(value: unknown): FileDigest | null {
  return typeof value === 'string' && DIGEST.test(value) ? (value as FileDigest) : null;
}

/** Evidence a guarded run's own checks record (session.ts); `verify` and `recovery` found a move only later. */
const LATER_EVIDENCE = new Set(['verify', 'recovery']);

/**
 * Moves recorded by earlier checks of this run (they stay moves), read streaming. Only paths of the run's
 * own table count (a forged line naming another path is ignored), so the result is bounded by the table.
 * `duringRun`, when given, receives the paths a guarded run's own checks recorded (while its command ran).
 */
export function recordedMoves(dir: string, record?: RunRecord, duringRun?: Set<string>): MovedFile[] {
  const known = record === undefined ? undefined : new Set(tableOf(record).entries.map((entry) => entry.path));
  const moves = new Map<string, MovedFile>();
  scanEvents(
    dir,
    (event) => {
      if (!Array.isArray(event['files'])) return;
      for (const file of event['files'] as Partial<MovedFile>[]) {
        if (typeof file?.path !== 'string' || moves.has(file.path) || (known !== undefined && !known.has(file.path)))
          continue;
        if (known === undefined && moves.size >= MOVES_WITHOUT_TABLE_MAX) continue;
        const kind = typeof file.kind === 'string' && KINDS.has(file.kind) ? file.kind : 'rewritten';
        moves.set(file.path, {
          path: file.path,
          kind: kind as MoveKind,
          was: digestOrNull(file.was),
          now: digestOrNull(file.now),
        });
        if (duringRun !== undefined && record?.kind === 'run' && !LATER_EVIDENCE.has(String(event['evidence'])))
          duringRun.add(file.path);
      }
    },
    ['moved'],
  );
  return [...moves.values()];
}

/** The moment of the run's first recorded move (epoch ms), when a check recorded one. */
export function recordedMoveAt(dir: string): number | undefined {
  let at: number | undefined;
  scanEvents(
    dir,
    (event) => {
      const moment = event['movedAt'];
      if (at === undefined && typeof moment === 'number' && Number.isFinite(moment)) at = moment;
      else if (at === undefined) at = event.t;
    },
    ['moved'],
  );
  return at;
}

/** The table's entries that moved now, against what the run read (not recorded). */
export function movesNow(run: RunHandle, options: { fs?: FileSystem } = {}): MovedFile[] {
  const { record } = run;
  const watch = new FingerprintWatch(
    record.root,
    tableOf(record),
    record.at,
    options.fs === undefined ? {} : { fs: options.fs },
  );
  watch.wrote();
  watch.moved();
  return watch.moves().map((move) => ({
    path: move.path,
    kind: move.kind,
    was: move.was,
    now: currentDigest(record.root, move, record, options.fs),
  }));
}

/**
 * Re-check a recorded run's table now, record the verdict in its events (best effort), and return it.
 * When the ledger cannot be written, the verdict stands and `unrecorded` says why.
 */
export function verifyRun(run: RunHandle, options: { fs?: FileSystem } = {}): RecordedVerdict {
  const { record } = run;
  const during = new Set<string>();
  const earlier = recordedMoves(run.dir, record, during);
  const fresh = movesNow(run, options).filter((move) => !earlier.some((file) => file.path === move.path));
  const moved = [...earlier, ...fresh];
  const verdict: Verdict = {
    run: record.id,
    scope: judgedScope(record),
    key: record.key,
    save: moved.length === 0,
    moved,
  };
  const duringRun = [...during];
  try {
    if (fresh.length > 0) appendEvent(run, { type: 'moved', evidence: 'verify', files: fresh });
    appendEvent(run, { type: 'verify', save: verdict.save, moved: moved.map((file) => file.path) });
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    return { ...verdict, duringRun, unrecorded: error };
  }
  return { ...verdict, duringRun };
}
