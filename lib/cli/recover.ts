// Every workspace command's first step: finish what dead guards left (guard/recover.ts), said on stderr.
//
// Owns: the CLI's side of recovery: the events rendered (cli/guard-words.ts) and a signal that arrived
// while it worked turned into the command's exit code (128+n).
// Invariants: cheap when there is nothing to do (guard/recover.ts); a command stops here when a signal
// arrived (the caller returns the code without doing its own work).

import { recoverDeadRuns, type RecoveryMode } from '../guard/recover.js';
import { signalCode } from './exit-codes.js';
import { guardContext } from './guard-words.js';
import type { Io } from './io.js';

export type { RecoveryMode };

/**
 * Finish the workspace's dead runs. Returns an exit code when the command must stop here (a signal
 * arrived), else undefined. `strict` (run, snapshot): a failure to finish is thrown (exit 2: the next
 * runner must not start over unwithheld saves); `lenient` (verify, status, quarantine): one warning line.
 */
export async function recoverFirst(
  root: string,
  io: Io,
  mode: RecoveryMode,
  finishedBy: string,
): Promise<number | undefined> {
  const signal = await recoverDeadRuns(root, guardContext(io), mode, finishedBy);
  return signal === undefined ? undefined : signalCode(signal);
}
