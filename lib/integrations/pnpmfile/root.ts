// The workspace root a pnpm process works on, found cheaply from inside a pnpmfile.
//
// Owns: reading the root from the config pnpm hands `updateConfig` (pnpm 10 and 12 both pass `lockfileDir`,
// `workspaceDir` and `dir`), and, at plugin load time (no config yet), walking up from the cwd to the first
// folder holding pnpm-workspace.yaml or pnpm-lock.yaml.
// Invariants: Node builtins only; lstat per level at most two; never reads a file; never throws.

import { lstatSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The root pnpm names in its config: `lockfileDir` (where the lockfile lives), else `workspaceDir`, else `dir`. */
export function rootFromConfig(config: Readonly<Record<string, unknown>>): string | undefined {
  for (const key of ['lockfileDir', 'workspaceDir', 'dir']) {
    const value = config[key];
    if (typeof value === 'string' && value !== '') return resolve(value);
  }
  return undefined;
}

function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** The nearest folder at or above `start` with pnpm-workspace.yaml or pnpm-lock.yaml (pnpm's own rule). */
export function rootFromCwd(start: string = process.cwd()): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (exists(join(dir, 'pnpm-workspace.yaml')) || exists(join(dir, 'pnpm-lock.yaml'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}
