// doctor's checks of npm's install hooks: whether the root scripts report to guarded runs, and whether npm's
// installs rewrite the slice files (the root prepare hook: npm has no plugin hooks).
//
// Owns: `NPM_HOOKS` (npm's adapter lists it). Invariants: read-only; a missing file is a finding, never a throw.

import type { PackageManagerHooks } from '../adapter.js';
import { type HookCheck, prepareHooked, prepareHookVerdict, rootManifest } from '../hook-checks.js';

type CheckResult = HookCheck;

/** npm: whether the root preinstall/postinstall scripts report to guarded runs. */
function npmHookCheck(manifest: Record<string, unknown> | undefined): CheckResult {
  const scripts = (manifest?.['scripts'] ?? {}) as Record<string, unknown>;
  const hooked = ['prepare', 'preinstall', 'postinstall'].some(
    (name) => typeof scripts[name] === 'string' && /lockguard(\/npm-hook| hook)/.test(scripts[name] as string),
  );
  return hooked
    ? { check: 'npm-hook', level: 'ok', detail: 'root install scripts report to guarded runs' }
    : {
        // Optional (lockguard run catches every install without it): a note, not a warning.
        check: 'npm-hook',
        level: 'ok',
        detail:
          'no lockguard hook in the root prepare script (optional: lockguard init --npm-scripts reports npm installs to a guarded run as they happen); npm installs are caught by file events and the final check',
      };
}

export const NPM_HOOKS: PackageManagerHooks = {
  checks: (root) => [npmHookCheck(rootManifest(root))],
  sliceHooks: (root) =>
    prepareHookVerdict(
      'npm',
      prepareHooked(root),
      'npm install and npm ci rewrite the slice files (the root prepare hook)',
      true,
    ),
};
