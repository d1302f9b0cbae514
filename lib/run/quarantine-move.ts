// Compatibility path for lib/run/quarantine/move.ts, kept while lib/integrations/runners/withhold.ts (moved
// on another branch) still imports `RenameFn` from this name: re-point it to './quarantine/index.js' and
// delete this file.
//
// Owns: nothing. Invariants: re-exports only.

export type { RenameFn } from './quarantine/index.js';
