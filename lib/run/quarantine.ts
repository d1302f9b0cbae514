// Compatibility path for lib/run/quarantine/ (the folder's index.ts), kept while lib/cli/runner-guard.ts,
// lib/cli/pass-control.ts and lib/integrations/runners/withhold.ts (moved on other branches) still import
// this name: re-point them to './quarantine/index.js' and delete this file.
//
// Owns: nothing. Invariants: re-exports only.

export * from './quarantine/index.js';
