// The quarantine journal: `<root>/.lockguard/quarantine/<run id>/journal.ndjson`, the one record of what
// a run withheld, append-only.
//
// Owns: the line shapes (an intent before a unit moves, its outcome after; the same for a restore),
// appending them (intents fsync'd before anything moves), and folding the journal into each unit's state.
// Invariants:
// - A unit moves only after its intent line is on disk (fsync): a kill or a power cut at any moment leaves
//   every moved byte named by an intent. Outcomes are appended after the move; a unit with an intent and no
//   outcome is "in flight", and repair (repair.ts) settles it from where its files are.
// - Read streaming; torn or garbage lines are skipped, a line that names a path outside its cache dir, a
//   path that is not a file of its key, or a key that is not a plain name is never trusted. A valid intent
//   still only *names* a cache dir: repair and restore act only in a cache the workspace is configured for
//   now (trust.ts trustedCache).
// - A legacy `manifest.json` (lockguard 0.1) is read when there is no journal.

import { join, posix } from 'node:path';
import { LockguardError } from '../../core/errors.js';
import { appendText } from '../atomic.js';
import { parseLine, readLedgerFile, scanLines } from '../ledger-fs.js';
import { JOURNAL_FILE, LEDGER_DIR } from '../ledger-layout.js';
import { isSafeRelative, type TreeFile } from './move.js';
import { recordJson } from '../../core/printable.js';

/** The identity of a unit within one run's quarantine. */
export function unitId(runner: string, key: string): string {
  return `${runner}/${key}`;
}

/** What a unit is, as its intent records it and as a listing shows it. */
export interface UnitRecord {
  readonly runner: string;
  readonly key: string;
  readonly task?: string;
  readonly cacheDir: string;
  /** The paths that move, relative to `cacheDir` (POSIX). */
  readonly paths: readonly string[];
  /** Every file below them as recorded before the move. */
  readonly files: readonly TreeFile[];
  readonly size: number;
  readonly reason: string;
}

export interface IntentLine extends UnitRecord {
  readonly op: 'intent';
  readonly unit: string;
  readonly t: number;
  /** Where the intent was written (trust.ts); absent before 0.2. A restore asks for this host. */
  readonly host?: string;
  readonly boot?: string | null;
}

/** The unit's record out of its intent line (the journal's own fields left behind). */
export function unitRecord(intent: IntentLine): UnitRecord {
  return {
    runner: intent.runner,
    key: intent.key,
    ...(intent.task === undefined ? {} : { task: intent.task }),
    cacheDir: intent.cacheDir,
    paths: intent.paths,
    files: intent.files,
    size: intent.size,
    reason: intent.reason,
  };
}

type OutcomeOp = 'done' | 'undone' | 'restore' | 'restored' | 'unrestored';

export interface OutcomeLine {
  readonly op: OutcomeOp;
  readonly unit: string;
  readonly t: number;
  readonly why?: string;
}

export type JournalLine = IntentLine | OutcomeLine;

/**
 * Where a unit stands: `moving` (intent, no outcome: being withheld, or torn), `withheld` (in quarantine),
 * `not-moved` (never moved, or moved back), `restoring` (a restore began, no outcome), `restored`.
 */
export type UnitState = 'moving' | 'withheld' | 'not-moved' | 'restoring' | 'restored';

export interface JournalUnit {
  readonly intent: IntentLine;
  readonly state: UnitState;
  readonly withheldAt?: number;
  readonly restoredAt?: number;
  readonly why?: string;
}

export interface JournalReading {
  /** Units in the order their (latest) intent was written. */
  readonly units: readonly JournalUnit[];
  /** Lines that could not be used (torn, garbage, or untrusted). */
  readonly skipped: number;
  readonly source: 'journal' | 'manifest' | 'none';
}

const PLAIN = /^[\w.-]+$/;

function fileOk(file: unknown): file is TreeFile {
  if (file === null || typeof file !== 'object') return false;
  const f = file as Partial<TreeFile>;
  return (
    typeof f.path === 'string' &&
    isSafeRelative(f.path) &&
    (f.kind === 'file' || f.kind === 'dir' || f.kind === 'link' || f.kind === 'special') &&
    typeof f.size === 'number' &&
    typeof f.mode === 'number'
  );
}

/** Whether a parsed intent can be trusted: plain names, an absolute cache dir outside the ledger, paths inside it. */
function intentOk(value: Partial<IntentLine>): value is IntentLine {
  if (
    typeof value.runner !== 'string' ||
    !PLAIN.test(value.runner) ||
    typeof value.key !== 'string' ||
    !PLAIN.test(value.key)
  )
    return false;
  if (value.unit !== unitId(value.runner, value.key) || typeof value.t !== 'number' || typeof value.reason !== 'string')
    return false;
  const dir = value.cacheDir;
  if (
    typeof dir !== 'string' ||
    !posix.isAbsolute(dir) ||
    posix.normalize(dir) !== dir ||
    dir.includes('\0') ||
    dir.split('/').includes(LEDGER_DIR)
  )
    return false;
  // Each path's last component starts with the unit's key (the runners' layouts, pass.ts checkUnit).
  const key = value.key;
  if (
    !Array.isArray(value.paths) ||
    value.paths.length === 0 ||
    !value.paths.every(
      (path) => typeof path === 'string' && isSafeRelative(path) && posix.basename(path).startsWith(key),
    )
  )
    return false;
  if (
    (value.host !== undefined && typeof value.host !== 'string') ||
    (value.boot !== undefined && value.boot !== null && typeof value.boot !== 'string')
  )
    return false;
  return (
    Array.isArray(value.files) &&
    value.files.every(fileOk) &&
    typeof value.size === 'number' &&
    (value.task === undefined || typeof value.task === 'string')
  );
}

const OUTCOMES = new Set<string>(['done', 'undone', 'restore', 'restored', 'unrestored']);

function next(state: UnitState, op: OutcomeOp): UnitState {
  switch (op) {
    case 'done':
      return state === 'moving' ? 'withheld' : state;
    case 'undone':
      return state === 'moving' ? 'not-moved' : state;
    case 'restore':
      return state === 'withheld' ? 'restoring' : state;
    case 'restored':
      return state === 'restoring' ? 'restored' : state;
    case 'unrestored':
      return state === 'restoring' ? 'withheld' : state;
  }
}

/** Fold the journal of the quarantine folder `dir` (or its legacy manifest) into units. */
export function readJournal(dir: string): JournalReading {
  const units = new Map<
    string,
    { intent: IntentLine; state: UnitState; withheldAt?: number; restoredAt?: number; why?: string }
  >();
  let skipped = 0;
  const found = scanLines(join(dir, JOURNAL_FILE), (line) => {
    const value = parseLine(line) as Partial<JournalLine> | undefined;
    if (
      value === undefined ||
      value === null ||
      typeof value !== 'object' ||
      typeof value.unit !== 'string' ||
      typeof value.t !== 'number'
    ) {
      skipped++;
      return;
    }
    if (value.op === 'intent') {
      if (!intentOk(value as Partial<IntentLine>)) {
        skipped++;
        return;
      }
      // A unit withheld again (after a restore) starts over; its old lines are history.
      units.delete(value.unit);
      units.set(value.unit, { intent: value as IntentLine, state: 'moving' });
      return;
    }
    const unit = units.get(value.unit);
    if (unit === undefined || typeof value.op !== 'string' || !OUTCOMES.has(value.op)) {
      skipped++;
      return;
    }
    const op = value.op as OutcomeOp;
    const state = next(unit.state, op);
    if (op === 'done' && state === 'withheld') unit.withheldAt = value.t;
    if (op === 'restored' && state === 'restored') unit.restoredAt = value.t;
    if (typeof (value as OutcomeLine).why === 'string') unit.why = (value as OutcomeLine).why as string;
    unit.state = state;
  });
  if (found) return { units: [...units.values()], skipped, source: 'journal' };
  return readLegacyManifest(dir);
}

interface LegacyEntry {
  runner: string;
  key: string;
  task?: string;
  cacheDir: string;
  paths: string[];
  files: TreeFile[];
  size: number;
  reason: string;
  withheldAt: string;
  restoredAt?: string;
}

/** lockguard 0.1 wrote `manifest.json` at the end of a pass; its entries read as withheld (or restored) units. */
function readLegacyManifest(dir: string): JournalReading {
  const path = join(dir, 'manifest.json');
  const bytes = readLedgerFile(path);
  if (bytes === undefined) return { units: [], skipped: 0, source: 'none' };
  let value: { version?: unknown; entries?: unknown };
  try {
    value = JSON.parse(bytes.toString('utf8')) as typeof value;
  } catch (error) {
    throw brokenJournal(path, 'is not valid JSON', error);
  }
  if (value === null || typeof value !== 'object' || value.version !== 1 || !Array.isArray(value.entries))
    throw brokenJournal(path, 'is missing fields or has fields of the wrong type');
  const units: JournalUnit[] = [];
  let skipped = 0;
  for (const raw of value.entries as Partial<LegacyEntry>[]) {
    const withheldAt = Date.parse(String(raw?.withheldAt));
    const intent = {
      op: 'intent',
      unit: unitId(String(raw?.runner), String(raw?.key)),
      t: Number.isFinite(withheldAt) ? withheldAt : 0,
      runner: raw?.runner,
      key: raw?.key,
      ...(raw?.task === undefined ? {} : { task: raw.task }),
      cacheDir: raw?.cacheDir,
      paths: raw?.paths,
      files: raw?.files,
      size: raw?.size,
      reason: raw?.reason,
    } as Partial<IntentLine>;
    if (!intentOk(intent)) {
      skipped++;
      continue;
    }
    const restoredAt = raw?.restoredAt === undefined ? undefined : Date.parse(raw.restoredAt);
    units.push({
      intent,
      state: restoredAt === undefined ? 'withheld' : 'restored',
      withheldAt: intent.t,
      ...(restoredAt === undefined ? {} : { restoredAt }),
    });
  }
  return { units, skipped, source: 'manifest' };
}

function brokenJournal(path: string, problem: string, cause?: unknown): LockguardError {
  return new LockguardError('ERR_LOCKGUARD_BROKEN_LEDGER', `The quarantine record "${path}" ${problem}.`, {
    path,
    cause,
    hint: 'The withheld files are still in that folder, under entries/<runner>/<key>/ with their cache-relative paths; move them back by hand if needed.',
  });
}

/** Append journal lines in one write; `sync` makes them durable before the caller moves anything. */
export function appendJournal(dir: string, lines: readonly JournalLine[], sync: boolean): void {
  if (lines.length === 0) return;
  appendText(join(dir, JOURNAL_FILE), lines.map((line) => `${recordJson(line)}\n`).join(''), {
    create: true,
    fsync: sync,
  });
}
