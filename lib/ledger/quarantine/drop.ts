// Dropping a run's quarantine: deleting the cache entries it withheld, when the user asks.
//
// Owns: `lockguard quarantine drop`: taking the run's quarantine out of the ledger by one rename
// (`quarantine/<id>` to `quarantine/.dropped-<id>`, a name no command lists), then deleting it; finishing what
// a killed drop set aside.
// Invariants:
// - Only on request, one run at a time, never for a run whose guard is live (it may still withhold) or whose
//   marker is foreign (trust.ts: it may be live on another host), and
//   never while another process holds the run's quarantine lock; a dead holder's half-done pass or restore
//   is repaired first (pass.ts lockQuarantine), so no unit is dropped half in the cache.
// - A kill at any moment leaves the quarantine whole and listed, or out of the ledger: never half of it
//   listed. Links inside are removed, never followed; a link where the folder belongs is refused
//   (ledger-fs.ts).

import { dirname } from 'node:path';
import { isLockguardError, LockguardError } from '../../core/errors.js';
import { ledgerFolder } from '../ledger-fs.js';
import { DROPPED_PREFIX, LEDGER, ledgerPath } from '../ledger-layout.js';
import { listMarkers } from '../live.js';
import { lockQuarantine, quarantineFolder } from './pass.js';
import { readJournal } from './journal.js';
import { finishSetAside, setAsideAndDelete } from '../set-aside.js';
import type { TrustedPlaces } from '../trust.js';

export interface DropResult {
  readonly run: string;
  /** Entries the journal listed as withheld (not restored) when it was dropped; null when it was unreadable. */
  readonly withheld: number | null;
  /** Entries already restored (their record goes with the folder); null when the journal was unreadable. */
  readonly restored: number | null;
  /** Lines of the journal that could not be read (torn or forged): entries they named went uncounted. */
  readonly unreadableLines: number;
  /** Folders a killed drop had set aside, deleted now. */
  readonly finished: number;
}

/** Drop a run's quarantine; a dead holder's half-done work is repaired first, only inside `places` (trust.ts). */
export function dropQuarantine(root: string, runId: string, places: TrustedPlaces): DropResult {
  const folder = quarantineFolder(root, runId, false);
  if (folder === undefined) {
    throw new LockguardError(
      'ERR_LOCKGUARD_BAD_RUN',
      `No quarantine for the run "${runId}" in "${ledgerPath(root, LEDGER.quarantine)}".`,
      {
        hint: 'lockguard quarantine list shows the runs that withheld entries.',
      },
    );
  }
  const marker = listMarkers(root).find((candidate) => candidate.name === runId);
  if (marker?.foreign === true) {
    throw new LockguardError(
      'ERR_LOCKGUARD_FOREIGN',
      `The run "${runId}" has a live marker not made on this machine since it last booted: lockguard cannot tell whether it still withholds (on another host) or died.`,
      {
        path: folder,
        hint: 'If no other machine uses this workspace, remove .lockguard/ (it was not made here), or that marker, then drop again.',
      },
    );
  }
  const live = marker?.alive === true ? marker : undefined;
  if (live !== undefined) {
    throw new LockguardError(
      'ERR_LOCKGUARD_BUSY',
      `The run "${runId}" is still live (guard pid ${live.pid ?? '?'}): it may withhold more entries.`,
      {
        path: folder,
        hint: 'Wait for it to finish, then drop its quarantine.',
      },
    );
  }
  const lock = lockQuarantine(root, runId, places);
  try {
    const finished = finishSetAside(ledgerFolder(root, [LEDGER.quarantine], false), DROPPED_PREFIX);
    const counts = countUnits(folder);
    setAsideAndDelete(dirname(folder), runId, DROPPED_PREFIX);
    return { run: runId, ...counts, finished };
  } finally {
    lock.release();
  }
}

/** What this run's journal says was withheld and restored; a journal that cannot be read is no reason to keep it. */
function countUnits(folder: string): { withheld: number | null; restored: number | null; unreadableLines: number } {
  try {
    const { units, skipped } = readJournal(folder);
    return {
      withheld: units.filter((unit) => unit.state === 'withheld').length,
      restored: units.filter((unit) => unit.state === 'restored').length,
      unreadableLines: skipped,
    };
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    return { withheld: null, restored: null, unreadableLines: 0 };
  }
}
