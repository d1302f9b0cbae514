// doctor's turbo checks, as data: turbo's packageManager pin (yarn, bun) and which turbo `lockguard run` starts.
//
// Owns: `turboChecks(root, env, manager)`: nothing where no turbo.json/turbo.jsonc is; else, for yarn and
// bun, the warning when the root package.json has no `packageManager` (turbo 2 cannot read such a workspace
// without it), then the binary `lockguard run -- turbo` starts (binary.ts: the native one in the
// launcher's place, or the command as given).
// Invariants: read-only (a few stats, the root package.json, turbo's launcher files); never runs turbo.

import { delimiter, join } from 'node:path';
import type { PackageManager } from '../../../core/workspace.js';
import { pathKeyOf } from '../../package-managers/on-path.js';
import type { DoctorCheck, Env } from '../adapter.js';
import { present } from '../workspace-files.js';
import { turboNative } from './binary.js';
import { readConfigText } from '../../../core/bounded-read.js';

function packageManagerPinned(root: string): boolean {
  try {
    const manifest = JSON.parse(readConfigText(join(root, 'package.json')) ?? '') as Record<string, unknown> | null;
    return typeof manifest?.['packageManager'] === 'string';
  } catch {
    return false;
  }
}

/** turbo 2 needs `packageManager` in the root package.json to read a yarn or bun workspace. */
function pinCheck(root: string, manager: PackageManager): DoctorCheck[] {
  if ((manager !== 'yarn' && manager !== 'bun') || packageManagerPinned(root)) return [];
  return [
    {
      check: 'turbo',
      level: 'warn',
      detail: `turbo.json is here but the root package.json has no "packageManager": turbo 2 cannot read this ${manager} workspace without it`,
      fix: `Add "packageManager": "${manager}@<version>" to the root package.json.`,
    },
  ];
}

/** The native binary `lockguard run -- turbo` starts in the launcher's place, if any. */
function startCheck(root: string, env: Env): DoctorCheck {
  const key = pathKeyOf(env);
  const native = turboNative('turbo', root, {
    ...env,
    [key]: [join(root, 'node_modules', '.bin'), env[key] ?? ''].join(delimiter),
  });
  if (native === undefined)
    return {
      check: 'turbo-bin',
      level: 'ok',
      detail:
        "turbo here is not turbo 2's launcher with its platform binary (or not installed): lockguard run starts the command as given",
    };
  return {
    check: 'turbo-bin',
    level: 'ok',
    detail: `lockguard run -- turbo starts ${native.binary} itself, as turbo's launcher would (one Node start fewer)`,
  };
}

/** doctor's turbo checks (none without turbo.json/turbo.jsonc). */
export function turboChecks(root: string, env: Env, manager: PackageManager): DoctorCheck[] {
  if (!present(join(root, 'turbo.json')) && !present(join(root, 'turbo.jsonc'))) return [];
  return [...pinCheck(root, manager), startCheck(root, env)];
}
