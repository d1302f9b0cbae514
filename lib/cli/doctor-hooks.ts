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

export { pnpmHere } from '../integrations/package-managers/pnpm/hooks.js';

/** The install hooks of the workspace's package manager, and the slice files' hooks where they are used. */
export function hookChecks(workspace: Workspace, env: Io['env']): DoctorCheck[] {
  const { hooks } = integrationOf(workspace.manager);
  const checks = hooks.checks(workspace.root, env);
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
