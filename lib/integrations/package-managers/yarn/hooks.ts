// doctor's checks of yarn's install hooks: berry or v1 (what each can refuse), and whether yarn's installs
// rewrite the slice files (berry: lockguard's committed plugin; v1: the root prepare hook).
//
// Owns: `YARN_HOOKS` (yarn's adapter lists it). Invariants: read-only; a missing or unreadable file is a
// finding, never a throw.

import { join } from 'node:path';
import { readBounded } from '../../../core/bounded-read.js';
import { yarnFlavor } from '../../../core/package-managers/yarn/flavor.js';
import { yarnPluginImportLine } from '../../yarn-plugin/import-path.js';
import type { PackageManagerHooks } from '../adapter.js';
import { type HookCheck, scriptHook, prepareHookVerdict, rootText, type SliceHooks } from '../hook-checks.js';

type CheckResult = HookCheck;

/** yarn.lock's bytes, undefined when absent or unreadable (doctor's checks never throw). */
function yarnLock(root: string): Buffer | undefined {
  try {
    return readBounded(join(root, 'yarn.lock'), { kind: 'lockfile', root });
  } catch {
    return undefined;
  }
}

export function yarnClassic(root: string): boolean {
  const lock = yarnLock(root);
  return lock !== undefined && yarnFlavor(lock) === 'classic';
}

/** yarn berry or classic, from the lockfile's first lines (no lockfile yet: nothing to say). */
function yarnChecks(root: string): CheckResult[] {
  const lock = yarnLock(root);
  if (lock === undefined) return [];
  if (yarnFlavor(lock) === 'berry') {
    return [
      {
        check: 'yarn',
        level: 'ok',
        detail:
          "yarn berry: under --policy refuse, YARN_ENABLE_IMMUTABLE_INSTALLS and lockguard's yarn plugin (loaded through YARN_PLUGINS, nothing to commit) refuse installs at the source; inside turbo's strict env mode they do not reach the tasks, and a rewrite fails the run after it",
      },
    ];
  }
  return [
    {
      // yarn v1's limit, not this workspace's setup: a note, as bun's (the run still fails and withholds).
      check: 'yarn',
      level: 'ok',
      detail:
        'yarn v1 has no plugins and no setting that freezes the lockfile from the environment (--frozen-lockfile does not stop workspace installs): an install inside a guarded run is caught by the table (file events and the final check), so the run withholds what was saved under the old key, and under --policy refuse fails after it (optional: yarn berry refuses at the source)',
    },
  ];
}

/** v1: the root prepare hook; berry: lockguard's yarn plugin committed in .yarnrc.yml. */
function yarnSliceHooks(root: string): SliceHooks {
  if (yarnClassic(root))
    return prepareHookVerdict(
      'yarn v1',
      scriptHook(root),
      'yarn v1 installs rewrite the slice files (the root prepare hook; yarn workspace <name> add runs none: lockguard run catches it, lockguard key --write-slices after it outside a run)',
    );
  return rootText(root, '.yarnrc.yml').includes('lockguard.cjs')
    ? { ok: "yarn installs rewrite the slice files (lockguard's committed yarn plugin)" }
    : {
        gap: "yarn installs do not rewrite the slice files (lockguard's yarn plugin is not committed)",
        fix: `${yarnPluginImportLine(root)}, then commit .yarnrc.yml and .yarn/plugins/lockguard.cjs.`,
      };
}

export const YARN_HOOKS: PackageManagerHooks = {
  checks: (root) => yarnChecks(root),
  sliceHooks: yarnSliceHooks,
};
