// Under `--policy refuse`: what the child's environment gets, and what cannot be refused at the source.
//
// Owns: composing package-managers/refuse-env.ts with what the workspace has set up (the pnpmfile plugin,
// the npm hook), and the typed gap (events.ts RefuseGap) the CLI tells the user about before the command
// starts (cli/guard-words.ts).
// Each package manager's gap is its integration adapter's (integrations/package-managers/<pm>/).
// Invariants: reads only what the table already read (the pnpmfile entries) and the root package.json;
// warns, never fails: the run's table is the net either way.

import type { Env } from '../core/env.js';
import type { WorkspaceFingerprints } from '../core/fingerprints.js';
import { integrationOf } from '../integrations/package-managers/registry.js';
import { refuseEnv } from '../integrations/package-managers/refuse-env.js';
import type { RefuseGap } from './events.js';

export interface RefuseSetup {
  readonly env: Readonly<Record<string, string>>;
  /** What will not be refused at the source here, or undefined when everything is. */
  readonly gap: RefuseGap | undefined;
}

export function refuseSetup(table: WorkspaceFingerprints, callerEnv: Env): RefuseSetup {
  const env = refuseEnv(table.manager, callerEnv);
  return { env, gap: integrationOf(table.manager).refuseGap(table, env) };
}
