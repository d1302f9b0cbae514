// `lockguard doctor`'s install-hook checks: per package manager, whether its installs report to (and can be
// refused by) a guarded run: pnpm's version and pnpmfile, npm's root scripts, yarn's flavour, bun's limits;
// and, where the workspace uses per-project slice files, whether its installs rewrite them (`slice-hooks`:
// pnpm 10's pnpmfile, yarn berry's committed plugin, else the root prepare hook, which npm, pnpm 11+, yarn v1
// and bun run after their installs).
// Invariants: read-only, like every doctor check; a missing or unreadable file is a finding, never a throw.

import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { yarnFlavor } from '../core/package-managers/yarn/flavor.js';
import { lockfileChecksum, pnpmfileChecksumOf } from '../integrations/pnpmfile/checksum.js';
import { PNPMFILE_SHIM } from '../integrations/pnpmfile/shim.js';
import type { Workspace } from '../core/workspace.js';
import { type EffectivePnpm, effectivePnpm } from '../integrations/package-managers/pnpm/effective-version.js';
import { majorOf } from '../integrations/package-managers/version.js';
import { spawnSync } from 'node:child_process';
import type { DoctorCheck } from '../integrations/runners/index.js';
import type { Io } from './io.js';
import { hasSliceRecord } from '../run/slice-files.js';
import { runnersFoldingSlices } from '../integrations/slice-files/folded-by.js';
import { yarnPluginImportLine } from '../integrations/yarn-plugin/import-path.js';
import { readBounded, readBoundedText, readConfigText } from '../core/bounded-read.js';

type CheckResult = DoctorCheck;

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readConfigText(path) ?? '') as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** pnpm runs the pnpmfile's updateConfig hook for every command from 10.8 on. */
const UPDATE_CONFIG_SINCE = { major: 10, minor: 8 } as const;

/**
 * The pnpm that runs here, asking the executable itself (`pnpm --version`, from the workspace root) where its
 * files do not say: a version manager's shim (asdf, mise, volta) is a script whose version is decided when it
 * runs. Undefined version: nothing answered.
 */
export function pnpmHere(root: string, env: Io['env']): EffectivePnpm {
  const pnpm = effectivePnpm(root, env);
  const path = pnpm.found.path;
  if (pnpm.version !== undefined || path === undefined) return pnpm;
  const asked = spawnSync(path, ['--version'], {
    cwd: root,
    env: env as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: 15_000,
  });
  const version = asked.status === 0 ? /^(\d+\.\d+\.\d+\S*)\s*$/.exec(asked.stdout ?? '')?.[1] : undefined;
  return version === undefined ? pnpm : { ...pnpm, version, why: `pnpm ${version} (${path}, a launcher that said so)` };
}

/** The pnpm that runs here (what PATH finds, switched to the packageManager pin by pnpm 9.7+ unless its settings say not to), and what it means for the pnpmfile plugin. */
function pnpmVersionCheck(root: string, env: Io['env']): { result: CheckResult; major: number | undefined } {
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

/** The install hooks of the workspace's package manager: the pnpmfile, npm's root scripts, yarn's, bun's. */
export function hookChecks(workspace: Workspace, env: Io['env']): CheckResult[] {
  const manifest = readJson(join(workspace.root, 'package.json'));
  const checks =
    workspace.manager === 'pnpm'
      ? pnpmChecks(workspace.root, env)
      : workspace.manager === 'npm'
        ? [npmHookCheck(manifest)]
        : workspace.manager === 'yarn'
          ? yarnChecks(workspace)
          : workspace.manager === 'bun'
            ? bunChecks(workspace.root)
            : [];
  const slices = sliceHookCheck(workspace, manifest, env);
  return slices === undefined ? checks : [...checks, slices];
}

/** Whether the root prepare (or an earlier init's postinstall) runs lockguard's hook (`lockguard init --npm-scripts`). */
function hasPostinstallHook(manifest: Record<string, unknown> | undefined): boolean {
  const scripts = (manifest?.['scripts'] ?? {}) as Record<string, unknown>;
  return ['prepare', 'postinstall'].some((name) => {
    const script = scripts[name];
    return typeof script === 'string' && /lockguard(\/npm-hook| hook)/.test(script);
  });
}

/**
 * Where the workspace uses per-project slice files: whether its installs rewrite them (an install hook), so a
 * runner started right after one, without lockguard run, hashes what is installed. Nothing where unused.
 */
function sliceHookCheck(
  workspace: Workspace,
  manifest: Record<string, unknown> | undefined,
  env: Io['env'],
): CheckResult | undefined {
  const { root, manager } = workspace;
  if (!hasSliceRecord(root) && runnersFoldingSlices(root).length === 0) return undefined;
  const ok = (detail: string): CheckResult => ({ check: 'slice-hooks', level: 'ok', detail });
  const gap = (detail: string, fix: string): CheckResult => ({
    check: 'slice-hooks',
    level: 'warn',
    detail: `${detail}: a runner started right after one, without lockguard run, hashes stale .lockguard-slice files`,
    fix,
  });
  if (manager === 'pnpm') {
    if (hasPostinstallHook(manifest)) return ok('pnpm installs rewrite the slice files (the root prepare hook)');
    let shim = '';
    try {
      shim = readConfigText(join(root, '.pnpmfile.cjs')) ?? '';
    } catch {
      // absent
    }
    const major = majorOf(pnpmHere(root, env).version);
    if (shim.includes('lockguard/pnpmfile') && major !== undefined && major <= 10)
      return ok("pnpm installs rewrite the slice files (the pnpmfile, at pnpm's exit)");
    return gap(
      major !== undefined && major >= 11
        ? `pnpm ${major} installs do not rewrite the slice files (its pnpmfile hooks cannot see an install end)`
        : 'pnpm installs do not rewrite the slice files (no pnpmfile or root prepare hook)',
      'lockguard init --npm-scripts (the root prepare script writes them after every install that changed something).',
    );
  }
  if (manager === 'npm' || manager === 'bun' || (manager === 'yarn' && yarnClassic(root)))
    return rootPrepareCheck(manager === 'yarn' ? 'yarn v1' : manager, hasPostinstallHook(manifest), ok, gap);
  if (manager === 'yarn') {
    let rc = '';
    try {
      rc = readConfigText(join(root, '.yarnrc.yml')) ?? '';
    } catch {
      // absent
    }
    return rc.includes('lockguard.cjs')
      ? ok("yarn installs rewrite the slice files (lockguard's committed yarn plugin)")
      : gap(
          "yarn installs do not rewrite the slice files (lockguard's yarn plugin is not committed)",
          `${yarnPluginImportLine(root)}, then commit .yarnrc.yml and .yarn/plugins/lockguard.cjs.`,
        );
  }
  return gap(
    `${manager} installs do not rewrite the slice files (no install hook)`,
    'Start runners through lockguard run, or run lockguard key --write-slices after installs.',
  );
}

/** Which installs run the root prepare hook (measured: integrations/npm/hook.ts). */
const PREPARE_AFTER: Readonly<Record<string, string>> = {
  npm: 'npm install and npm ci rewrite the slice files (the root prepare hook)',
  bun: 'bun install and bun add rewrite the slice files (the root prepare hook)',
  'yarn v1':
    'yarn v1 installs rewrite the slice files (the root prepare hook; yarn workspace <name> add runs none: lockguard run catches it, lockguard key --write-slices after it outside a run)',
};

/** npm, yarn v1, bun: no plugin hooks; the root prepare hook, which each runs after its installs, writes the files. */
function rootPrepareCheck(
  manager: string,
  hooked: boolean,
  ok: (detail: string) => CheckResult,
  gap: (detail: string, fix: string) => CheckResult,
): CheckResult {
  if (hooked)
    return ok(PREPARE_AFTER[manager] ?? `${manager} installs rewrite the slice files (the root prepare hook)`);
  return gap(
    manager === 'npm'
      ? 'npm installs do not rewrite the slice files'
      : `${manager} installs do not rewrite the slice files (no root prepare hook)`,
    'lockguard init --npm-scripts.',
  );
}

/** pnpm: the version that runs here, and whether .pnpmfile.cjs loads lockguard's plugin (and what that costs). */
function pnpmChecks(root: string, env: Io['env']): CheckResult[] {
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
  if (shim.includes('lockguard/pnpmfile')) {
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

/** npm: whether the root preinstall/postinstall scripts report to guarded runs. */
function npmHookCheck(manifest: Record<string, unknown> | undefined): CheckResult {
  const scripts = (manifest?.['scripts'] ?? {}) as Record<string, unknown>;
  const hooked = ['prepare', 'preinstall', 'postinstall'].some(
    (name) => typeof scripts[name] === 'string' && /lockguard(\/npm-hook| hook)/.test(scripts[name] as string),
  );
  return hooked
    ? { check: 'npm-hook', level: 'ok', detail: 'root install scripts report to guarded runs' }
    : {
        // Optional (lockguard run catches every install without it): a note, not a warning.
        check: 'npm-hook',
        level: 'ok',
        detail:
          'no lockguard hook in the root prepare script (optional: lockguard init --npm-scripts reports npm installs to a guarded run as they happen); npm installs are caught by file events and the final check',
      };
}

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

/** yarn.lock's bytes, undefined when absent or unreadable (doctor's checks never throw). */
function yarnLock(root: string): Buffer | undefined {
  try {
    return readBounded(join(root, 'yarn.lock'), { kind: 'lockfile', root });
  } catch {
    return undefined;
  }
}

function yarnClassic(root: string): boolean {
  const lock = yarnLock(root);
  return lock !== undefined && yarnFlavor(lock) === 'classic';
}

/** yarn berry or classic, from the lockfile's first lines (no lockfile yet: nothing to say). */
function yarnChecks(workspace: Workspace): CheckResult[] {
  const lock = yarnLock(workspace.root);
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
