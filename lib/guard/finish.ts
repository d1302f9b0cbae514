// Finishing a guarded run once its command exited: the final check, the withholding pass, the records.
//
// Owns: the order after the child (the seam, the final check, the per-project scope, the one withholding
// pass, the exit event, the withheld event, the report, marking the run finished) and `RunFinished`, the
// typed outcome the caller renders (cli/commands/run.ts).
// Invariants: the verdict decides the exit code even when a record cannot be written (a `record-failed`
// event, never a hidden verdict); a pass a fault or a second signal stopped (`outcome.stop`) leaves the run
// unfinished (its live marker stays), so the next lockguard command withholds what is left; a ledger problem
// reading the slices never stops the pass: it withholds every save, then is thrown after the exit event.

import { isLockguardError, type LockguardError } from '../core/errors.js';
import { withholdScope, type GuardPlan, type WithholdScope } from '../integrations/runners/index.js';
import type { ChildEnd } from '../ledger/child.js';
import type { Interrupts } from '../ledger/interrupts.js';
import { appendEvent, type Policy } from '../ledger/ledger.js';
import { buildReport, saveReport, type RunReport, type WithheldEntry } from '../ledger/report.js';
import type { GuardSession, MoveRecord } from '../ledger/session.js';
import { lockfileMovesAmong, sliceMoveJson, type SliceMove } from '../ledger/slice-report.js';
import type { GuardContext, RecordPart, RemoteFallback } from './events.js';
import { passControl, pauseAfterChild } from './pass-control.js';
import { fallbackLines, judgedText } from './record-words.js';
import { runnerLabel } from '../integrations/runners/index.js';
import type { RemoteGateOutcome } from './remote-gate-wiring.js';
import {
  afterRunners,
  scopeReport,
  type GuardedCache,
  type RunnerOutcome,
  type RunnerPrepared,
} from './runner-guard.js';
import type { PassStop } from './withhold-pass.js';

/** What the exit code is decided from. */
export interface RunVerdict {
  /** The child's own code (128+n for a signal; 127 when it could not start). */
  readonly childCode: number;
  readonly moved: boolean;
  readonly policy: Policy;
  /** Why the withholding pass stopped early, if it did. */
  readonly stop: PassStop | undefined;
  /** The signal that arrived after the child exited, if one did. */
  readonly signal: NodeJS.Signals | undefined;
}

/** A guarded run, finished: everything its final lines say, as values. */
export interface RunFinished {
  readonly runId: string;
  readonly policy: Policy;
  readonly end: ChildEnd;
  readonly code: number;
  readonly move: MoveRecord | undefined;
  readonly caches: readonly GuardedCache[];
  /** The withholding pass and the runners' summaries (`outcome.stop`: why it ended early, if it did). */
  readonly outcome: RunnerOutcome;
  readonly slices: readonly SliceMove[];
  readonly installed: GuardSession['installed'];
  readonly judged: GuardSession['judged'];
  readonly gates: RemoteGateOutcome;
  /** False when the passes completed but the run could not be marked finished (the next command finishes it again). */
  readonly markedFinished: boolean;
}

/** What finishing needs of the run's input (run.ts's GuardedRunInput extends it). */
export interface FinishInput {
  /** The command, exactly as the child got it. */
  readonly command: readonly string[];
  readonly policy: Policy;
  /** The run's exit code from its verdict (the caller's rule; it is recorded in the run's exit event and report). */
  readonly exitCode: (verdict: RunVerdict) => number;
}

export interface Finishing {
  readonly context: GuardContext;
  readonly input: FinishInput;
  readonly session: GuardSession;
  readonly end: ChildEnd;
  readonly prepared: RunnerPrepared;
  readonly guard: GuardPlan;
  readonly runStartedAt: number;
  readonly interrupts: Interrupts;
  readonly fallbacks: readonly RemoteFallback[];
  readonly gateOutcome: RemoteGateOutcome;
  /** What the slice-file step before the command said (slice-step.ts), for the report. */
  readonly beforeNotes: readonly string[];
}

/** Best effort for what only records (events, the report): a ledger that cannot be written is an event, never a hidden verdict. */
export function recordOrSay(context: GuardContext, part: RecordPart, write: () => void): void {
  try {
    write();
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    context.emit({ type: 'record-failed', part, error });
  }
}

/** Which saves after the move to withhold: per project where the slices are exact, else all (and why). */
async function scopeOf(
  session: GuardSession,
  move: MoveRecord | undefined,
): Promise<{ scope: WithholdScope | undefined; slices: SliceMove[]; problem: LockguardError | undefined }> {
  if (move === undefined) return { scope: undefined, slices: [], problem: undefined };
  try {
    const slices = await lockfileMovesAmong(
      session.run.record,
      move.files.map((file) => file.path),
    );
    return {
      scope: withholdScope({ root: session.table.root, manager: session.table.manager, moved: move.files, slices }),
      slices,
      problem: undefined,
    };
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    return {
      scope: { kind: 'all', reason: `the slices cannot be compared (${error.code})` },
      slices: [],
      problem: error,
    };
  }
}

/** After the child: the final check, the withholding pass, the records; the run's outcome as values. */
export async function finishRun(f: Finishing): Promise<RunFinished> {
  const { context, input, session, end, prepared } = f;
  const runId = session.run.record.id;
  const runEndedAt = Date.now();
  if (end.kind === 'failed')
    context.emit({ type: 'child-not-started', command: input.command[0] ?? '', reason: end.reason, nested: false });
  await pauseAfterChild(context, f.interrupts);
  const move = session.finish();
  const { scope, slices, problem } = await scopeOf(session, move);
  const outcome = await afterRunners(
    prepared,
    input.policy,
    move,
    runId,
    { runStartedAt: f.runStartedAt, runEndedAt },
    passControl(context, f.interrupts),
    scope,
  );
  const code = input.exitCode({
    childCode: end.code,
    moved: move !== undefined,
    policy: input.policy,
    stop: outcome.stop,
    signal: f.interrupts.signal,
  });
  recordOrSay(context, 'exit-event', () => appendEvent(session.run, { type: 'exit', code, child: end }));
  const withheld = withheldEntries(outcome);
  recordWithheld(context, session, withheld);
  if (problem !== undefined) throw problem;
  recordOrSay(context, 'report', () =>
    saveReport(session.run, runReport(f, { code, move, scope, slices, outcome, withheld })),
  );
  // Finished only when the passes completed: otherwise the live marker stays, and the next command finishes the run.
  const markedFinished = outcome.stop !== undefined || session.close();
  return {
    runId,
    policy: input.policy,
    end,
    code,
    move,
    caches: prepared.caches,
    outcome,
    slices,
    installed: session.installed,
    judged: session.judged,
    gates: f.gateOutcome,
    markedFinished,
  };
}

/** The report's withheld entries: one per save the pass withheld, from its cache folder to the quarantine. */
function withheldEntries(outcome: RunnerOutcome): WithheldEntry[] {
  return outcome.caches.flatMap((cache) =>
    (cache.withheld?.withheld ?? []).map((entry) => ({
      runner: entry.runner,
      key: entry.key,
      task: entry.task ?? null,
      from: entry.paths.map((path) => `${entry.cacheDir}/${path}`),
      to: cache.withheld?.quarantineDir ?? '',
      reason: entry.reason,
    })),
  );
}

/** The withheld event (how many, into which quarantines), when the pass withheld anything. */
function recordWithheld(context: GuardContext, session: GuardSession, withheld: readonly WithheldEntry[]): void {
  if (withheld.length > 0)
    recordOrSay(context, 'withheld-event', () =>
      appendEvent(session.run, {
        type: 'withheld',
        count: withheld.length,
        quarantine: [...new Set(withheld.map((entry) => entry.to))],
      }),
    );
}

/** What the passes decided, for the report. */
interface Decided {
  readonly code: number;
  readonly move: MoveRecord | undefined;
  readonly scope: WithholdScope | undefined;
  readonly slices: readonly SliceMove[];
  readonly outcome: RunnerOutcome;
  readonly withheld: WithheldEntry[];
}

/** The run's report: the command, the verdict, the caches and what was withheld, the remote gate, the notes. */
function runReport(f: Finishing, d: Decided): RunReport {
  const { input, session, end, prepared, guard } = f;
  const { outcome, scope } = d;
  const cacheNames = prepared.caches.map((guarded) => runnerLabel(guarded.runner));
  return buildReport({
    run: session.run,
    command: input.command,
    policy: input.policy,
    exit: end,
    exitCode: d.code,
    move: d.move,
    runner: guard.started[0] ?? guard.runners[0] ?? 'none',
    caches: prepared.caches.map((guarded) => ({
      runner: guarded.runner,
      cacheDir: guarded.cache.dir,
      source: guarded.cache.source,
      started: guarded.started,
    })),
    withheld: d.withheld,
    keptBeforeMove: outcome.keptBeforeMove,
    ...(scope === undefined ? {} : { withholdScope: scopeReport(scope, outcome) }),
    tasksAfterMove: outcome.tasksAfterMove,
    remote: fallbackLines(prepared.switches, f.fallbacks),
    remoteGate: {
      gates: f.gateOutcome.gates,
      refused: {
        uploads: f.gateOutcome.refusedUploads,
        blobs: f.gateOutcome.refusedParts,
        restores: f.gateOutcome.refusedRestores,
      },
    },
    slices: d.slices.map(sliceMoveJson),
    installed: session.installed,
    judged: judgedText(session.judged, cacheNames),
    notes: [...f.beforeNotes, ...outcome.notes, ...f.gateOutcome.notes],
  });
}
