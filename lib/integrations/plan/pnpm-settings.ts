// The pnpm settings a plan needs: which pnpm major the workspace runs, and the effective
// `verifyDepsBeforeRun` (whether `pnpm run` / `pnpm exec` install first).
//
// Owns: reading them the way pnpm resolves them, cheaply (package-managers/pnpm-config.ts): env (`pnpm_config_*`, `npm_config_*`), then
// pnpm-workspace.yaml, then .npmrc, then the default of the pnpm major (`install` since pnpm 11, false
// before). The major is the pnpm that runs here (package-managers/version.ts), else the root package.json
// `packageManager` pin (`pnpm@12.4.2`).
// Invariants: line scans only (no YAML parse); a missing file is a value; never spawns pnpm.

import { join } from 'node:path';
import type { Env } from '../../core/env.js';
import { envSetting, npmrcSetting, workspaceYamlSetting } from '../package-managers/pnpm-config.js';
import { effectivePnpm } from '../package-managers/pnpm/effective-version.js';
import { majorOf } from '../package-managers/version.js';
import { readConfigText } from '../../core/bounded-read.js';
import { isLockguardError } from '../../core/errors.js';

type VerifyDeps = 'install' | 'warn' | 'error' | 'prompt' | 'false';

export interface PnpmSettings {
  /** The major of the pnpm that runs here (else the one `packageManager` pins), or undefined. */
  readonly major: number | undefined;
  /** The pnpm version that runs here, and where that was read ("node_modules/.bin/pnpm"), when known. */
  readonly running: { readonly version: string; readonly path: string | undefined } | undefined;
  readonly verifyDepsBeforeRun: VerifyDeps;
  /** Where the value came from, for reasons: "pnpm 12 default", "pnpm-workspace.yaml". */
  readonly source: string;
}

function read(path: string): string | undefined {
  try {
    return readConfigText(path);
  } catch (error) {
    if (isLockguardError(error)) throw error;
    return undefined;
  }
}

function normalize(value: string): VerifyDeps | undefined {
  const text = value
    .trim()
    .replace(/^['"]|['"]$/g, '')
    .toLowerCase();
  if (text === 'install' || text === 'warn' || text === 'error' || text === 'prompt') return text;
  if (text === 'false') return 'false';
  return undefined;
}

/** The pnpm major the workspace pins in package.json `packageManager`, if any. */
function pnpmMajor(root: string): number | undefined {
  const text = read(join(root, 'package.json'));
  if (text === undefined) return undefined;
  try {
    const manager = (JSON.parse(text) as { packageManager?: unknown }).packageManager;
    const match = typeof manager === 'string' ? /^pnpm@(\d+)/.exec(manager) : null;
    return match?.[1] === undefined ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

export function pnpmSettings(root: string, env: Env): PnpmSettings {
  const effective = effectivePnpm(root, env);
  const running =
    effective.version === undefined ? undefined : { version: effective.version, path: effective.found.path };
  const major = majorOf(effective.version) ?? pnpmMajor(root);
  const settings = (verifyDepsBeforeRun: VerifyDeps, source: string): PnpmSettings => ({
    major,
    running,
    verifyDepsBeforeRun,
    source,
  });
  const fromEnv = envSetting(env, ['pnpm_config_verify_deps_before_run', 'npm_config_verify_deps_before_run']);
  if (fromEnv !== undefined && normalize(fromEnv.value) !== undefined)
    return settings(normalize(fromEnv.value) as VerifyDeps, fromEnv.name);
  const inYaml = workspaceYamlSetting(root, 'verifyDepsBeforeRun');
  if (inYaml !== undefined && normalize(inYaml) !== undefined)
    return settings(normalize(inYaml) as VerifyDeps, 'pnpm-workspace.yaml');
  const inRc = npmrcSetting(root, 'verify-deps-before-run');
  if (inRc !== undefined && normalize(inRc) !== undefined) return settings(normalize(inRc) as VerifyDeps, '.npmrc');
  const which = running === undefined ? `pnpm ${major}` : `pnpm ${running.version}`;
  if (major !== undefined && major < 11) return settings('false', `${which} default`);
  return settings(
    'install',
    major === undefined ? 'default since pnpm 11 (no pnpm found or pinned)' : `${which} default`,
  );
}
