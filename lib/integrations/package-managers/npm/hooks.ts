// doctor's checks of npm's install hooks: whether the root scripts report to guarded runs, and whether npm's
// installs rewrite the slice files (the root prepare hook: npm has no plugin hooks).
//
// Owns: `NPM_HOOKS` (npm's adapter lists it). Invariants: read-only; a missing file is a finding, never a throw.

import type { PackageManagerHooks } from '../adapter.js';
import { type HookCheck, notInstalled, prepareHookVerdict, scriptHook } from '../hook-checks.js';

type CheckResult = HookCheck;

/** npm: whether the root prepare/preinstall/postinstall scripts report to guarded runs (and can load lockguard). */
function npmHookCheck(root: string): CheckResult {
  const hook = scriptHook(root, ['prepare', 'preinstall', 'postinstall']);
  if (hook === 'loads')
    return { check: 'npm-hook', level: 'ok', detail: 'root install scripts report to guarded runs' };
  if (hook === 'not-installed')
    return {
      check: 'npm-hook',
      level: 'warn',
      detail: `the root scripts run lockguard's hook, but ${notInstalled('hook').why}: npm installs are caught by file events and the final check only`,
      fix: notInstalled('hook').fix,
    };
  // Optional (lockguard run catches every install without it): a note, not a warning.
  return {
    check: 'npm-hook',
    level: 'ok',
    detail:
      'no lockguard hook in the root prepare script (optional: lockguard init --npm-scripts reports npm installs to a guarded run as they happen); npm installs are caught by file events and the final check',
  };
}

export const NPM_HOOKS: PackageManagerHooks = {
  checks: (root) => [npmHookCheck(root)],
  sliceHooks: (root) =>
    prepareHookVerdict(
      'npm',
      scriptHook(root),
      'npm install and npm ci rewrite the slice files (the root prepare hook)',
      true,
    ),
};
