// The one warning line `snapshot`, `run` and `doctor` give when git tracks files under `.lockguard/`.
//
// Owns: printing integrations/git.ts's answer (stderr, one line, never failing the command).
// Invariant: cheap while the git index is unchanged (git.ts remembers its answer); a fault asking git is
// silence, never an error.

import { trackedLedgerLine } from '../integrations/git.js';
import { type Io, warn } from './io.js';

export function warnTrackedLedger(root: string, io: Io): void {
  let line: string | undefined;
  try {
    line = trackedLedgerLine(root, io.env);
  } catch {
    line = undefined;
  }
  if (line !== undefined) warn(io, line);
}
