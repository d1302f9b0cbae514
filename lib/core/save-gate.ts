// The in-process save gate for runner authors: may a cache entry keyed on this run's table be saved?
//
// Owns: `createSaveGate`, a thin composition of the table read and FingerprintWatch.
// Invariants: never touches a ledger or a runner; a withheld save is a returned value with a reason.

import type { TableKey } from './digest.js';
import { readWorkspaceFingerprints, type ReadOptions, type WorkspaceFingerprints } from './fingerprints.js';
import { FingerprintWatch } from './watch.js';

export type SaveDecision =
  | { readonly allow: true }
  | {
      readonly allow: false;
      readonly reason: 'fingerprint-moved' | 'key-not-from-this-run';
      readonly moved: readonly string[];
    };

export interface SaveGate {
  /** The table read at the start: fold `table.key` into your cache keys. */
  readonly table: WorkspaceFingerprints;
  readonly watch: FingerprintWatch;
  /** Call after a task that may have written a fingerprinted file ran. */
  wrote(): void;
  /** Before saving an entry keyed on `key` (default: this run's table key). */
  beforeSave(key?: TableKey): SaveDecision;
}

export function createSaveGate(root: string, optionsGiven?: ReadOptions | null): SaveGate {
  const options = optionsGiven ?? {};
  const table = readWorkspaceFingerprints(root, options);
  // The table's root: absolute, checked to be a folder (a relative `root` is not resolved again later).
  const watch = new FingerprintWatch(table.root, table, table.at, options.fs === undefined ? {} : { fs: options.fs });
  return {
    table,
    watch,
    wrote: () => watch.wrote(),
    beforeSave(key = table.key) {
      const moved = watch.moved();
      if (moved !== undefined) return { allow: false, reason: 'fingerprint-moved', moved };
      if (key !== table.key) return { allow: false, reason: 'key-not-from-this-run', moved: [] };
      return { allow: true };
    },
  };
}
