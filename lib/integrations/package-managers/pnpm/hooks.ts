// doctor's checks of pnpm's install hooks: the pnpm that runs here (its version decides what the pnpmfile
// can do), whether .pnpmfile.cjs loads lockguard's plugin and pnpm-lock.yaml records its checksum, and
// whether pnpm's installs rewrite the slice files.
//
// Owns: `PNPM_HOOKS` (pnpm's adapter lists it) and `pnpmHere` (init asks it too).
// Invariants: read-only, like every doctor check, but for asking a launcher its version (`pnpm --version`)
// where its files do not say; a missing or unreadable file is a finding, never a throw.

import { childProcess } from '../../../core/child-process.js';
import { join } from 'node:path';
import { readBoundedText, readConfigText } from '../../../core/bounded-read.js';
import type { Env } from '../../../core/env.js';
import { lockfileChecksum, pnpmfileChecksumOf } from '../../pnpmfile/checksum.js';
import { PNPMFILE_SHIM } from '../../pnpmfile/shim.js';
import type { PackageManagerHooks } from '../adapter.js';
import { type HookCheck, lockguardLoads, notInstalled, rootText, scriptHook, type SliceHooks } from '../hook-checks.js';
import { majorOf } from '../version.js';
import { type EffectivePnpm, effectivePnpm } from './effective-version.js';

type CheckResult = HookCheck;

/** pnpm runs the pnpmfile's updateConfig hook for every command from 10.8 on. */
const UPDATE_CONFIG_SINCE = { major: 10, minor: 8 } as const;

/**
 * The pnpm that runs here, asking the executable itself (`pnpm --version`, from the workspace root) where its
 * files do not say: a version manager's shim (asdf, mise, volta) is a script whose version is decided when it
 * runs. Undefined version: nothing answered.
 */
export function pnpmHere(root: string, env: Env): EffectivePnpm {
  const pnpm = effectivePnpm(root, env);
  const path = pnpm.found.path;
  if (pnpm.version !== undefined || path === undefined) return pnpm;
  const asked = childProcess().spawnSync(path, ['--version'], {
    cwd: root,
    env: env as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: 15_000,
  });
  const version = asked.status === 0 ? /^(\d+\.\d+\.\d+\S*)\s*$/.exec(asked.stdout ?? '')?.[1] : undefined;
  return version === undefined ? pnpm : { ...pnpm, version, why: `pnpm ${version} (${path}, a launcher that said so)` };
}

/** The pnpm that runs here (what PATH finds, switched to the packageManager pin by pnpm 9.7+ unless its settings say not to), and what it means for the pnpmfile plugin. */
function pnpmVersionCheck(root: string, env: Env): { result: CheckResult; major: number | undefined } {
  const pnpm = pnpmHere(root, env);
  const major = majorOf(pnpm.version);
  // A pnpm on PATH outside any package (an asdf or mise shim, a native build) is found, not missing: its version is unknown.
  if (pnpm.version === undefined && pnpm.found.path !== undefined)
    return {
      result: {
        check: 'pnpm',
        level: 'warn',
        detail: `pnpm on PATH (${pnpm.found.path}) is a shim or a binary outside any package (asdf, mise, a native build), so lockguard cannot tell which pnpm version it runs, and none is pinned in packageManager`,
        fix: 'Pin it in package.json: "packageManager": "pnpm@<the version pnpm --version prints>".',
      },
      major,
    };
  if (pnpm.version === undefined)
    return {
      result: {
        check: 'pnpm',
        level: 'warn',
        detail: 'no pnpm found on PATH, and none pinned in packageManager',
        fix: 'Install pnpm, or pin it in packageManager.',
      },
      major,
    };
  if (pnpm.found.path === undefined)
    return {
      result: {
        check: 'pnpm',
        level: 'warn',
        detail: `${pnpm.why}, but no pnpm executable is on PATH`,
        fix: 'Install pnpm, or enable corepack (corepack enable).',
      },
      major,
    };
  const [, minor = 0] = pnpm.version.split('.').map(Number);
  if (
    (major ?? 0) > UPDATE_CONFIG_SINCE.major ||
    (major === UPDATE_CONFIG_SINCE.major && minor >= UPDATE_CONFIG_SINCE.minor)
  )
    return { result: { check: 'pnpm', level: 'ok', detail: `${pnpm.why} runs here` }, major };
  return {
    result: {
      check: 'pnpm',
      level: 'warn',
      detail: `${pnpm.why} runs here: it has no updateConfig hook for every command, so hook reports and refuse work only for installs`,
      fix: 'Use pnpm 10.8 or newer.',
    },
    major,
  };
}

/** pnpm: the version that runs here, and whether .pnpmfile.cjs loads lockguard's plugin (and what that costs). */
function pnpmChecks(root: string, env: Env): CheckResult[] {
  const { result, major } = pnpmVersionCheck(root, env);
  const results: CheckResult[] = [result];
  let shim = '';
  try {
    shim = readConfigText(join(root, '.pnpmfile.cjs')) ?? '';
  } catch {
    // absent: reported below
  }
  const costly = major !== undefined && major >= 11;
  const checksum = pnpmfileChecksumCheck(root, shim);
  if (checksum !== undefined) results.push(checksum);
  if (shim.includes('lockguard/pnpmfile') && !lockguardLoads(root, 'pnpmfile')) {
    results.push({
      check: 'pnpmfile',
      level: 'warn',
      detail: `.pnpmfile.cjs loads lockguard/pnpmfile, but ${notInstalled('shim').why}: installs are still caught after the fact, but not reported early nor refused at the source`,
      fix: notInstalled('shim').fix,
    });
  } else if (shim.includes('lockguard/pnpmfile')) {
    results.push({
      check: 'pnpmfile',
      level: 'ok',
      detail: `.pnpmfile.cjs loads lockguard/pnpmfile${costly ? ' (on pnpm 11+ any pnpmfile makes every pnpm command start node helpers: a no-op install about 4x slower)' : ''}`,
    });
  } else if (costly) {
    results.push({
      check: 'pnpmfile',
      level: 'ok',
      detail:
        'no lockguard pnpmfile (the pnpm 11+ default: every pnpm command stays fast); lockguard run refuses pnpm install and the install before pnpm run through the environment, and catches pnpm add after the fact',
      fix: 'Optional: lockguard init --pnpmfile to refuse pnpm add/update/remove at the source too.',
    });
  } else {
    results.push({
      check: 'pnpmfile',
      level: 'warn',
      detail:
        '.pnpmfile.cjs does not load lockguard/pnpmfile: installs are still caught after the fact, but not reported early nor refused at the source',
      fix: 'Run lockguard init (commit the shim once: pnpm folds its bytes into the lockfile).',
    });
  }
  return results;
}

/**
 * Whether pnpm-lock.yaml records the pnpmfileChecksum pnpm computes for lockguard's pnpmfile: when it does
 * not, the next frozen install fails (ERR_PNPM_LOCKFILE_CONFIG_MISMATCH) and the next plain install
 * re-resolves every peer (integrations/pnpmfile/checksum.ts). Only where the answer is certain: a pnpmfile
 * that loads lockguard's plugin (it always exports hooks), or none left beside the shim's own checksum.
 */
function pnpmfileChecksumCheck(root: string, shim: string): CheckResult | undefined {
  let lock: string | undefined;
  try {
    lock = readBoundedText(join(root, 'pnpm-lock.yaml'), { kind: 'lockfile', root });
  } catch {
    return undefined;
  }
  if (lock === undefined) return undefined;
  const recorded = lockfileChecksum(lock);
  const shimChecksum = pnpmfileChecksumOf(PNPMFILE_SHIM);
  const failing =
    'the next pnpm install --frozen-lockfile fails with ERR_PNPM_LOCKFILE_CONFIG_MISMATCH, and the next pnpm install re-resolves every peer';
  if (shim === '' && recorded === shimChecksum)
    return {
      check: 'pnpmfile-checksum',
      level: 'fail',
      detail: `pnpm-lock.yaml records the checksum of lockguard's .pnpmfile.cjs, which is gone: ${failing}`,
      fix: 'lockguard uninstall (takes the line out; nothing else changes), then commit pnpm-lock.yaml.',
    };
  if (!shim.includes('lockguard/pnpmfile')) return undefined;
  const expected = pnpmfileChecksumOf(shim);
  if (recorded === expected)
    return { check: 'pnpmfile-checksum', level: 'ok', detail: "pnpm-lock.yaml records .pnpmfile.cjs's checksum" };
  return {
    check: 'pnpmfile-checksum',
    level: 'fail',
    detail: `pnpm-lock.yaml ${recorded === undefined ? 'records no pnpmfileChecksum' : 'records another pnpmfileChecksum'} for .pnpmfile.cjs: ${failing}`,
    fix:
      shim === PNPMFILE_SHIM
        ? 'lockguard init (records the checksum pnpm would, and nothing else), then commit pnpm-lock.yaml.'
        : 'pnpm install (not frozen), then commit pnpm-lock.yaml.',
  };
}

/** Whether pnpm's installs rewrite the slice files: the root prepare hook, or the pnpmfile up to pnpm 10. */
function pnpmSliceHooks(root: string, env: Env): SliceHooks {
  const hook = scriptHook(root);
  if (hook === 'loads') return { ok: 'pnpm installs rewrite the slice files (the root prepare hook)' };
  const missing = (what: 'hook' | 'shim'): SliceHooks => ({
    gap: `pnpm installs do not rewrite the slice files: ${notInstalled(what).why}`,
    fix: notInstalled(what).fix,
  });
  if (hook === 'not-installed') return missing('hook');
  const shim = rootText(root, '.pnpmfile.cjs');
  const major = majorOf(pnpmHere(root, env).version);
  if (shim.includes('lockguard/pnpmfile') && major !== undefined && major <= 10)
    return lockguardLoads(root, 'pnpmfile')
      ? { ok: "pnpm installs rewrite the slice files (the pnpmfile, at pnpm's exit)" }
      : missing('shim');
  return {
    gap:
      major !== undefined && major >= 11
        ? `pnpm ${major} installs do not rewrite the slice files (its pnpmfile hooks cannot see an install end)`
        : 'pnpm installs do not rewrite the slice files (no pnpmfile or root prepare hook)',
    fix: 'lockguard init --npm-scripts (the root prepare script writes them after every install that changed something).',
  };
}

export const PNPM_HOOKS: PackageManagerHooks = {
  checks: (root, env) => pnpmChecks(root, env),
  sliceHooks: pnpmSliceHooks,
};
