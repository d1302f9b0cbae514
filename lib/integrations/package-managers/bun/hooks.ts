// doctor's checks of bun's install hooks: what bun cannot refuse from the environment, a binary bun.lockb
// (no slices), and whether bun's installs rewrite the slice files (the root prepare hook).
//
// Owns: `BUN_HOOKS` (bun's adapter lists it). Invariants: read-only; two lstats and the root manifest.

import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { PackageManagerHooks } from '../adapter.js';
import { type HookCheck, scriptHook, prepareHookVerdict } from '../hook-checks.js';

type CheckResult = HookCheck;

/** bun: nothing freezes its lockfile from the environment, and a binary bun.lockb has no slices. */
function bunChecks(root: string): CheckResult[] {
  const lockb =
    lstatSync(join(root, 'bun.lockb'), { throwIfNoEntry: false }) !== undefined &&
    lstatSync(join(root, 'bun.lock'), { throwIfNoEntry: false }) === undefined;
  return [
    {
      // bun's limit, not this workspace's setup: a note (the run still fails and withholds after such an install).
      check: 'bun',
      level: 'ok',
      detail:
        'bun has no setting that freezes the lockfile from the environment: under --policy refuse an install inside the run is caught after it (the run fails and withholds), not refused at the source (optional: [install] frozenLockfile = true in bunfig.toml for CI)',
    },
    ...(lockb
      ? [
          {
            check: 'slices',
            level: 'warn' as const,
            detail: 'bun.lockb is binary: lockguard key --projects needs the text bun.lock',
            fix: 'bun install --save-text-lockfile (bun 1.2+), then remove bun.lockb.',
          },
        ]
      : []),
  ];
}

export const BUN_HOOKS: PackageManagerHooks = {
  checks: (root) => bunChecks(root),
  sliceHooks: (root) =>
    prepareHookVerdict(
      'bun',
      scriptHook(root),
      'bun install and bun add rewrite the slice files (the root prepare hook)',
    ),
};
