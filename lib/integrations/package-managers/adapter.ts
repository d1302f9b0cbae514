// The one interface every package manager's integration half implements: what lockguard must know of a
// package manager's command line, its versions and its refusal switches.
//
// Owns: `PackageManagerIntegration` and `RefuseGap` (what a workspace cannot refuse at the source).
// Invariants: types only. An adapter (`<pm>/index.ts`) imports its own folder, tables.ts' types and leaf
// modules of core/, never a dispatcher (registry.ts, argv.ts, refuse-env.ts, version.ts): they reach it
// through registry.ts, so the registry has no cycle. The core half of the same package manager is
// core/package-managers/<pm>/ (README.md: what a new package manager's two folders provide).

import type { Env } from '../../core/env.js';
import type { PackageManager } from '../../core/package-managers/names.js';
import type { WorkspaceFingerprints } from '../../core/table.js';
import type { HookCheck, SliceHooks } from './hook-checks.js';
import type { ManagerTable } from './tables.js';

/** Under `--policy refuse`: what the workspace cannot refuse at the source (guard/refuse-setup.ts). */
export type RefuseGap = 'pnpm-no-pnpmfile' | 'npm-no-hook' | 'yarn-classic' | 'yarn-strict-env' | 'bun';

export interface RefuseEnvOptions {
  /** The yarn plugin's path (default: found next to lockguard's own files). */
  readonly yarnPlugin?: string | undefined;
}

/** What `lockguard doctor` asks of a package manager's install hooks (hook-checks.ts has the shapes). */
export interface PackageManagerHooks {
  /** Whether its installs report to (and can be refused by) a guarded run here: its plugin, scripts, limits. */
  checks(root: string, env: Env): HookCheck[];
  /** Where the workspace uses slice files: whether its installs rewrite them (an install hook), or the fix. */
  sliceHooks(root: string, env: Env): SliceHooks;
}

/** What `lockguard init` does and says for a package manager (cli/init-hooks.ts renders and writes it). */
interface PackageManagerInit {
  /**
   * The install hook of its own init sets up, by kind (cli/init-hooks.ts has one writer per kind): pnpm's
   * pnpmfile, yarn berry's plugin (committed by the user). Undefined: only the root prepare hook.
   */
  readonly hook?: 'pnpmfile' | 'yarn-plugin';
  /** Which of its installs run the root prepare hook (measured: integrations/npm/hook.ts). */
  readonly prepareRuns: string;
  /**
   * What its installs get from lockguard where init wrote no hook file for them (`npmScripts`: init added the
   * root prepare hook), for the workspace at `root`; undefined for nothing to say.
   */
  note(npmScripts: boolean, root: string): string | undefined;
}

/** Everything integrations/ knows of one package manager. */
export interface PackageManagerIntegration {
  readonly name: PackageManager;
  /** What its command line means (argv.ts reads it; data only: the pnpmfile bundle carries it). */
  readonly commandLine: ManagerTable;
  /** The frozen install that makes the tree hold the lockfile again (the pre-run check's fix by default). */
  readonly frozenInstall: string;
  /**
   * What a refusing run adds to its child's env so installs fail at the source (empty where nothing holds).
   * `env` is the caller's (a setting the user made stricter is kept); values are never logged.
   */
  refuseEnv(env: Env, options: RefuseEnvOptions): Record<string, string>;
  /** What will not be refused at the source in this workspace given that env, or undefined when everything is. */
  refuseGap(table: WorkspaceFingerprints, env: Readonly<Record<string, string>>): RefuseGap | undefined;
  /** doctor's checks of its install hooks (`<pm>/hooks.ts`). */
  readonly hooks: PackageManagerHooks;
  /** What init sets up and says for it. */
  readonly init: PackageManagerInit;
}
