// Which version of a package manager actually runs here, not only what `packageManager` pins.
//
// Owns: finding the executable the way a shell or a root script would (`<root>/node_modules/.bin` first,
// then PATH), following its links to the package it belongs to, and reading that package's version; corepack's
// shims run what `packageManager` pins, so there the pin is the answer; and whether that pnpm switches to the
// pin is pnpm's own (pnpm/effective-version.ts `effectivePnpm`).
// Invariants: a few stats and small reads (the settings files only when a switch is in question), no process started; an executable it cannot place (a native
// binary outside any package) is `undefined` version with its path, never a guess.

import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Env } from '../../core/env.js';
import { isExecutable, pathDirs } from './on-path.js';
import { commandLineOf } from './command-lines.js';
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

/** The version `packageManager` pins for `manager` in the root package.json, or undefined. */
export function pinned(root: string, manager: Manager): string | undefined {
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
    commandLineOf(manager).packages.some((name) => owner.name === name || owner.name.startsWith(`${name}.`))
  )
    return { manager, version: owner.version, path: found, source: 'package' };
  return { manager, version: undefined, path: found, source: 'unknown' };
}

/** The major version of a semver string, or undefined. */
export function majorOf(version: string | undefined): number | undefined {
  const major = Number(version?.split('.')[0]);
  return Number.isInteger(major) && major > 0 ? major : undefined;
}
