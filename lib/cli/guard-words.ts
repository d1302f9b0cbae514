// The lines the CLI prints for the events every workspace command may see (guard/events.ts: held signals,
// test seams, recovery of dead runs, a record not written), byte for byte as they always read; the events
// only `lockguard run` sees are rendered by cli/run-words.ts (so no other command's bundle carries them).
//
// Owns: rendering those events into their stderr line(s), and the `Io`-backed GuardContext the CLI hands
// to guard/ (`guardContext(io, render)`).
// Invariants: one event, at most a few lines; no line names a bad byte of the user's files (command names
// are redacted where they came from the user); nothing here decides anything: every branch is on a typed
// field of the event.

import { scopeClause } from '../integrations/runners/scope-words.js';
import { foreignLine } from '../ledger/trust.js';
import type { GuardContext, GuardEvent } from '../guard/events.js';
import { CHILD_SEAM, PAUSE_SEAM } from '../guard/pass-control.js';
import { diedText, evidenceText } from '../guard/record-words.js';
import { type Io, warnLines } from './io.js';
import { plural } from '../core/words.js';

const RECORD_PART: Record<Extract<GuardEvent, { type: 'record-failed' }>['part'], string> = {
  'child-pid': "the child's pid",
  'exit-event': "the run's exit event",
  'withheld-event': 'the withheld event',
  report: "the run's report",
};

/** The events only a guarded run's own steps emit (cli/run-words.ts renders them). */
export type RunEvent = Extract<
  GuardEvent,
  {
    type: 'refuse-gap' | 'remote-plan' | 'slice-files' | 'move-detected' | 'child-not-started' | 'gate-undecided';
  }
>;
/** The events any workspace command may see. */
type CommonEvent = Exclude<GuardEvent, RunEvent>;

/** The line(s) of one event, without their newlines. */
function eventLines(event: CommonEvent): string[] {
  switch (event.type) {
    case 'signal-held':
      return event.count === 1
        ? [
            `lockguard: ${event.signal}: finishing the withholding pass first, so no cache entry is left half moved (send it again to stop after the current entry)`,
          ]
        : [
            `lockguard: ${event.signal} again: stopping after the current entry; the next lockguard command in this workspace finishes the rest`,
          ];
    case 'seam-paused':
      return event.seam === 'after-child'
        ? [`lockguard: test seam: paused after the child exited, before the final check (${CHILD_SEAM})`]
        : [`lockguard: test seam: the withholding pass pauses after ${event.units} units (${PAUSE_SEAM})`];
    case 'marker-removed':
      return [
        `lockguard: removed the live marker "${event.id}", which names no guarded run of this workspace (${event.problem}).`,
      ];
    case 'run-recovered':
      return [recoveredLine(event)];
    case 'recovery-deferred':
      return [
        `lockguard: warning: a run that died before it finished could not be finished now (${event.error.message}); the next lockguard command that can write the ledger finishes it.`,
      ];
    case 'foreign-claims': {
      const line = foreignLine(event.claims);
      return line === undefined ? [] : [`lockguard: warning: ${line}`];
    }
    case 'record-failed':
      return [`lockguard: warning: ${RECORD_PART[event.part]} was not written (${event.error.message})`];
  }
}

function recoveredLine(event: Extract<GuardEvent, { type: 'run-recovered' }>): string {
  const died = diedText(event.pid);
  const moment = event.evidence.kind === 'recorded-move' ? 'the move it recorded' : 'it started';
  const what =
    event.policy === 'flag'
      ? 'its policy was flag, so nothing was withheld'
      : event.unguarded !== undefined
        ? `nothing was withheld (${event.unguarded})`
        : `${plural(event.withheld, 'cache save')} it made since ${moment} ${event.withheld === 1 ? 'was' : 'were'} withheld${scopeClause(event.passes)}, restorably (lockguard quarantine list --run ${event.run})`;
  const tail =
    event.childRunning !== undefined
      ? `; its command (pid ${event.childRunning}) still runs: what it saves from now on is withheld by the next lockguard command`
      : !event.complete
        ? '; not finished yet: the next lockguard command goes on'
        : '';
  return `[lockguard] run ${event.run} did not finish: ${died}, and ${evidenceText(event.evidence)}: ${what}${tail}`;
}

const RUN_EVENTS: ReadonlySet<GuardEvent['type']> = new Set<RunEvent['type']>([
  'refuse-gap',
  'remote-plan',
  'slice-files',
  'move-detected',
  'child-not-started',
  'gate-undecided',
]);

/** The events that are warnings (kept under --quiet): something lockguard could not do, said by kind. */
function isWarning(event: GuardEvent): boolean {
  return (
    event.type === 'recovery-deferred' ||
    event.type === 'foreign-claims' ||
    event.type === 'record-failed' ||
    (event.type === 'slice-files' && event.warning)
  );
}

function isRunEvent(event: GuardEvent): event is RunEvent {
  return RUN_EVENTS.has(event.type);
}

/**
 * The context guard/ runs in, for a command: its cwd and env, and every event printed on stderr. `run`:
 * the renderer of a guarded run's own events (`lockguard run` passes cli/run-words.ts's); another command
 * never gets one (recovery emits none).
 */
export function guardContext(io: Io, run?: (event: RunEvent) => string[]): GuardContext {
  return {
    cwd: io.cwd,
    env: io.env,
    emit(event) {
      const lines = isRunEvent(event) ? (run?.(event) ?? []) : eventLines(event);
      if (isWarning(event)) warnLines(io, lines);
      else for (const line of lines) io.stderr.write(`${line}\n`);
    },
  };
}
