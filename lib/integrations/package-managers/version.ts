// Which version of a package manager actually runs here, not only what `packageManager` pins.
//
// Owns: finding the executable the way a shell or a root script would (`<root>/node_modules/.bin` first,
// then PATH), following its links to the package it belongs to, and reading that package's version; corepack's
// shims run what `packageManager` pins, so there the pin is the answer; and whether that pnpm switches to the
// pin (`effectivePnpm`: pnpm 9.7+ does unless told not to, in settings that differ by major).
// Invariants: a few stats and small reads (the settings files only when a switch is in question), no process started; an executable it cannot place (a native
// binary outside any package) is `undefined` version with its path, never a guess.

import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Env } from '../../core/env.js';
import { isExecutable, pathDirs } from './on-path.js';
import { envSetting, npmrcSetting, workspaceYamlSetting } from './pnpm-config.js';
import { integrationOf } from './registry.js';
import type { Manager } from './tables.js';
import { readConfigText } from '../../core/bounded-read.js';

export interface RunningVersion {
  readonly manager: Manager;
  /** The version that runs, when it could be read. */
  readonly version: string | undefined;
  /** The executable found, when one was. */
  readonly path: string | undefined;
  /** Where the version came from: the executable's package, or the `packageManager` pin behind corepack. */
  readonly source: 'package' | 'packageManager' | 'unknown';
}

/** How many folders above the executable its package.json may be (`bin/pnpm.cjs`, `dist/bin/...`). */
const PACKAGE_DEPTH = 4;

function pinned(root: string, manager: Manager): string | undefined {
  try {
    const declared = (JSON.parse(readConfigText(join(root, 'package.json')) ?? '') as { packageManager?: unknown })
      .packageManager;
    if (typeof declared !== 'string' || !declared.startsWith(`${manager}@`)) return undefined;
    return declared.slice(manager.length + 1).split('+')[0];
  } catch {
    return undefined;
  }
}

function packageOf(file: string): { name: string; version: string } | undefined {
  for (let dir = dirname(file), up = 0; up < PACKAGE_DEPTH; dir = dirname(dir), up++) {
    try {
      const manifest = JSON.parse(readConfigText(join(dir, 'package.json')) ?? '') as {
        name?: unknown;
        version?: unknown;
      };
      if (typeof manifest.name === 'string' && typeof manifest.version === 'string')
        return { name: manifest.name, version: manifest.version };
    } catch {
      // No manifest at this level: look one up.
    }
  }
  return undefined;
}

/** The version of `manager` a command started in `root` would run. */
export function runningVersion(manager: Manager, root: string, env: Env): RunningVersion {
  const dirs = [join(root, 'node_modules', '.bin'), ...pathDirs(env)];
  const found = dirs.map((dir) => join(dir, manager)).find(isExecutable);
  if (found === undefined)
    return {
      manager,
      version: pinned(root, manager),
      path: undefined,
      source: pinned(root, manager) === undefined ? 'unknown' : 'packageManager',
    };
  let real = found;
  try {
    real = realpathSync(found);
  } catch {
    // A link that moved under us: judge the path as found.
  }
  const owner = packageOf(real);
  if (owner !== undefined && owner.name === 'corepack') {
    const pin = pinned(root, manager);
    return { manager, version: pin, path: found, source: pin === undefined ? 'unknown' : 'packageManager' };
  }
  if (
    owner !== undefined &&
    integrationOf(manager).packages.some((name) => owner.name === name || owner.name.startsWith(`${name}.`))
  )
    return { manager, version: owner.version, path: found, source: 'package' };
  return { manager, version: undefined, path: found, source: 'unknown' };
}

/** The major version of a semver string, or undefined. */
export function majorOf(version: string | undefined): number | undefined {
  const major = Number(version?.split('.')[0]);
  return Number.isInteger(major) && major > 0 ? major : undefined;
}

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
