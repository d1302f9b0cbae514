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
import { turboFound, turboNative } from './binary.js';
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

/** Why `lockguard run -- turbo` starts the command as given, in what is true here: missing, an older launcher, or another turbo. */
function notDirect(root: string, env: Env): DoctorCheck {
  const found = turboFound('turbo', root, env);
  if (found.path === undefined)
    return {
      check: 'turbo-bin',
      level: 'warn',
      detail:
        'turbo.json is here but no turbo is installed (node_modules/.bin or PATH): a turbo command will not start',
      fix: 'Install the workspace (turbo as a root devDependency).',
    };
  const version = found.launcherVersion;
  const detail =
    version === undefined
      ? `turbo at ${found.path} is not turbo 2's Node launcher: lockguard run starts it as given`
      : found.older
        ? `turbo ${version} is installed; its launcher (older than 2.8.18) starts its platform binary its own way, so lockguard run starts it as given (one Node start more than turbo 2.8.18 and newer)`
        : `turbo ${version} is installed, but its launcher finds no platform binary for this machine here: lockguard run starts it as given`;
  return { check: 'turbo-bin', level: 'ok', detail };
}

/** The native binary `lockguard run -- turbo` starts in the launcher's place, if any. */
function startCheck(root: string, env: Env): DoctorCheck {
  const key = pathKeyOf(env);
  const native = turboNative('turbo', root, {
    ...env,
    [key]: [join(root, 'node_modules', '.bin'), env[key] ?? ''].join(delimiter),
  });
  if (native === undefined)
    return notDirect(root, { ...env, [key]: [join(root, 'node_modules', '.bin'), env[key] ?? ''].join(delimiter) });
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
