// Dropping a run's quarantine: deleting the cache entries it withheld, when the user asks.
//
// Owns: `lockguard quarantine drop`: taking the run's quarantine out of the ledger by one rename
// (`quarantine/<id>` to `quarantine/.dropped-<id>`, a name no command lists), then deleting it; finishing what
// a killed drop set aside.
// Invariants:
// - Only on request, one run at a time, never for a run whose guard is live (it may still withhold) and
//   never while another process holds the run's quarantine lock; a dead holder's half-done pass or restore
//   is repaired first (quarantine.ts lockQuarantine), so no unit is dropped half in the cache.
// - A kill at any moment leaves the quarantine whole and listed, or out of the ledger: never half of it
//   listed. Links inside are removed, never followed; a link where the folder belongs is refused
//   (ledger-fs.ts).

import { dirname } from 'node:path';
import { LockguardError } from '../core/errors.js';
import { ledgerFolder } from './ledger-fs.js';
import { DROPPED_PREFIX, LEDGER, ledgerPath } from './ledger-layout.js';
import { listMarkers } from './live.js';
import { listQuarantine, lockQuarantine, quarantineFolder } from './quarantine.js';
import { finishSetAside, setAsideAndDelete } from './set-aside.js';

export interface DropResult {
  readonly run: string;
  /** Entries the journal listed as withheld (not restored) when it was dropped. */
  readonly withheld: number;
  /** Entries already restored (their record goes with the folder). */
  readonly restored: number;
  /** Folders a killed drop had set aside, deleted now. */
  readonly finished: number;
}

export function dropQuarantine(root: string, runId: string): DropResult {
  const folder = quarantineFolder(root, runId, false);
  if (folder === undefined) {
    throw new LockguardError('ERR_LOCKGUARD_BAD_RUN', `No quarantine for the run "${runId}" in "${ledgerPath(root, LEDGER.quarantine)}".`, {
      hint: 'lockguard quarantine list shows the runs that withheld entries.',
    });
  }
  const live = listMarkers(root).find((marker) => marker.name === runId && marker.alive);
  if (live !== undefined) {
    throw new LockguardError('ERR_LOCKGUARD_BUSY', `The run "${runId}" is still live (guard pid ${live.pid ?? '?'}): it may withhold more entries.`, {
      path: folder,
      hint: 'Wait for it to finish, then drop its quarantine.',
    });
  }
  const lock = lockQuarantine(root, runId);
  try {
    const finished = finishSetAside(ledgerFolder(root, [LEDGER.quarantine], false), DROPPED_PREFIX);
    const listing = listQuarantine(root).find((run) => run.run === runId);
    const entries = listing?.manifest?.entries ?? [];
    setAsideAndDelete(dirname(folder), runId, DROPPED_PREFIX);
    return { run: runId, withheld: entries.filter((entry) => entry.restoredAt === undefined).length, restored: entries.filter((entry) => entry.restoredAt !== undefined).length, finished };
  } finally {
    lock.release();
  }
}
