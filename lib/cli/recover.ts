// Finishing what dead guards left, before a workspace command does its own work.
//
// Owns: the composition of run/recovery.ts (which runs are dead, their evidence, the record) with the runner
// adapters (each guarded cache's summary and withholding pass), the one line per finished run, and what a
// command does when finishing fails (`run` refuses to start its child; the others warn and go on).
// Every workspace command calls `recoverFirst` (run, verify, status, snapshot, quarantine).
// Invariants:
// - Cheap when there is nothing to do: one failed readdir (run/recovery.ts pendingWork) and no import of the
//   runner adapters.
// - A dead run's saves since the move it recorded, else since it started, are withheld, restorably (a
//   journaled quarantine under the dead run's id), and the reason is recorded and printed. Under `flag`
//   nothing is withheld (the run only ever reported).
// - A marker or lock in `live/` not made on this machine (run/trust.ts) is left as it is and reported in
//   one warning line, every time, with what to do.
// - Signals are held while it works (a second one stops at the next safe point; the command then exits
//   128+n without doing its own work).

import { constants } from 'node:os';
import { isLockguardError, type LockguardError } from '../core/errors.js';
import { pendingWork } from '../run/recovery.js';
import { foreignClaims, foreignLine } from '../run/trust.js';
import type { Io } from './io.js';
import { holdForQuarantine } from './pass-control.js';

export type RecoveryMode = 'strict' | 'lenient';

/**
 * Finish the workspace's dead runs. Returns an exit code when the command must stop here (a signal
 * arrived), else undefined. `strict` (run, snapshot): a failure to finish is thrown (exit 2: the next
 * runner must not start over unwithheld saves); `lenient` (verify, status, quarantine): one warning line.
 */
export async function recoverFirst(root: string, io: Io, mode: RecoveryMode, by: string): Promise<number | undefined> {
  if (!pendingWork(root)) return undefined;
  const interrupts = holdForQuarantine(io, true);
  try {
    const { finishDeadRuns } = await import('./recover-runs.js');
    await finishDeadRuns(root, io, interrupts, by);
  } catch (error) {
    if (mode === 'strict' || !isLockguardError(error)) throw error;
    warn(io, error);
  } finally {
    interrupts.release();
  }
  const foreign = foreignLine(foreignClaims(root));
  if (foreign !== undefined) io.stderr.write(`lockguard: warning: ${foreign}\n`);
  const signal = interrupts.signal;
  return signal === undefined ? undefined : 128 + (constants.signals[signal] ?? 0);
}

function warn(io: Io, error: LockguardError): void {
  io.stderr.write(`lockguard: warning: a run that died before it finished could not be finished now (${error.message}); the next lockguard command that can write the ledger finishes it.\n`);
}
