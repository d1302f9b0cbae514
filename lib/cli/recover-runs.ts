// Finishing each dead run: its evidence, the withholding passes over what it guarded, the record, one line.
//
// Owns: the work recover.ts starts when `.lockguard/live/` holds something (imported on demand, so an idle
// workspace never loads it). Order: quarantines a dead process left torn are repaired first, then every
// dead, unfinished run is finished under its own lock (two commands never finish the same run twice).
// Invariants: see recover.ts; the moment saves are withheld from is the move the run recorded, else the
// moment its command started; a fault stops the pass at a safe point and is thrown (after the partial
// recovery is recorded), so the run stays unfinished and a later command finishes it.

import { isLockguardError, type LockguardError } from '../core/errors.js';
import { RUNNER_NAMES, recordedRunScope, scopeClause, tasksAfterMove, withholdAfterRun, type ScopedPass, type SummaryReading } from '../integrations/runners/index.js';
import type { Interrupts } from '../run/interrupts.js';
import { acquireLock } from '../run/ledger-lock.js';
import { dropMarker, evidenceOf, findDeadRuns, guardOf, isFinished, recordMoveFound, recordRecovery, repairDeadLocks, runningChild, type Evidence, type RecoveryRecord } from '../run/recovery.js';
import type { RunHandle } from '../run/ledger.js';
import { cacheOfRecord, PlacesNow } from './guard-file.js';
import type { Io } from './io.js';
import { passControl } from './pass-control.js';
import { plural } from './run-outcome.js';

const NOTES_SHOWN = 20;

function noSummary(note: string): SummaryReading {
  return { source: undefined, tasks: [], runningAcrossMove: [], ownKeys: undefined, note };
}

function evidenceText(evidence: Evidence): string {
  switch (evidence.kind) {
    case 'recorded-move':
      return 'it had recorded a move of the table';
    case 'table-moved':
      return `the table no longer holds what it read (${evidence.files.map((file) => file.path).join(', ')})`;
    case 'none':
      return `nothing shows whether its saves were sound${evidence.problem === undefined ? '' : ` (the table cannot be re-read: ${evidence.problem})`}`;
  }
}

/** Finish every dead, unfinished run of the workspace (the caller holds signals and handles what is thrown). */
export async function finishDeadRuns(root: string, io: Io, interrupts: Interrupts, by: string): Promise<void> {
  // What a record may name: the caches this workspace is configured for, as they resolve now (run/trust.ts).
  const places = new PlacesNow(root, io.env);
  // A journal may name any runner: a dead pass's repair is offered every runner's cache as it resolves now.
  repairDeadLocks(root, () => places.trusted(RUNNER_NAMES));
  for (const dead of findDeadRuns(root)) {
    if (interrupts.stopRequested()) return;
    if (dead.run === undefined || dead.problem !== undefined) {
      dropMarker(root, dead.id);
      io.stderr.write(`lockguard: removed the live marker "${dead.id}", which names no guarded run of this workspace (${dead.problem ?? 'unreadable'}).\n`);
      continue;
    }
    let lock: ReturnType<typeof acquireLock>;
    try {
      lock = acquireLock(root, `finish-${dead.id}`);
    } catch (error) {
      // Another live lockguard process is finishing this run right now.
      if (isLockguardError(error) && error.code === 'ERR_LOCKGUARD_BUSY') continue;
      throw error;
    }
    try {
      await finishOne(root, io, dead.run, dead.pid, interrupts, by, places);
    } finally {
      lock.release();
    }
  }
}

async function finishOne(root: string, io: Io, run: RunHandle, pid: number | undefined, interrupts: Interrupts, by: string, places: PlacesNow): Promise<void> {
  const id = run.record.id;
  if (isFinished(run)) {
    // It died after recording its end, before dropping its marker: nothing left to do.
    dropMarker(root, id);
    return;
  }
  const child = runningChild(run);
  const evidence = evidenceOf(run);
  const guard = guardOf(run);
  const runStartedAt = guard.record?.runStartedAt ?? run.record.at;
  const since = evidence.kind === 'recorded-move' ? evidence.movedAt : runStartedAt;
  if (evidence.kind === 'table-moved') recordMoveFound(run, evidence.files, runStartedAt);
  const policy = run.record.policy ?? 'withhold';
  const notes: string[] = [];
  if (guard.record === undefined && guard.problem !== undefined) notes.push(guard.problem);
  let withheld = 0;
  const passes: ScopedPass[] = [];
  // The same per-project judgement as the run's own pass would have made (integrations/runners/affected.ts).
  const scope = policy === 'flag' ? undefined : await recordedRunScope(run, evidence.kind);
  const quarantine = new Set<string>();
  let complete = true;
  let fault: LockguardError | undefined;
  if (policy !== 'flag') {
    for (const recorded of guard.record?.caches ?? []) {
      if (interrupts.stopRequested() || fault !== undefined) {
        complete = false;
        break;
      }
      const shapes = cacheOfRecord(recorded, root, places);
      if ('problem' in shapes) {
        notes.push(shapes.problem);
        continue;
      }
      let summary: SummaryReading;
      try {
        summary = tasksAfterMove(shapes.cache, { movedAt: since, runStartedAt });
      } catch (error) {
        summary = noSummary(isLockguardError(error) ? error.message : String(error));
      }
      try {
        const result = await withholdAfterRun(shapes.cache, shapes.before, summary, { movedAt: since, runStartedAt, runEndedAt: Date.now(), runId: id, control: passControl(io, interrupts), ...(scope === undefined ? {} : { scope }) });
        withheld += result.withheld.length;
        passes.push({ runner: recorded.runner, withheld: result.withheld, spared: result.spared, scope: result.scope });
        for (const kept of result.spared.slice(0, NOTES_SHOWN)) notes.push(`kept ${kept.task} (${kept.key}): its project's slice did not move`);
        if (result.scope.kind === 'all' && result.withheld.length > 0) notes.push(`${recorded.runner}: every save since ${evidence.kind === 'recorded-move' ? 'the move' : 'the run started'} was withheld: ${result.scope.reason}`);
        if (result.quarantineDir !== undefined) quarantine.add(result.quarantineDir);
        if (result.interrupted === true) complete = false;
        if (result.fault !== undefined) {
          complete = false;
          fault = result.fault;
        }
        for (const item of result.notMoved.filter((n) => n.reason !== 'interrupted').slice(0, NOTES_SHOWN)) notes.push(`not withheld ${item.key}: ${item.detail}`);
      } catch (error) {
        if (!isLockguardError(error)) throw error;
        complete = false;
        fault = error;
      }
    }
  }
  const finished = complete && child === undefined;
  const died = `its guard${pid === undefined ? '' : ` (pid ${pid})`} died before its final check`;
  const record: RecoveryRecord = {
    by: `lockguard ${by}`,
    reason: `${died}, and ${evidenceText(evidence)}`,
    evidence: evidence.kind,
    since,
    withheld,
    quarantine: [...quarantine],
    notes,
    ...(child === undefined ? {} : { childRunning: child }),
  };
  recordRecovery(root, run, record, finished);
  const moment = evidence.kind === 'recorded-move' ? 'the move it recorded' : 'it started';
  const what =
    policy === 'flag'
      ? 'its policy was flag, so nothing was withheld'
      : guard.record === undefined
        ? `nothing was withheld (${guard.problem ?? 'no guarded caches'})`
        : `${plural(withheld, 'cache save')} it made since ${moment} ${withheld === 1 ? 'was' : 'were'} withheld${scopeClause(passes)}, restorably (lockguard quarantine list --run ${id})`;
  const tail = child !== undefined ? `; its command (pid ${child}) still runs: what it saves from now on is withheld by the next lockguard command` : !complete ? '; not finished yet: the next lockguard command goes on' : '';
  io.stderr.write(`[lockguard] run ${id} did not finish: ${died}, and ${evidenceText(evidence)}: ${what}${tail}\n`);
  if (fault !== undefined) throw fault;
}
