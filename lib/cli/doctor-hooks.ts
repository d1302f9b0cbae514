// `lockguard doctor`'s install-hook checks: per package manager, whether its installs report to (and can be
// refused by) a guarded run (pnpm's version and pnpmfile, npm's root scripts, yarn's flavour, bun's limits:
// each its integration adapter's, integrations/package-managers/<pm>/hooks.ts); and, where the workspace uses
// per-project slice files, whether its installs rewrite them (`slice-hooks`).
// Invariants: read-only, like every doctor check; a missing or unreadable file is a finding, never a throw.

import type { Workspace } from '../core/workspace.js';
import { integrationOf } from '../integrations/package-managers/registry.js';
import type { DoctorCheck } from '../integrations/runners/index.js';
import { runnersFoldingSlices } from '../integrations/slice-files/folded-by.js';
import { hasSliceRecord } from '../ledger/slice-files.js';
import type { Io } from './io.js';
import { rushHere } from '../integrations/runners/rush.js';

/** What a Rush repository's installs report to a guarded run (measured with Rush 5.179.0: test/e2e/rush.test.ts). */
const RUSH_HOOKS: DoctorCheck = {
  check: 'hooks',
  level: 'ok',
  detail:
    "Rush installs with its own pnpm (rush.json's pnpmVersion, under ~/.rush) and its own pnpmfile (common/config/rush/.pnpmfile.cjs), so no lockguard hook runs in them; Rush refuses its installs during a build, and an install between runs is a change of common/config/rush/pnpm-lock.yaml that snapshot and verify see",
};

export { pnpmHere } from '../integrations/package-managers/pnpm/hooks.js';

/** The install hooks of the workspace's package manager, and the slice files' hooks where they are used. */
export function hookChecks(workspace: Workspace, env: Io['env']): DoctorCheck[] {
  const { hooks } = integrationOf(workspace.manager);
  // A Rush repository installs with Rush's own pnpm and pnpmfile: pnpm's hook checks would ask for the wrong files.
  const checks = rushHere(workspace.root) === undefined ? hooks.checks(workspace.root, env) : [RUSH_HOOKS];
  const slices = sliceHookCheck(workspace, env);
  return slices === undefined ? checks : [...checks, slices];
}

/**
 * Where the workspace uses per-project slice files: whether its installs rewrite them (an install hook), so a
 * runner started right after one, without lockguard run, hashes what is installed. Nothing where unused.
 */
function sliceHookCheck(workspace: Workspace, env: Io['env']): DoctorCheck | undefined {
  const { root, manager } = workspace;
  if (!hasSliceRecord(root) && runnersFoldingSlices(root).length === 0) return undefined;
  const verdict = integrationOf(manager).hooks.sliceHooks(root, env);
  if ('ok' in verdict) return { check: 'slice-hooks', level: 'ok', detail: verdict.ok };
  return {
    check: 'slice-hooks',
    level: 'warn',
    detail: `${verdict.gap}: a runner started right after one, without lockguard run, hashes stale .lockguard-slice files`,
    fix: verdict.fix,
  };
}
