// Under `--policy refuse`: what the child's environment gets, and what cannot be refused at the source.
//
// Owns: composing package-managers/refuse-env.ts with what the workspace has set up (the pnpmfile plugin,
// the npm hook), and the typed gap (events.ts RefuseGap) the CLI tells the user about before the command
// starts (cli/guard-words.ts).
// Invariants: reads only what the table already read (the pnpmfile entries) and the root package.json;
// warns, never fails: the run's table is the net either way.

import { join } from 'node:path';
import type { Env } from '../core/env.js';
import type { WorkspaceFingerprints } from '../core/fingerprints.js';
import { yarnFlavor } from '../core/package-managers/yarn/flavor.js';
import { refuseEnv } from '../integrations/package-managers/refuse-env.js';
import type { RefuseGap } from './events.js';
import { readConfigText } from '../core/bounded-read.js';

export interface RefuseSetup {
  readonly env: Readonly<Record<string, string>>;
  /** What will not be refused at the source here, or undefined when everything is. */
  readonly gap: RefuseGap | undefined;
}

/** yarn 1's lockfile starts with its comment header; berry's has `__metadata:`. */
function isYarnClassic(table: WorkspaceFingerprints): boolean {
  const bytes = table.files.get('yarn.lock');
  return bytes !== undefined && yarnFlavor(bytes) === 'classic';
}

function npmHookInstalled(root: string): boolean {
  try {
    const manifest = JSON.parse(readConfigText(join(root, 'package.json')) ?? '') as {
      scripts?: Record<string, unknown>;
    } | null;
    const scripts = manifest?.scripts ?? {};
    return ['prepare', 'preinstall', 'postinstall'].some(
      (name) => typeof scripts[name] === 'string' && /lockguard/.test(scripts[name] as string),
    );
  } catch {
    return false;
  }
}

export function refuseSetup(table: WorkspaceFingerprints, callerEnv: Env): RefuseSetup {
  const env = refuseEnv(table.manager, callerEnv);
  switch (table.manager) {
    case 'pnpm':
      return {
        env,
        gap: table.entries.some((entry) => entry.kind === 'pnpmfile' && entry.digest !== null)
          ? undefined
          : 'pnpm-no-pnpmfile',
      };
    case 'npm':
      return { env, gap: npmHookInstalled(table.root) ? undefined : 'npm-no-hook' };
    case 'yarn':
      return {
        env,
        gap: env['YARN_PLUGINS'] === undefined || isYarnClassic(table) ? 'yarn-classic' : 'yarn-strict-env',
      };
    case 'bun':
      return { env, gap: 'bun' };
  }
}
