// Where a run's quarantine lives and who may touch it: the folder names, the lock, an entry's home.
//
// Owns: `quarantineRoot` / `quarantineDir` / `quarantineFolder` (`<root>/.lockguard/quarantine/<run id>/`,
// checked: a run id never starts with a dot), `entryHome`, `quarantineLockName` and `lockQuarantine`.
// Invariants: a name that is no run id is ERR_LOCKGUARD_USAGE; taking over a dead holder's lock repairs its
// half-done work first, only inside the places the caller vouches for (trust.ts).

import { join } from 'node:path';
import { LockguardError } from '../../core/errors.js';
import { ensureLedger } from '../ledger.js';
import { ledgerFolder } from '../ledger-fs.js';
import { LEDGER, ledgerPath } from '../ledger-layout.js';
import { acquireLock, type LedgerLock } from '../ledger-lock.js';
import type { TrustedPlaces } from '../trust.js';
import { repairQuarantine } from './repair.js';

/** The shape of a run id as a quarantine folder's name (one starting with a dot is never listed). */
export const RUN_ID = /^[\w.-]+$/;
export function quarantineRoot(root: string): string {
  return ledgerPath(root, LEDGER.quarantine);
}

export function quarantineDir(root: string, runId: string): string {
  // `.`, `..` and the names set aside (`.dropped-…`) are no run: a run id never starts with a dot.
  if (!RUN_ID.test(runId) || runId.startsWith('.')) {
    throw new LockguardError('ERR_LOCKGUARD_USAGE', `"${runId}" is not a lockguard run id.`, {
      hint: 'lockguard quarantine list shows the run ids.',
    });
  }
  return join(quarantineRoot(root), runId);
}

/** The checked quarantine folder of a run: undefined when it does not exist (create false). */
export function quarantineFolder(root: string, runId: string, create: boolean): string | undefined {
  quarantineDir(root, runId);
  if (create) ensureLedger(root);
  return ledgerFolder(root, [LEDGER.quarantine, runId], create);
}

/** An entry's folder inside its run's quarantine folder. */
export function entryHome(runner: string, key: string): string {
  return join('entries', runner, key);
}

/** The lock name that guards a run's quarantine folder. */
export function quarantineLockName(runId: string): string {
  return `quarantine-${runId}`;
}

/**
 * Take a run's quarantine lock; a dead holder's half-done work is repaired first, only inside `places` (the
 * caches the caller vouches for now: trust.ts). A lock not made on this machine is ERR_LOCKGUARD_FOREIGN.
 */
export function lockQuarantine(root: string, runId: string, places: TrustedPlaces): LedgerLock {
  const lock = acquireLock(root, quarantineLockName(runId));
  if (lock.tookOver) {
    const dir = quarantineFolder(root, runId, false);
    if (dir !== undefined) repairQuarantine(dir, places);
  }
  return lock;
}
