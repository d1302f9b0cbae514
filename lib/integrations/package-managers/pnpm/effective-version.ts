// Which pnpm a command here ends up running: the one found, or the version `packageManager` pins when that
// pnpm switches to its pin (pnpm 9.7+ does unless told not to, in settings that differ by major).
//
// Owns: `effectivePnpm` (for doctor, init and plan). Invariants: a few stats and small reads (the settings
// files only when a switch is in question), no process started.

import type { Env } from '../../../core/env.js';
import { envSetting, npmrcSetting, workspaceYamlSetting } from '../pnpm-config.js';
import { pinned, type RunningVersion, runningVersion } from '../version.js';

/** The pnpm version a command here ends up running, and why (for doctor, init and plan). */
export interface EffectivePnpm {
  readonly version: string | undefined;
  readonly found: RunningVersion;
  readonly pinned: string | undefined;
  /** One phrase: "pnpm 12.4.2 (pinned in packageManager; pnpm 10.34.8 on PATH switches to it)". */
  readonly why: string;
}

/** pnpm 9.7+ switches to the version `packageManager` pins (managePackageManagerVersions, on by default). */
const SWITCHES_FROM = [9, 7] as const;

/**
 * Where the pnpm that was found is told not to switch to the pin, or undefined when it switches. Measured
 * (pnpm 10.34.8, 12.4.2): pnpm 10 reads `managePackageManagerVersions` in pnpm-workspace.yaml first (it wins
 * over the others), then `npm_config_manage_package_manager_versions`, then .npmrc's
 * `manage-package-manager-versions` (not `pnpm_config_*`); only the word `false` turns it off. pnpm 12
 * ignores both files' `managePackageManagerVersions` and reads the env variable under either prefix, or
 * `pmOnFail` `ignore`/`warn` (env `pnpm_config_pm_on_fail`, pnpm-workspace.yaml).
 */
function switchOff(root: string, env: Env, major: number): string | undefined {
  const off = (value: string | undefined): boolean => value?.toLowerCase() === 'false';
  if (major <= 10) {
    const inYaml = workspaceYamlSetting(root, 'managePackageManagerVersions');
    if (inYaml !== undefined)
      return off(inYaml) ? 'managePackageManagerVersions: false in pnpm-workspace.yaml' : undefined;
    const inEnv = envSetting(env, ['npm_config_manage_package_manager_versions']);
    if (inEnv !== undefined) return off(inEnv.value) ? `${inEnv.name}=false` : undefined;
    return off(npmrcSetting(root, 'manage-package-manager-versions'))
      ? 'manage-package-manager-versions=false in .npmrc'
      : undefined;
  }
  const inEnv = envSetting(env, [
    'pnpm_config_manage_package_manager_versions',
    'npm_config_manage_package_manager_versions',
  ]);
  if (inEnv !== undefined && off(inEnv.value)) return `${inEnv.name}=false`;
  const onFail = envSetting(env, ['pnpm_config_pm_on_fail']);
  if (onFail !== undefined) return /^(ignore|warn)$/.test(onFail.value) ? `${onFail.name}=${onFail.value}` : undefined;
  const inYaml = workspaceYamlSetting(root, 'pmOnFail');
  return inYaml !== undefined && /^(ignore|warn)$/.test(inYaml)
    ? `pmOnFail: ${inYaml} in pnpm-workspace.yaml`
    : undefined;
}

export function effectivePnpm(root: string, env: Env): EffectivePnpm {
  const found = runningVersion('pnpm', root, env);
  const pinnedVersion = pinned(root, 'pnpm');
  const [major = 0, minor = 0] = (found.version ?? '').split('.').map(Number);
  const switches =
    found.version !== undefined &&
    (major > SWITCHES_FROM[0] || (major === SWITCHES_FROM[0] && minor >= SWITCHES_FROM[1]));
  // Read the settings only when they decide something: a pnpm that would switch to a pin other than itself.
  const off =
    pinnedVersion !== undefined && switches && found.version !== pinnedVersion
      ? switchOff(root, env, major)
      : undefined;
  if (
    pinnedVersion !== undefined &&
    (found.version === undefined || (switches && off === undefined) || found.version === pinnedVersion)
  ) {
    const onPath =
      found.version === undefined || found.version === pinnedVersion
        ? ''
        : `; pnpm ${found.version} on PATH switches to it`;
    return {
      version: pinnedVersion,
      found,
      pinned: pinnedVersion,
      why: `pnpm ${pinnedVersion} (pinned in packageManager${onPath})`,
    };
  }
  const where = found.path ?? 'on PATH';
  if (found.version !== undefined && off !== undefined)
    return {
      version: found.version,
      found,
      pinned: pinnedVersion,
      why: `pnpm ${found.version} (${where}; ${off}: it does not switch to pnpm ${pinnedVersion}, the packageManager pin)`,
    };
  if (found.version !== undefined)
    return { version: found.version, found, pinned: pinnedVersion, why: `pnpm ${found.version} (${where})` };
  return { version: undefined, found, pinned: pinnedVersion, why: 'no pnpm found or pinned' };
}
