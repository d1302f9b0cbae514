// The on-disk run ledger under `<workspace root>/.lockguard/`.
//
// Owns: creating runs (one folder each: `run.json`, `events.ndjson`, `report.json`), finding them (by id,
// by path, latest snapshot), and validating what it reads back.
// Invariants:
// - Writes are atomic (unique stage name, then rename); events are append-only lines.
// - Two runs never share a file. A run killed mid-way leaves a record `status` and `verify` can read.
// - Anything read back is validated: a garbage record is a LockguardError naming the file and the fix.
// - The ledger folder holds a `.gitignore` of `*` from its creation.

import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { errnoCode, LockguardError } from '../core/errors.js';
import type { FingerprintEntry, WorkspaceFingerprints } from '../core/fingerprints.js';
import type { Scope } from '../core/entries.js';
import type { TableKey } from '../core/digest.js';
import type { PackageManager } from '../core/workspace.js';
import { appendLine, writeAtomic } from './atomic.js';
import { saveBlob } from './blobs.js';
import { processStart } from './live.js';

export const LEDGER_DIR = '.lockguard';
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
  /** The read moment (epoch ms). */
  readonly at: number;
  readonly key: TableKey;
  readonly entries: readonly FingerprintEntry[];
  readonly pid: number;
  /** Process start time as the kernel counts it (clock ticks since boot), for liveness; null if unknown. */
  readonly pidStart: number | null;
  readonly host: string;
  readonly policy?: Policy;
  readonly command?: readonly string[];
}

/** One line of `events.ndjson`. */
export interface RunEvent {
  readonly t: number;
  readonly type: string;
  readonly [field: string]: unknown;
}

export interface RunHandle {
  readonly dir: string;
  readonly record: RunRecord;
}

function ledgerError(path: string, problem: string, cause?: unknown): LockguardError {
  return new LockguardError('ERR_LOCKGUARD_BROKEN_LEDGER', `The lockguard record "${path}" ${problem}.`, {
    path,
    cause,
    hint: `Delete "${dirname(path)}" and take a new snapshot (lockguard snapshot).`,
  });
}

/** `<root>/.lockguard`, created with its `.gitignore`; refuses a file or link standing there. */
export function ensureLedger(root: string): string {
  const dir = join(root, LEDGER_DIR);
  const stats = lstatSync(dir, { throwIfNoEntry: false });
  if (stats !== undefined && !stats.isDirectory()) {
    throw new LockguardError('ERR_LOCKGUARD_BROKEN_LEDGER', `Expected "${dir}" to be lockguard's ledger folder, but it is not a folder.`, {
      path: dir,
      hint: 'Move or remove it: lockguard keeps its run records there.',
    });
  }
  if (stats === undefined) {
    mkdirSync(join(dir, 'runs'), { recursive: true });
    writeFileSync(join(dir, '.gitignore'), '*\n');
  } else {
    mkdirSync(join(dir, 'runs'), { recursive: true });
  }
  return dir;
}

/** The wall clock in microseconds: one clock for the whole stamp, monotonic within a process (performance.now). */
function wallMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

let lastMicros = 0;

/**
 * A run id that sorts by creation: `<UTC stamp to the microsecond>Z-<kind>-<random>`. Within a process the
 * stamp strictly increases (a second run in the same microsecond takes the next one), so "latest" never
 * depends on the random suffix; across processes the microsecond stamps order runs as far as the clocks
 * agree, and the suffix only keeps ids apart. `clock` is for tests (it forces a tie).
 */
export function newRunId(kind: RunKind, clock: () => number = wallMicros): string {
  const micros = Math.max(Math.floor(clock()), Date.now() * 1000, lastMicros + 1);
  lastMicros = micros;
  const stamp = new Date(Math.floor(micros / 1000)).toISOString().replace(/[-:.]/g, '').replace('Z', `${String(micros % 1000).padStart(3, '0')}Z`);
  return `${stamp}-${kind}-${randomBytes(3).toString('hex')}`;
}

export interface CreateRunOptions {
  readonly kind: RunKind;
  readonly table: WorkspaceFingerprints;
  readonly policy?: Policy;
  readonly command?: readonly string[];
}

export function createRun(options: CreateRunOptions): RunHandle {
  const { table } = options;
  const ledger = ensureLedger(table.root);
  const id = newRunId(options.kind);
  const dir = join(ledger, 'runs', id);
  mkdirSync(dir);
  const record: RunRecord = {
    version: 1,
    id,
    kind: options.kind,
    root: table.root,
    manager: table.manager,
    scope: table.scope,
    at: table.at,
    key: table.key,
    entries: table.entries,
    pid: process.pid,
    pidStart: processStart(process.pid),
    host: hostname(),
    ...(options.policy === undefined ? {} : { policy: options.policy }),
    ...(options.command === undefined ? {} : { command: options.command }),
  };
  writeAtomic(join(dir, 'run.json'), `${JSON.stringify(record, null, 2)}\n`);
  writeFileSync(join(dir, 'events.ndjson'), '');
  // Keep the lockfiles' bytes, so a later process can say how they moved (slice diffs).
  for (const entry of table.entries) {
    const bytes = table.files.get(entry.path);
    if (entry.kind === 'lockfile' && entry.digest !== null && bytes !== undefined) saveBlob(table.root, entry.digest, bytes);
  }
  return { dir, record };
}

export function appendEvent(run: RunHandle | string, event: Omit<RunEvent, 't'> & { t?: number }): void {
  const dir = typeof run === 'string' ? run : run.dir;
  appendLine(join(dir, 'events.ndjson'), { t: Date.now(), ...event });
}

export function readEvents(dir: string): RunEvent[] {
  const path = join(dir, 'events.ndjson');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw ledgerError(path, 'cannot be read', error);
  }
  const events: RunEvent[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (value !== null && typeof value === 'object' && typeof (value as RunEvent).type === 'string') events.push(value as RunEvent);
    } catch {
      // A run killed mid-append leaves a torn last line: skip it, keep the rest.
    }
  }
  return events;
}

export function writeReport(dir: string, report: unknown): void {
  writeAtomic(join(dir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
}

export function readReport(dir: string): unknown {
  const path = join(dir, 'report.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw ledgerError(path, 'cannot be read', error);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw ledgerError(path, 'is not valid JSON', error);
  }
}

/** Load and validate one run folder. */
export function loadRun(dir: string): RunHandle {
  const path = join(dir, 'run.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') {
      throw new LockguardError('ERR_LOCKGUARD_BAD_RUN', `"${dir}" is not a lockguard run: it has no run.json.`, {
        path: dir,
        hint: 'Point LOCKGUARD_RUN or --run at a folder under .lockguard/runs/, or take a new snapshot.',
      });
    }
    throw ledgerError(path, 'cannot be read', error);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw ledgerError(path, 'is not valid JSON', error);
  }
  return { dir, record: validateRecord(path, value) };
}

function validateRecord(path: string, value: unknown): RunRecord {
  if (value === null || typeof value !== 'object') throw ledgerError(path, 'is not a JSON object');
  const record = value as Partial<RunRecord>;
  if (record.version !== 1) throw ledgerError(path, `has an unknown version (${String(record.version)}); expected 1`);
  const ok =
    typeof record.id === 'string' &&
    (record.kind === 'snapshot' || record.kind === 'run') &&
    typeof record.root === 'string' &&
    (record.scope === 'inputs' || record.scope === 'full') &&
    typeof record.at === 'number' &&
    typeof record.key === 'string' &&
    typeof record.pid === 'number' &&
    Array.isArray(record.entries) &&
    record.entries.every(
      (entry) =>
        entry !== null &&
        typeof entry === 'object' &&
        typeof entry.path === 'string' &&
        (entry.digest === null || typeof entry.digest === 'string') &&
        (entry.identity === null || (typeof entry.identity === 'object' && typeof entry.identity.ino === 'number')),
    );
  if (!ok) throw ledgerError(path, 'is missing fields or has fields of the wrong type');
  return record as RunRecord;
}

/** Run ids under `<root>/.lockguard/runs`, newest first. */
export function listRunIds(root: string): string[] {
  const runs = join(root, LEDGER_DIR, 'runs');
  let names: string[];
  try {
    names = readdirSync(runs);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    if (errnoCode(error) === 'ENOTDIR') ensureLedger(root);
    throw ledgerError(runs, 'cannot be listed', error);
  }
  // Ids up to 0.1.0 stamped milliseconds (`\d{9}Z`); newer ones microseconds (`\d{12}Z`).
  return names.filter((name) => /^\d{8}T(?:\d{9}|\d{12})Z-(snapshot|run)-[0-9a-f]{6}$/.test(name)).sort().reverse();
}

export function runDir(root: string, id: string): string {
  return join(root, LEDGER_DIR, 'runs', id);
}

/**
 * Resolve which run a command means: an explicit `--run` (id or folder), else `LOCKGUARD_RUN`, else the
 * latest run of `kind` in the workspace. A run that belongs to another workspace is refused.
 */
export function findRun(root: string, explicit: string | undefined, fromEnv: string | undefined, kind?: RunKind): RunHandle {
  const given = explicit ?? fromEnv;
  if (given !== undefined && given !== '') {
    const source = explicit !== undefined ? '--run' : 'LOCKGUARD_RUN';
    const dir = /^[\w-]+$/.test(given) && !given.includes('/') ? runDir(root, given) : resolve(given);
    const stats = lstatSync(dir, { throwIfNoEntry: false });
    if (stats === undefined || !stats.isDirectory()) {
      throw new LockguardError('ERR_LOCKGUARD_BAD_RUN', `${source} names "${given}", which is not a run folder (${stats === undefined ? 'missing' : 'not a folder'}).`, {
        path: dir,
        hint: `Unset ${source === '--run' ? 'the flag' : 'LOCKGUARD_RUN'} to use the latest run, or take a new snapshot.`,
      });
    }
    const run = loadRun(dir);
    if (resolve(run.record.root) !== resolve(root) || basename(dirname(dir)) !== 'runs') {
      throw new LockguardError('ERR_LOCKGUARD_BAD_RUN', `${source} names the run "${dir}", which belongs to the workspace at "${run.record.root}", not "${root}".`, {
        path: dir,
        hint: `Run lockguard in that workspace, or unset ${source === '--run' ? 'the flag' : 'LOCKGUARD_RUN'}.`,
      });
    }
    return run;
  }
  for (const id of listRunIds(root)) {
    if (kind === undefined || id.includes(`-${kind}-`)) return loadRun(runDir(root, id));
  }
  throw new LockguardError('ERR_LOCKGUARD_NO_SNAPSHOT', `No lockguard ${kind ?? 'run'} found in "${join(root, LEDGER_DIR)}".`, {
    path: join(root, LEDGER_DIR),
    hint: kind === 'snapshot' || kind === undefined ? 'Take one first: lockguard snapshot (at the start of the job).' : 'Start one with lockguard run -- <command>.',
  });
}
