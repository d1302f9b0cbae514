// Dead-run recovery (recover-runs.ts, with every runner's adapter), reached only when a run is dead.
//
// Owns: `recoverRunsModule()`. In the ES modules an on-demand import. A CLI bundle carries none of it:
// lib/build/bundle.mjs replaces this module with one that asks the launcher for `dist/cli/recover-runs.cjs`
// (core/chunks.ts), the way core/package-managers/chunk-load.ts reaches a package manager's chunk.
// Invariants: resolves to the same module on every call; the replacement keeps this signature.

export function recoverRunsModule(): Promise<typeof import('./recover-runs.js')> {
  return import('./recover-runs.js');
}
