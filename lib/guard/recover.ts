// Finishing what dead guards left, before a workspace command does its own work.
//
// Owns: the composition of ledger/recovery.ts (which runs are dead, their evidence, the record) with the
// withholding pass (withhold-pass.ts over each dead run's guarded caches), and what a command does when
// finishing fails (`strict`: thrown, so `run` refuses to start its child; `lenient`: one event, and it goes
// on). Every workspace command calls it first (cli/recover.ts recoverFirst).
// Invariants:
// - Cheap when there is nothing to do: one failed readdir (ledger/recovery.ts pendingWork) and no import of the
//   runner adapters (recover-load.ts: in the CLI, recover-runs.ts is a chunk of its own, compiled only then).
// - A dead run's saves since the move it recorded, else since it started, are withheld, restorably (a
//   journaled quarantine under the dead run's id), and the reason is recorded and said (a `run-recovered`
//   event). Under `flag` nothing is withheld (the run only ever reported).
// - A marker or lock in `live/` not made on this machine (ledger/trust.ts) is left as it is and said (a
//   `foreign-claims` event), every time.
// - Signals are held while it works (a second one stops at the next safe point; the signal is returned and
//   the command then exits 128+n without doing its own work).

import { isLockguardError } from '../core/errors.js';
import { pendingWork } from '../ledger/recovery.js';
import { foreignClaims } from '../ledger/trust.js';
import type { GuardContext } from './events.js';
import { holdForQuarantine } from './pass-control.js';
import { recoverRunsModule } from './recover-load.js';

export type RecoveryMode = 'strict' | 'lenient';

/**
 * Finish the workspace's dead runs. Returns the signal that arrived while it worked (the command must stop
 * there), else undefined. `strict` (run, snapshot): a failure to finish is thrown (the next runner must not
 * start over unwithheld saves); `lenient` (verify, status, quarantine): a `recovery-deferred` event.
 * `finishedBy`: the command finishing them (`run`, `status`, ...), recorded as `lockguard <command>`.
 */
export async function recoverDeadRuns(
  root: string,
  context: GuardContext,
  mode: RecoveryMode,
  finishedBy: string,
): Promise<NodeJS.Signals | undefined> {
  if (!pendingWork(root)) return undefined;
  const interrupts = holdForQuarantine(context, true);
  try {
    const { finishDeadRuns } = await recoverRunsModule();
    await finishDeadRuns(root, context, interrupts, finishedBy);
  } catch (error) {
    if (mode === 'strict' || !isLockguardError(error)) throw error;
    context.emit({ type: 'recovery-deferred', error });
  } finally {
    interrupts.release();
  }
  const claims = foreignClaims(root);
  if (claims.length > 0) context.emit({ type: 'foreign-claims', claims });
  return interrupts.signal;
}
