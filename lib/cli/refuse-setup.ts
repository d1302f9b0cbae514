// Under `--policy refuse`: what the child's environment gets, and the warning when no hook is in place.
//
// Owns: composing package-managers/refuse-env.ts with what the workspace has set up (the pnpmfile plugin,
// the npm hook), and the one line that tells the user, before the command starts, what will not be refused
// at the source.
// Invariants: reads only what the table already read (the pnpmfile entries) and the root package.json;
// warns, never fails: the run's table is the net either way.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkspaceFingerprints } from '../core/fingerprints.js';
import { yarnFlavor } from '../core/yarn-flavor.js';
import { refuseEnv } from '../integrations/package-managers/refuse-env.js';

export interface RefuseSetup {
  readonly env: Readonly<Record<string, string>>;
  readonly warning: string | undefined;
}

/** yarn 1's lockfile starts with its comment header; berry's has `__metadata:`. */
function isYarnClassic(table: WorkspaceFingerprints): boolean {
  const bytes = table.files.get('yarn.lock');
  return bytes !== undefined && yarnFlavor(bytes) === 'classic';
}

function npmHookInstalled(root: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, unknown> } | null;
    const scripts = manifest?.scripts ?? {};
    return ['preinstall', 'postinstall'].some((name) => typeof scripts[name] === 'string' && /lockguard/.test(scripts[name] as string));
  } catch {
    return false;
  }
}

export function refuseSetup(table: WorkspaceFingerprints, callerEnv: Readonly<Record<string, string | undefined>>): RefuseSetup {
  const env = refuseEnv(table.manager, callerEnv);
  switch (table.manager) {
    case 'pnpm': {
      const pnpmfile = table.entries.some((entry) => entry.kind === 'pnpmfile' && entry.digest !== null);
      if (pnpmfile) return { env, warning: undefined };
      return {
        env,
        warning:
          '[lockguard] --policy refuse without a pnpmfile: pnpm install and the install pnpm run/exec would do first are refused through the environment ' +
          "(outside turbo's strict env mode), but pnpm add/update/remove are not: one of those fails the run after the rewrite. " +
          'lockguard init --pnpmfile adds the plugin that refuses them (free on pnpm 10; pnpm 12 pays for any pnpmfile on every command).',
      };
    }
    case 'npm':
      if (npmHookInstalled(table.root)) return { env, warning: undefined };
      return {
        env,
        warning:
          '[lockguard] --policy refuse in an npm workspace: npm cannot be refused at the source (it writes package-lock.json before any script runs); ' +
          'a rewrite fails the run after it. lockguard init --npm-scripts makes npm install fail at once instead of going on.',
      };
    case 'yarn':
      return {
        env,
        warning:
          env['YARN_PLUGINS'] === undefined || isYarnClassic(table)
            ? '[lockguard] --policy refuse with yarn 1: nothing stops yarn add or an install at the source; a rewrite fails the run after it.'
            : "[lockguard] --policy refuse with yarn: installs and yarn add/remove/up are refused at the source through the environment, except inside turbo's strict env mode (turbo strips YARN_*): there a rewrite fails the run after it.",
      };
    case 'bun':
      return { env, warning: '[lockguard] --policy refuse with bun: bun has no setting the environment can freeze; a rewrite fails the run after it (bunfig.toml install.frozenLockfile = true refuses at the source).' };
  }
}
