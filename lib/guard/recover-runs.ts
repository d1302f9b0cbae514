// Finishing each dead run: its evidence, the withholding pass over what it guarded, the record, one event.
//
// Owns: the work recover.ts starts when `.lockguard/live/` holds something (imported on demand, so an idle
// workspace never loads it). Order: quarantines a dead process left torn are repaired first, then every
// dead, unfinished run is finished under its own lock (two commands never finish the same run twice).
// Invariants: see recover.ts; the moment saves are withheld from is the move the run recorded, else the
// moment its command started; the pass is the live run's (withhold-pass.ts): a stop or a fault ends it at a
// safe point, a fault is thrown (after the partial recovery is recorded and said), and either way the run
// stays unfinished so a later command finishes it.

import { isLockguardError } from '../core/errors.js';
import { RUNNER_NAMES, recordedRunScope } from '../integrations/runners/index.js';
import type { Interrupts } from '../ledger/interrupts.js';
import type { GuardRecord } from '../ledger/guard-record.js';
import { acquireLock } from '../ledger/ledger-lock.js';
import {
  dropMarker,
  evidenceOf,
  findDeadRuns,
  guardOf,
  isFinished,
  recordMoveFound,
  recordRecovery,
  repairDeadLocks,
  runningChild,
  type Evidence,
  type RecoveryRecord,
} from '../ledger/recovery.js';
import type { RunHandle } from '../ledger/ledger.js';
import type { GuardContext } from './events.js';
import { cacheOfRecord, PlacesNow } from './guard-file.js';
import { passControl } from './pass-control.js';
import { diedText, evidenceText } from './record-words.js';
import { withholdPass, type PassCache, type PassOutcome } from './withhold-pass.js';

const NOTES_SHOWN = 20;

/** Finish every dead, unfinished run of the workspace (the caller holds signals and handles what is thrown). */
export async function finishDeadRuns(
  root: string,
  context: GuardContext,
  interrupts: Interrupts,
  finishedBy: string,
): Promise<void> {
  // What a record may name: the caches this workspace is configured for, as they resolve now (ledger/trust.ts).
  const places = new PlacesNow(root, context.env);
  // A journal may name any runner: a dead pass's repair is offered every runner's cache as it resolves now.
  repairDeadLocks(root, () => places.trusted(RUNNER_NAMES));
  for (const dead of findDeadRuns(root)) {
    if (interrupts.stopRequested()) return;
    if (dead.run === undefined || dead.problem !== undefined) {
      dropMarker(root, dead.id);
      context.emit({ type: 'marker-removed', id: dead.id, problem: dead.problem ?? 'unreadable' });
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
      await finishOne(root, context, dead.run, dead.pid, interrupts, finishedBy, places);
    } finally {
      lock.release();
    }
  }
}

async function finishOne(
  root: string,
  context: GuardContext,
  run: RunHandle,
  pid: number | undefined,
  interrupts: Interrupts,
  finishedBy: string,
  places: PlacesNow,
): Promise<void> {
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
  const caches = policy === 'flag' ? [] : recordedCaches(guard.record, root, places, notes);
  // The same per-project judgement as the run's own pass would have made (integrations/runners/affected.ts).
  const scope = policy === 'flag' ? undefined : await recordedRunScope(run, evidence.kind);
  const pass = await withholdPass(caches, {
    withhold: true,
    movedAt: since,
    runStartedAt,
    runEndedAt: Date.now(),
    runId: id,
    control: passControl(context, interrupts),
    notesShown: NOTES_SHOWN,
    ...(scope === undefined ? {} : { scope }),
  });
  const passes = passSummaries(pass);
  notes.push(...scopeNotes(pass, evidence));
  notes.push(...pass.notes);
  const complete = pass.stop === undefined;
  const record = recoveryRecord(finishedBy, pid, evidence, since, pass, notes, child);
  recordRecovery(root, run, record, complete && child === undefined);
  context.emit({
    type: 'run-recovered',
    run: id,
    pid,
    evidence,
    policy,
    unguarded: guard.record === undefined ? (guard.problem ?? 'no guarded caches') : undefined,
    withheld: pass.withheldCount,
    passes,
    childRunning: child,
    complete,
  });
  if (pass.stop?.kind === 'fault') throw pass.stop.error;
}

/** What the record names, as it resolves now (a cache it may not touch is a note in `notes`, left alone). */
function recordedCaches(
  record: GuardRecord | undefined,
  root: string,
  places: PlacesNow,
  notes: string[],
): PassCache[] {
  const caches: PassCache[] = [];
  for (const recorded of record?.caches ?? []) {
    const shapes = cacheOfRecord(recorded, root, places);
    if ('problem' in shapes) notes.push(shapes.problem);
    else
      caches.push({
        runner: shapes.cache.runner as PassCache['runner'],
        cache: shapes.cache,
        before: shapes.before,
        started: recorded.started,
      });
  }
  return caches;
}

/** Each cache the pass went over: what it withheld and spared, and how it judged (per project or all). */
function passSummaries(pass: PassOutcome) {
  return pass.caches.flatMap((outcome) =>
    outcome.withheld === undefined
      ? []
      : [
          {
            runner: outcome.runner,
            withheld: outcome.withheld.withheld,
            spared: outcome.withheld.spared,
            scope: outcome.withheld.scope,
          },
        ],
  );
}

/** The notes on the pass's judgement: the saves it kept (a few), and each cache whose every save it withheld. */
function scopeNotes(pass: PassOutcome, evidence: Evidence): string[] {
  const notes: string[] = [];
  for (const outcome of pass.caches) {
    const result = outcome.withheld;
    if (result === undefined) continue;
    for (const kept of result.spared.slice(0, NOTES_SHOWN))
      notes.push(`kept ${kept.task} (${kept.key}): its project's slice did not move`);
    if (result.scope.kind === 'all' && result.withheld.length > 0)
      notes.push(
        `${outcome.runner}: every save since ${evidence.kind === 'recorded-move' ? 'the move' : 'the run started'} was withheld: ${result.scope.reason}`,
      );
  }
  return notes;
}

/** The recovery record: who finished the run and why, from when, what was withheld where, the notes. */
function recoveryRecord(
  finishedBy: string,
  pid: number | undefined,
  evidence: Evidence,
  since: number,
  pass: PassOutcome,
  notes: string[],
  child: ReturnType<typeof runningChild>,
): RecoveryRecord {
  return {
    by: `lockguard ${finishedBy}`,
    reason: `${diedText(pid)}, and ${evidenceText(evidence)}`,
    evidence: evidence.kind,
    since,
    withheld: pass.withheldCount,
    quarantine: [
      ...new Set(
        pass.caches.flatMap((outcome) =>
          outcome.withheld?.quarantineDir === undefined ? [] : [outcome.withheld.quarantineDir],
        ),
      ),
    ],
    notes,
    ...(child === undefined ? {} : { childRunning: child }),
  };
}
