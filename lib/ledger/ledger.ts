// The on-disk run ledger under `<workspace root>/.lockguard/`.
//
// Owns: creating runs (one folder each: `run.json`, `events.ndjson`, `report.json`), listing them, and reading
// them back (validated, run-record.ts); which run a command means is find-run.ts's.
// Invariants:
// - Writes are atomic (unique stage name, then rename); events are append-only lines.
// - Two runs never share a file. A run killed mid-way leaves a record `status` and `verify` can read.
// - Anything read back is validated: a garbage record is a LockguardError naming the file and the fix.
// - Nothing is reached through a symlink (ledger-fs.ts); a disk or permission fault is a setup error
//   naming the path (ENOSPC, EROFS, EACCES, ...), never a crash.
// - The event log is read streaming, in bounded memory, whatever its size.
// - The ledger folder holds a `.gitignore` of `*` from its creation.
// - What may hold a command (`run.json`, `events.ndjson`, `report.json`) is redacted as it is recorded
//   (core/redact.ts) and written mode 0600.

import { nodeCrypto } from '../core/lazy-builtins.js';
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { LockguardError } from '../core/errors.js';
import { fsFault } from '../core/fs-fault.js';
import type { FileDigest } from '../core/digest.js';
import type { WorkspaceFingerprints } from '../core/fingerprints.js';
import type { Scope } from '../core/entries.js';
import { appendLine, createEmpty, PRIVATE, writeAtomic } from './atomic.js';
import { saveBlob } from './blobs.js';
import {
  ledgerFolder,
  listLedgerFolder,
  parseLedgerJson,
  parseLine,
  readLedgerFile,
  scanLines,
  tailLines,
} from './ledger-fs.js';
import { LEDGER, ledgerPath, RUN_FILES } from './ledger-layout.js';
import { machineStamp } from './trust.js';
import { processStart } from './live.js';
import {
  brokenRecord,
  COPIES_VERSION,
  RUN_ID,
  validateRecord,
  type Policy,
  type RunKind,
  type RunRecord,
} from './run-record.js';
import { isoTime } from '../core/iso-time.js';
import { redactArgv, redactRecord } from '../core/redact.js';
import { recordJson } from '../core/printable.js';

export type { Policy, RunKind, RunRecord } from './run-record.js';

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

/** `<root>/.lockguard` with `runs/`, created with its `.gitignore`; refuses a file or link standing there. */
export function ensureLedger(root: string): string {
  const dir = ledgerPath(root);
  const fresh = ledgerFolder(root, [], false) === undefined;
  ledgerFolder(root, [LEDGER.runs], true);
  if (fresh) writeAtomic(join(dir, '.gitignore'), '*\n');
  return dir;
}

// The wall clock once, then the monotonic clock from there: `performance` would load perf_hooks (about 4 M
// instructions on every run's start-up path) for the same answer.
const ORIGIN_MICROS = BigInt(Date.now()) * 1000n;
const ORIGIN_HRTIME = process.hrtime.bigint();

/** The wall clock in microseconds: one clock for the whole stamp, monotonic within a process. */
function wallMicros(): number {
  return Number(ORIGIN_MICROS + (process.hrtime.bigint() - ORIGIN_HRTIME) / 1000n);
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
  return runIdAt(kind, micros, nodeCrypto().randomBytes(3).toString('hex'));
}

/** The run id stamped `micros` (epoch microseconds) with the 6-hex-digit `suffix` (tests build old ids with it). */
export function runIdAt(kind: RunKind, micros: number, suffix: string): string {
  const stamp = isoTime(Math.floor(micros / 1000))
    .replace(/[-:.]/g, '')
    .replace('Z', `${String(micros % 1000).padStart(3, '0')}Z`);
  return `${stamp}-${kind}-${suffix}`;
}

/** The creation time a run id spells, epoch ms (0 when it spells none). */
export function runIdTime(id: string): number {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})/.exec(id);
  if (match === null) return 0;
  const [, y, mo, d, h, mi, s, ms] = match.map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return Date.UTC(y, mo - 1, d, h, mi, s, ms);
}

export interface CreateRunOptions {
  readonly kind: RunKind;
  readonly table: WorkspaceFingerprints;
  readonly policy?: Policy;
  readonly command?: readonly string[];
  /** The scope the run's verdict judges, when narrower than the table (run-record.ts `judged`). */
  readonly judged?: Scope;
  /** A snapshot's name (run-record.ts `name`). */
  readonly name?: string;
}

export function createRun(options: CreateRunOptions): RunHandle {
  const { table } = options;
  const ledger = ensureLedger(table.root);
  const id = newRunId(options.kind);
  const dir = join(ledger, LEDGER.runs, id);
  try {
    mkdirSync(dir);
  } catch (error) {
    throw fsFault(error, dir, 'create the run folder');
  }
  let record: RunRecord = {
    version: 1,
    id,
    kind: options.kind,
    root: table.root,
    manager: table.manager,
    scope: table.scope,
    ...(options.judged === undefined || options.judged === table.scope ? {} : { judged: options.judged }),
    at: table.at,
    key: table.key,
    entries: table.entries,
    pid: process.pid,
    pidStart: processStart(process.pid),
    ...machineStamp(),
    ...(options.policy === undefined ? {} : { policy: options.policy }),
    // Recorded redacted (core/redact.ts): the child gets its argv exactly, the ledger never a credential.
    ...(options.command === undefined ? {} : { command: redactArgv(options.command) }),
    ...(options.name === undefined ? {} : { name: options.name }),
  };
  try {
    // The lockfiles' bytes first (a later process says how they moved), the record last: a run folder
    // that failed half way (a full disk, a link where `blobs` should be) is removed, never left as a run.
    // A copy with credentials redacted hashes to something else than its name: recorded (run-record.ts).
    const copies: Record<string, FileDigest | null> = {};
    for (const entry of table.entries) {
      const bytes = table.files.get(entry.path);
      if (entry.kind !== 'lockfile' || entry.digest === null || bytes === undefined) continue;
      const copy = saveBlob(table.root, entry.digest, bytes);
      if (copy !== entry.digest) copies[entry.digest] = copy;
    }
    record = { ...record, ...(Object.keys(copies).length > 0 ? { copies } : {}), copiesVersion: COPIES_VERSION };
    createEmpty(join(dir, RUN_FILES.events), PRIVATE);
    writeAtomic(join(dir, RUN_FILES.record), `${recordJson(record, 2)}\n`, { mode: PRIVATE });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, record };
}

/** Append one event line. Faults are setup errors (a full or read-only disk), never a crash. */
export function appendEvent(run: RunHandle | string, event: Omit<RunEvent, 't'> & { t?: number }): void {
  const dir = typeof run === 'string' ? run : run.dir;
  appendLine(join(dir, RUN_FILES.events), redactRecord({ t: Date.now(), ...event }));
}

function asEvent(value: unknown): RunEvent | undefined {
  return value !== null &&
    typeof value === 'object' &&
    typeof (value as RunEvent).type === 'string' &&
    typeof (value as RunEvent).t === 'number'
    ? (value as RunEvent)
    : undefined;
}

/**
 * Visit the run's events in order, streaming (bounded memory whatever the log's size). `types`: only
 * events of these types are parsed at all. A torn or garbage line is skipped (a run killed mid-append).
 */
export function scanEvents(dir: string, visit: (event: RunEvent) => void, types?: readonly string[]): void {
  const only = types?.map((type) => Buffer.from(`"type":${JSON.stringify(type)}`));
  scanLines(
    join(dir, RUN_FILES.events),
    (line) => {
      const event = asEvent(parseLine(line));
      if (event !== undefined && (types === undefined || types.includes(event.type))) visit(event);
    },
    only === undefined ? {} : { only },
  );
}

/** How much of the log's end `latestEvents` reads. */
const LATEST_EVENTS_WINDOW = 8 << 20;

/** The latest events of the run (at most `limit`, from at most the last 8 MB of its log), in order: cheap on any log. */
export function latestEvents(dir: string, limit: number): RunEvent[] {
  const lines = tailLines(join(dir, RUN_FILES.events), LATEST_EVENTS_WINDOW) ?? [];
  const events: RunEvent[] = [];
  for (const line of lines) {
    const event = asEvent(parseLine(line));
    if (event !== undefined) events.push(event);
  }
  return events.slice(-limit);
}

/** The run's events (of `types`, when given), at most `limit` of them (the latest), in order. */
export function readEvents(dir: string, types?: readonly string[], limit = 10_000): RunEvent[] {
  const events: RunEvent[] = [];
  scanEvents(
    dir,
    (event) => {
      events.push(event);
      if (events.length >= limit * 2) events.splice(0, events.length - limit);
    },
    types,
  );
  if (events.length > limit) events.splice(0, events.length - limit);
  return events;
}

export function writeReport(dir: string, report: unknown): void {
  writeAtomic(join(dir, RUN_FILES.report), `${recordJson(redactRecord(report), 2)}\n`, { mode: PRIVATE });
}

export function readReport(dir: string): unknown {
  const path = join(dir, RUN_FILES.report);
  const bytes = readLedgerFile(path);
  if (bytes === undefined) return undefined;
  try {
    return parseLedgerJson(bytes.toString('utf8'));
  } catch (error) {
    throw brokenRecord(path, jsonProblem(error), error);
  }
}

/**
 * Load and validate one run folder. With `root`, the folder must be `<root>/.lockguard/runs/<id>` (each
 * component a real folder, never a link) and the record must belong to that workspace.
 */
export function loadRun(dir: string, root?: string): RunHandle {
  const id = basename(dir);
  if (root !== undefined) {
    if (resolve(dir) !== runDir(root, id) || !RUN_ID.test(id)) {
      throw new LockguardError(
        'ERR_LOCKGUARD_BAD_RUN',
        `"${dir}" is not a run folder of the workspace at "${root}" (expected ${ledgerPath(root, LEDGER.runs, '<run id>')}).`,
        {
          path: dir,
          hint: 'Name the run by its id (lockguard status shows it), or run lockguard in the workspace the run belongs to.',
        },
      );
    }
    if (ledgerFolder(root, [LEDGER.runs, id], false) === undefined) return noRun(dir);
  }
  const path = join(dir, RUN_FILES.record);
  const bytes = readLedgerFile(path);
  if (bytes === undefined) return noRun(dir);
  let value: unknown;
  try {
    value = parseLedgerJson(bytes.toString('utf8'));
  } catch (error) {
    throw brokenRecord(path, jsonProblem(error), error);
  }
  const record = validateRecord(path, value, id);
  if (root !== undefined && resolve(record.root) !== resolve(root)) {
    throw new LockguardError(
      'ERR_LOCKGUARD_BAD_RUN',
      `The run "${dir}" belongs to the workspace at "${record.root}", not "${root}".`,
      {
        path: dir,
        hint: 'Run lockguard in that workspace, or take a new snapshot here (a workspace that was moved keeps runs that name its old place).',
      },
    );
  }
  return { dir, record };
}

function noRun(dir: string): never {
  throw new LockguardError('ERR_LOCKGUARD_BAD_RUN', `"${dir}" is not a lockguard run: it has no run.json.`, {
    path: dir,
    hint: 'Point LOCKGUARD_RUN or --run at a folder under .lockguard/runs/, or take a new snapshot.',
  });
}

/** Run ids under `<root>/.lockguard/runs`, newest first. */
export function listRunIds(root: string): string[] {
  return listLedgerFolder(root, LEDGER.runs)
    .filter((name) => RUN_ID.test(name))
    .sort()
    .reverse();
}

export function runDir(root: string, id: string): string {
  return ledgerPath(resolve(root), LEDGER.runs, id);
}

/** What a ledger file that did not parse is: not JSON, or JSON nested deeper than lockguard ever writes. */
function jsonProblem(error: unknown): string {
  return error instanceof SyntaxError && error.message.startsWith('nested deeper')
    ? `is ${error.message} (lockguard writes a few)`
    : 'is not valid JSON';
}
