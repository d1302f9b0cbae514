// The ledger's retention after a guarded run or a snapshot: the setting decided (settings.ts), the prune
// done where it is due (ledger/retention.ts), and a warning when it could not be.
//
// Owns: which runs the environment names (kept by every prune: $LOCKGUARD_RUN, $LOCKGUARD_RUN_<NAME>), and
// what an automatic prune prints: nothing when it works (a run that moved nothing stays silent), one
// warning line when the ledger could not be pruned.
// Invariants: never changes the command's exit code; a bad $LOCKGUARD_KEEP_RUNS is said once as a warning
// here (the command already ran), and is exit 2 for the commands that only read it (doctor, status).

import type { Env } from '../core/env.js';
import { isLockguardError } from '../core/errors.js';
import { namedRunsIn } from '../integrations/ci/named-runs.js';
import { pruneIfOver } from '../ledger/retention.js';
import { type Io, warn } from './io.js';
import { readSettings, retentionOf, type SettingsFile } from './settings.js';

/** The runs the environment names: `LOCKGUARD_RUN` and every named gate's `LOCKGUARD_RUN_<NAME>`. */
export function runsNamedIn(env: Env): string[] {
  const plain = env['LOCKGUARD_RUN'];
  return [...(plain === undefined || plain === '' ? [] : [plain]), ...namedRunsIn(env).map(([, run]) => run)];
}

/** Prune the ledger past the workspace's retention, when due; a fault is one warning line, never an exit. */
export function keepLedgerBounded(root: string, io: Io, settings?: SettingsFile): void {
  try {
    const keep = retentionOf(settings ?? readSettings(root), io.env).value;
    if (keep === 'all') return;
    pruneIfOver(root, keep, runsNamedIn(io.env));
  } catch (error) {
    const why = isLockguardError(error) ? error.message : String(error);
    warn(io, `the ledger was not pruned: ${why} (lockguard prune says more)`);
  }
}
