// The shapes and shared verdicts of doctor's install-hook checks, which each package manager's integration
// adapter answers (`<pm>/hooks.ts`; cli/doctor-hooks.ts renders them with the rest of doctor).
//
// Owns: `HookCheck`, `SliceHooks` (whether a manager's installs rewrite the slice files), the root prepare
// hook's verdict (npm, yarn v1, bun: no plugin hooks) and reading whether the root scripts run lockguard's
// hook. Invariants: read-only; a missing or unreadable file is a finding, never a throw.

import { join } from 'node:path';
import { readConfigText } from '../../core/bounded-read.js';

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
export function rootManifest(root: string): Record<string, unknown> | undefined {
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

/** Whether the root prepare (or an earlier init's postinstall) runs lockguard's hook (`lockguard init --npm-scripts`). */
export function prepareHooked(root: string): boolean {
  const scripts = (rootManifest(root)?.['scripts'] ?? {}) as Record<string, unknown>;
  return ['prepare', 'postinstall'].some((name) => {
    const script = scripts[name];
    return typeof script === 'string' && /lockguard(\/npm-hook| hook)/.test(script);
  });
}

/**
 * npm, yarn v1, bun: no plugin hooks; the root prepare hook, which each runs after its installs, writes the
 * files (measured: integrations/npm/hook.ts). `after` says which installs run it.
 */
export function prepareHookVerdict(label: string, hooked: boolean, after: string, quiet = false): SliceHooks {
  if (hooked) return { ok: after };
  return {
    gap: quiet
      ? `${label} installs do not rewrite the slice files`
      : `${label} installs do not rewrite the slice files (no root prepare hook)`,
    fix: 'lockguard init --npm-scripts.',
  };
}
