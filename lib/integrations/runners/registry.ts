// The runners lockguard guards: one adapter per runner, in the order detection reports them.
//
// Owns: `RUNNERS` and `adapterFor(name)`. Adding a runner is a folder exporting one RunnerAdapter and one
// line here (README.md says what the adapter must provide; test/integrations/runners/registry.test.ts
// checks every name and protocol has exactly one adapter with every member).
// Invariants: no runner knowledge here; the dispatchers (index.ts, listing.ts, detect.ts, remote*.ts,
// plan/index.ts, remote-gate/protocols.ts, doctor) go through this list, never through a switch on a name.

import type { GuardedRunner, RunnerAdapter } from './adapter.js';
import { moon } from './moon/index.js';
import { lage } from './lage/index.js';
import { nx } from './nx/index.js';
import { pnpmPipeline } from './pnpm-pipeline/index.js';
import { turbo } from './turbo/index.js';
import { wireit } from './wireit/index.js';

export const RUNNERS: readonly RunnerAdapter[] = [turbo, nx, pnpmPipeline, wireit, moon, lage];

const BY_NAME = new Map(RUNNERS.map((adapter) => [adapter.name, adapter]));

/** The adapter of a guarded runner (every RunnerName but 'none' has one). */
export function adapterFor(name: GuardedRunner): RunnerAdapter {
  const adapter = BY_NAME.get(name);
  if (adapter === undefined) throw new Error(`no runner adapter is registered for ${name}`);
  return adapter;
}
