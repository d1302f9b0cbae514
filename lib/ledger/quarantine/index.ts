// The journaled quarantine: where a run's withheld cache entries go, and how they come back or go away.
//
// Owns: nothing of its own; the folder's surface. pass.ts withholds a run's units (the pass, the folder and
// its lock; unit.ts checks and moves one unit), journal.ts is the only record of them, move.ts moves and
// records file trees, repair.ts settles a unit a killed pass or restore left in flight, list.ts lists what is held, restore.ts puts entries back,
// drop.ts deletes a run's quarantine.
// Invariants: modules outside this folder import it through this file only; the modules in it import each
// other directly (never this file), so the folder has no cycle.

export { dropQuarantine, type DropResult } from './drop.js';
export { listQuarantine, type QuarantineListing } from './list.js';
export type { RenameFn } from './move.js';
export {
  lockQuarantine,
  type NotMoved,
  type PassControl,
  quarantine,
  type QuarantinedEntry,
  quarantineLockName,
  type QuarantineOptions,
  type QuarantineResult,
  type QuarantineUnit,
} from './pass.js';
export { restore, type RestoreOptions, type RestoreResult, type SkipReason } from './restore.js';
