// Runs that died before they finished: finding them, weighing the evidence, and recording the end.
//
// Owns: the ledger side of "a guard that dies is finished later": which runs are dead and unfinished (a
// live marker whose process is gone, a reused pid, or no start time), the quarantine locks dead holders
// left (their journals are repaired) and the other locks they left (released: nothing to repair), what evidence a dead run left (a move it recorded; else a table that
// no longer holds what it read; else none), whether its command still runs, and the `recovered` and
// `finished` events. The withholding itself is composed in guard/recover-runs.ts (run/ knows no runner adapter).
// Invariants:
// - Cheap when there is nothing to do: one failed readdir of `.lockguard/live/` (the idle workspace).
// - No health from an absence of evidence: a dead run with neither a recorded move nor a moved table still
//   had its saves unchecked, so its caller withholds them (since the run started) and says why.
// - A run is marked finished only once its command is gone too: while an orphaned command still runs, it may
//   still save, so the run stays unfinished and is finished again (idempotently) by a later command.
// - A marker, a lock and a run record are judged only when made on this machine since it last booted
//   (trust.ts: pids mean nothing on another machine or boot); a foreign one is left and reported, never
//   recovered. Repairs stay inside the trusted places the caller hands in.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { errnoCode, isLockguardError } from '../core/errors.js';
import { readGuard, type GuardRecord } from './guard-record.js';
import { appendEvent, loadRun, runDir, scanEvents, type RunEvent, type RunHandle } from './ledger.js';
import { acquireLock, deadLocks } from './ledger-lock.js';
import { isAlive, listMarkers, pidExists, processStart, unregisterLive, LIVE_DIR } from './live.js';
import { lockQuarantine } from './quarantine/index.js';
import { movesNow, recordedMoveAt, type MovedFile } from './verdict.js';
import { madeHere, type TrustedPlaces } from './trust.js';

export type Evidence =
  /** The run recorded a move before it died: saves since that moment are stale. */
  | { readonly kind: 'recorded-move'; readonly movedAt: number }
  /** The table no longer holds what the run read: moved at an unknown moment, so since the run started. */
  | { readonly kind: 'table-moved'; readonly files: readonly MovedFile[] }
  /** Neither: the saves were never checked. `problem` when the table could not be re-read at all. */
  | { readonly kind: 'none'; readonly problem?: string };

export interface DeadRun {
  /** The run id (the marker's name). */
  readonly id: string;
  /** The loaded run, or undefined when its folder is gone or its record broken (`problem`). */
  readonly run: RunHandle | undefined;
  readonly problem: string | undefined;
  /** The guard's pid, for the messages. */
  readonly pid: number | undefined;
}

/** Whether anything may need finishing: `live/` exists (an idle workspace has none). */
export function pendingWork(root: string): boolean {
  try {
    return readdirSync(join(root, LIVE_DIR)).length > 0;
  } catch {
    return false;
  }
}

/**
 * Settle the locks dead processes left in `live/`. A quarantine lock is taken over, which repairs that
 * quarantine's journal first (a pass or a restore killed midway); any other lock guards work that needs no
 * repair (a killed prune's set-aside names are no run; a run whose finish was killed keeps its marker and
 * is finished again), so it is released: otherwise `live/` would stay and every later command would leave
 * the idle fast path. Returns the runs whose quarantine was repaired.
 */
/** A lock name lockguard takes, and a run id a quarantine lock names: no leading dot, no path. */
const LOCK_NAME = /^[\w-][\w.-]*$/;

export function repairDeadLocks(root: string, places: () => TrustedPlaces): string[] {
  let names: string[];
  try {
    names = readdirSync(join(root, LIVE_DIR));
  } catch {
    return [];
  }
  const repaired: string[] = [];
  for (const name of deadLocks(names, join(root, LIVE_DIR))) {
    const runId = name.startsWith('quarantine-') ? name.slice('quarantine-'.length) : undefined;
    // A planted name that no lockguard process takes (`.lock-quarantine-..`, spaces) is left alone.
    if (!LOCK_NAME.test(name) || (runId !== undefined && !LOCK_NAME.test(runId))) continue;
    try {
      if (runId === undefined) {
        acquireLock(root, name).release();
        continue;
      }
      // Taking a dead holder's lock repairs its journal first (quarantine/pass.ts lockQuarantine).
      lockQuarantine(root, runId, places()).release();
      repaired.push(runId);
    } catch (error) {
      // BUSY: its holder came back to life (another process took it); FOREIGN: made elsewhere, reported.
      if (!isLockguardError(error) || (error.code !== 'ERR_LOCKGUARD_BUSY' && error.code !== 'ERR_LOCKGUARD_FOREIGN'))
        throw error;
    }
  }
  return repaired;
}

/** The runs of this workspace whose guard is gone and that never recorded their end. */
export function findDeadRuns(root: string): DeadRun[] {
  const dead: DeadRun[] = [];
  // Without /proc (no start times at all here) an untrusted marker whose pid exists cannot be judged dead.
  const noStartTimes = processStart(process.pid) === null;
  for (const marker of listMarkers(root)) {
    // A foreign marker is neither live nor dead here: nothing recovers from it (trust.ts; reported).
    if (marker.alive || marker.foreign) continue;
    if (noStartTimes && marker.pid !== undefined && pidExists(marker.pid)) continue;
    let run: RunHandle | undefined;
    let problem: string | undefined;
    try {
      run = loadRun(runDir(root, marker.name), root);
    } catch (error) {
      if (!isLockguardError(error)) throw error;
      problem = error.message;
    }
    // The run's record must be this machine's too: a marker only means something with the run it names.
    if (run !== undefined && !madeHere(run.record)) continue;
    if (run !== undefined && run.record.kind !== 'run') problem = 'it is not a guarded run';
    dead.push({ id: marker.name, run, problem, pid: marker.run?.pid ?? run?.record.pid });
  }
  return dead;
}

/** True when the run recorded its end (`finished`), so only its marker is left to remove. */
export function isFinished(run: RunHandle): boolean {
  let finished = false;
  scanEvents(run.dir, () => (finished = true), ['finished']);
  return finished;
}

/** The command the run started, when it still runs (an orphan of the dead guard). */
export function runningChild(run: RunHandle): number | undefined {
  let child: { pid: number; pidStart: number | null } | undefined;
  scanEvents(
    run.dir,
    (event) => {
      if (typeof event['pid'] === 'number')
        child = { pid: event['pid'], pidStart: typeof event['pidStart'] === 'number' ? event['pidStart'] : null };
    },
    ['child'],
  );
  return child !== undefined && isAlive(child.pid, child.pidStart) ? child.pid : undefined;
}

/** What the dead run left to judge its saves by. */
export function evidenceOf(run: RunHandle): Evidence {
  const movedAt = recordedMoveAt(run.dir);
  if (movedAt !== undefined) return { kind: 'recorded-move', movedAt };
  try {
    const files = movesNow(run);
    return files.length > 0 ? { kind: 'table-moved', files } : { kind: 'none' };
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    return { kind: 'none', problem: error.message };
  }
}

/** The run's guard record (what it guarded), or why there is none. */
export function guardOf(run: RunHandle): { record: GuardRecord | undefined; problem: string | undefined } {
  return readGuard(run.dir);
}

export interface RecoveryRecord {
  readonly by: string;
  readonly reason: string;
  readonly evidence: Evidence['kind'];
  /** Saves at or after this moment were withheld (epoch ms). */
  readonly since: number;
  readonly withheld: number;
  readonly quarantine: readonly string[];
  readonly notes: readonly string[];
  /** The orphaned command still ran: the run stays unfinished. */
  readonly childRunning?: number;
}

/** Record the recovery; with `finished`, the run's end too, and drop its marker. */
export function recordRecovery(root: string, run: RunHandle, recovery: RecoveryRecord, finished: boolean): void {
  appendEvent(run, { type: 'recovered', ...recovery });
  if (!finished) return;
  appendEvent(run, { type: 'finished', by: 'recovery' });
  unregisterLive(root, run.record.id);
}

/** Record a table move found only now (evidence `recovery`), so `verify --run` refuses the run's saves. */
export function recordMoveFound(run: RunHandle, files: readonly MovedFile[], movedAt: number): void {
  appendEvent(run, { type: 'moved', evidence: 'recovery', movedAt, files });
}

/** Drop a marker that names no run we can finish (its folder gone or broken): nothing of it can be judged. */
export function dropMarker(root: string, id: string): void {
  try {
    unregisterLive(root, id);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
}

/** Where a guarded run stands, for `status`. */
export type Life =
  | { readonly state: 'live'; readonly pid: number }
  | { readonly state: 'finished'; readonly by: string; readonly recovery: RunEvent | undefined }
  /** The guard is gone and the run never recorded its end (the next command that can write finishes it). */
  | { readonly state: 'dead-unfinished'; readonly pid: number | undefined; readonly recovery: RunEvent | undefined }
  /** No marker and no end recorded: a run from before runs recorded their end. */
  | { readonly state: 'ended' }
  /** Its marker was not made on this machine since it last booted: nothing here judges or finishes it. */
  | { readonly state: 'foreign' };

export function lifeOf(root: string, run: RunHandle): Life {
  let finished: RunEvent | undefined;
  let recovery: RunEvent | undefined;
  scanEvents(
    run.dir,
    (event) => {
      if (event.type === 'finished') finished = event;
      else recovery = event;
    },
    ['finished', 'recovered'],
  );
  if (finished !== undefined)
    return { state: 'finished', by: typeof finished['by'] === 'string' ? finished['by'] : 'run', recovery };
  const marker = listMarkers(root).find((candidate) => candidate.name === run.record.id);
  if (marker === undefined) return { state: 'ended' };
  if (marker.foreign || !madeHere(run.record)) return { state: 'foreign' };
  if (marker.alive && marker.run !== undefined) return { state: 'live', pid: marker.run.pid };
  return { state: 'dead-unfinished', pid: marker.run?.pid ?? run.record.pid, recovery };
}
