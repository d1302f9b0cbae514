// The shapes and shared verdicts of doctor's install-hook checks, which each package manager's integration
// adapter answers (`<pm>/hooks.ts`; cli/doctor-hooks.ts renders them with the rest of doctor).
//
// Owns: `HookCheck`, `SliceHooks` (whether a manager's installs rewrite the slice files), the root prepare
// hook's verdict (npm, yarn v1, bun: no plugin hooks), reading whether the root scripts run lockguard's
// hook, and whether the hook can load lockguard from the root (a script that cannot is no hook).
// Invariants: read-only; a missing or unreadable file is a finding, never a throw.

import { join } from 'node:path';
import { readConfigText } from '../../core/bounded-read.js';
import { nodeModule } from '../../core/lazy-builtins.js';

/** One of doctor's checks as data (the shape of the runners' DoctorCheck): doctor renders it. */
export interface HookCheck {
  readonly check: string;
  readonly level: 'ok' | 'warn' | 'fail';
  readonly detail: string;
  readonly fix?: string;
}

/** Whether a manager's installs rewrite the slice files here: how (`ok`), or what is missing and its fix. */
export type SliceHooks = { readonly ok: string } | { readonly gap: string; readonly fix: string };

/** The root package.json, or undefined when absent or unreadable. */
function rootManifest(root: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readConfigText(join(root, 'package.json')) ?? '') as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** A root file's text, '' when absent or unreadable. */
export function rootText(root: string, name: string): string {
  try {
    return readConfigText(join(root, name)) ?? '';
  } catch {
    return '';
  }
}

/**
 * Whether `lockguard/<entry>` resolves from the workspace root, as the hook script (`node -e`, started in the
 * root) and the pnpmfile shim load it: each does nothing, by design, where lockguard is not installed (a fresh
 * clone's first install must not fail), so a hook in the scripts is no hook until this holds.
 */
export function lockguardLoads(root: string, entry: 'npm-hook' | 'pnpmfile' | 'package.json'): boolean {
  try {
    nodeModule().createRequire(join(root, 'package.json')).resolve(`lockguard/${entry}`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether root scripts among `names` run lockguard's hook (`lockguard init --npm-scripts`), and whether it can
 * load lockguard here: `loads`, `not-installed` (the script is there, lockguard does not resolve from the root,
 * so the hook exits doing nothing) or `none`.
 */
export type ScriptHook = 'loads' | 'not-installed' | 'none';

export function scriptHook(root: string, names: readonly string[] = ['prepare', 'postinstall']): ScriptHook {
  const scripts = (rootManifest(root)?.['scripts'] ?? {}) as Record<string, unknown>;
  const hooks = names
    .map((name) => scripts[name])
    .filter((script): script is string => typeof script === 'string' && /lockguard(\/npm-hook| hook)/.test(script));
  if (hooks.length === 0) return 'none';
  const entry = hooks.some((script) => script.includes('lockguard/npm-hook')) ? 'npm-hook' : 'package.json';
  return lockguardLoads(root, entry) ? 'loads' : 'not-installed';
}

/** What a hook (or the pnpmfile shim) that cannot load lockguard does: doctor's words for `not-installed`. */
export function notInstalled(what: 'hook' | 'shim'): { readonly why: string; readonly fix: string } {
  return {
    why: `lockguard does not resolve from the workspace root (not installed here), so the ${what} exits doing nothing`,
    fix: 'Add lockguard as a root devDependency (README "Install"), then install.',
  };
}

/**
 * npm, yarn v1, bun: no plugin hooks; the root prepare hook, which each runs after its installs, writes the
 * files (measured: integrations/npm/hook.ts). `after` says which installs run it.
 */
export function prepareHookVerdict(label: string, hook: ScriptHook, after: string, quiet = false): SliceHooks {
  if (hook === 'loads') return { ok: after };
  if (hook === 'not-installed')
    return {
      gap: `${label} installs do not rewrite the slice files: the root prepare hook is there, but ${notInstalled('hook').why}`,
      fix: notInstalled('hook').fix,
    };
  return {
    gap: quiet
      ? `${label} installs do not rewrite the slice files`
      : `${label} installs do not rewrite the slice files (no root prepare hook)`,
    fix: 'lockguard init --npm-scripts.',
  };
}
