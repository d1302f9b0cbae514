// Keeping the ledger bounded by itself: after a guarded run or a snapshot, the runs past the workspace's
// retention are pruned (ledger/prune.ts removes them, with every rule of `lockguard prune`).
//
// Owns: the retention's default, when an automatic prune happens, and counting the runs kept.
// Invariants:
// - A warm run pays one `readdir` of `.lockguard/runs` and nothing else: the prune starts only when more
//   than `keep + slack` runs are listed, so it runs once every `slack` runs and removes that many.
// - Never takes a lock another process holds (a busy ledger is skipped: the next command prunes);
//   never removes what `lockguard prune` keeps whatever its `--keep` says (live, quarantined, named runs).

import { isLockguardError } from '../core/errors.js';
import { listLedgerFolder } from './ledger-fs.js';
import { LEDGER } from './ledger-layout.js';
import { pruneLedger, type PruneResult } from './prune.js';
import { RUN_ID } from './run-record.js';

/** How many of the newest runs a workspace keeps unless its settings say otherwise. */
export const DEFAULT_RETENTION = 100;

/** How many runs past the retention may pile up before a prune: a tenth of it, at least 10. */
export function retentionSlack(keep: number): number {
  return Math.max(10, Math.ceil(keep / 10));
}

/** The runs the ledger holds now (folders named as runs; a prune's leftovers are not counted). */
export function countRuns(root: string): number {
  return listLedgerFolder(root, LEDGER.runs).filter((name) => RUN_ID.test(name)).length;
}

export type Retained =
  | { readonly pruned: false; readonly runs: number }
  | { readonly pruned: true; readonly result: PruneResult }
  | { readonly pruned: false; readonly busy: true };

/**
 * Prune down to the newest `keep` runs when more than `keep + slack` are listed. `named` are the runs the
 * environment names (kept, as `lockguard prune` keeps them). Faults other than a busy ledger are thrown.
 */
export function pruneIfOver(root: string, keep: number, named: readonly string[]): Retained {
  const runs = countRuns(root);
  if (runs <= keep + retentionSlack(keep)) return { pruned: false, runs };
  try {
    return { pruned: true, result: pruneLedger(root, { keep, named }) };
  } catch (error) {
    if (isLockguardError(error) && error.code === 'ERR_LOCKGUARD_BUSY') return { pruned: false, busy: true };
    throw error;
  }
}
