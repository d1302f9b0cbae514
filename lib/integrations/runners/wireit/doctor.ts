// doctor's wireit checks, as data: which cache wireit uses here and what of it lockguard guards, and, in a
// workspace whose lockfile is not npm's, the scripts whose keys fold no lockfile when started through npm.
//
// Owns: `wireitChecks(root, env, manager)`: nothing where no package configures wireit; else `wireit-cache`
// (local: guarded, where; none: nothing saved; github: not gated, and how a guarded run turns it off; an
// invalid WIREIT_CACHE fails wireit) and, for pnpm, yarn and bun workspaces, `wireit-lock-input`: wireit's
// default `packageLocks` follows the package manager that started it (npm and `node --run`:
// package-lock.json only; read from wireit 0.14.13's analyzer.js), so under `npm run` a cached script that
// names no `packageLocks` (nor `.lockguard-slice` in its `files`: sound keys) folds no lockfile of this workspace.
// Invariants: read-only (the root and workspace package.json files); never runs wireit.

import { join } from 'node:path';
import type { PackageManager } from '../../../core/workspace.js';
import { foldsPath } from '../../sound-keys/globs.js';
import { SLICE_FILE } from '../../sound-keys/types.js';
import type { DoctorCheck, Env } from '../adapter.js';
import { wireitCacheMode } from './cache.js';
import { manifestAt, wireitBlock, wireitPackages, wireitPresent } from './packages.js';

function cacheCheck(env: Env, packages: number): DoctorCheck {
  const { mode, source } = wireitCacheMode(env);
  if (mode === 'local')
    return {
      check: 'wireit-cache',
      level: 'ok',
      detail: `wireit caches in each package's .wireit/<script>/cache/ (${source}; ${packages} package(s) configure wireit): lockguard run withholds stale saves there`,
    };
  if (mode === 'none') return { check: 'wireit-cache', level: 'ok', detail: `wireit saves no cache here (${source})` };
  if (mode === 'github')
    return {
      check: 'wireit-cache',
      level: 'warn',
      detail:
        'WIREIT_CACHE=github: wireit reads and writes the GitHub Actions cache from its own process; that remote is not gated',
      fix: 'Run wireit through `lockguard run` (--remote=auto, the default, sets WIREIT_CACHE=local for runs that may rewrite the lockfile), or use WIREIT_CACHE=local.',
    };
  return {
    check: 'wireit-cache',
    level: 'fail',
    detail: `${source}: wireit will not start`,
    fix: 'Set WIREIT_CACHE to local, none or github, or unset it.',
  };
}

/** `<dir>:<script>` of each cached script (a command, files and output) naming no `packageLocks` nor the slice file. */
function scriptsWithoutLocks(root: string, packages: readonly string[]): string[] {
  const out: string[] = [];
  for (const dir of packages) {
    const block = wireitBlock(manifestAt(join(root, dir))) ?? {};
    for (const [name, config] of Object.entries(block)) {
      if (config === null || typeof config !== 'object') continue;
      const script = config as Record<string, unknown>;
      if (script['command'] === undefined || script['files'] === undefined || script['output'] === undefined) continue;
      const files = Array.isArray(script['files'])
        ? script['files'].filter((glob): glob is string => typeof glob === 'string')
        : [];
      // Its own packageLocks, or the slice file in its files (sound keys): its key folds the lockfile's part.
      if (script['packageLocks'] === undefined && !foldsPath(files, SLICE_FILE))
        out.push(`${dir === '.' ? '' : dir}:${name}`);
    }
  }
  return out;
}

function lockInputCheck(root: string, packages: readonly string[], manager: PackageManager): DoctorCheck[] {
  if (manager === 'npm') return [];
  const scripts = scriptsWithoutLocks(root, packages);
  if (scripts.length === 0) return [];
  return [
    {
      check: 'wireit-lock-input',
      level: 'warn',
      detail: `started by npm (npm run), wireit looks for package-lock.json only: this workspace's lockfile is no input to ${scripts.slice(0, 5).join(', ')}${scripts.length > 5 ? ` and ${scripts.length - 5} more` : ''}`,
      fix: `Start wireit with ${manager} run (its default then folds this workspace's lockfile), add it to those scripts' "packageLocks", or fold each package's lockfile slice (lockguard init --sound-keys).`,
    },
  ];
}

export function wireitChecks(root: string, env: Env, manager: PackageManager): DoctorCheck[] {
  // Where wireit is neither configured at the root nor installed there, no package is read (a workspace of
  // hundreds of projects paid a read of every manifest here: about 120 ms of doctor's CPU at 300 projects).
  if (!wireitPresent(root)) return [];
  const packages = wireitPackages(root);
  if (packages.length === 0) return [];
  return [cacheCheck(env, packages.length), ...lockInputCheck(root, packages, manager)];
}
