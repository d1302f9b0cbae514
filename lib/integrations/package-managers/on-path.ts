// Finding a command as a spawn would: the PATH variable (whatever its case, as on Windows) and whether a
// file there may be executed. Used by the "which pnpm runs here" answer (version.ts) and by the plan's
// lookup of turbo's native binary (runners/turbo/binary.ts); and the PATH a wrapped command gets
// (`withWorkspaceBins`): the workspace's `node_modules/.bin` folders first, as package scripts and npx have them.
// Invariant: stats only; never spawns; `withWorkspaceBins` touches no file at all (strings only).

import { accessSync, constants } from 'node:fs';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import type { Env } from '../../core/env.js';

/** What execvp searches when the environment has no PATH (glibc's _CS_PATH). */
const DEFAULT_PATH = '/bin:/usr/bin';

/** The name `env` spells PATH with (`Path` on Windows), `PATH` when it has none. */
export function pathKeyOf(env: Env): string {
  return Object.keys(env).find((key) => key.toUpperCase() === 'PATH') ?? 'PATH';
}

/** The folders of `env`'s PATH, in order, empty entries left out. */
export function pathDirs(env: Env): string[] {
  return (env[pathKeyOf(env)] ?? '').split(delimiter).filter((dir) => dir !== '');
}

/** Whether `path` may be executed by this process. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * `env` with the `node_modules/.bin` folders of `cwd` and each folder above it up to the workspace `root`
 * put before its PATH, nearest first: what pnpm (10 and 12: the package's, then the root's) and npm (every
 * folder up) give package scripts and `exec`, so `lockguard run -- turbo …` finds a workspace's turbo as
 * `pnpm exec turbo …` does. A `cwd` outside `root` gets its own folder's only.
 */
export function withWorkspaceBins(env: Env, cwd: string, root: string): Record<string, string | undefined> {
  const dirs: string[] = [];
  const top = resolve(root);
  let dir = resolve(cwd);
  const inside = !relative(top, dir).startsWith('..');
  for (;;) {
    dirs.push(join(dir, 'node_modules', '.bin'));
    if (!inside || dir === top || dirname(dir) === dir) break;
    dir = dirname(dir);
  }
  const key = pathKeyOf(env);
  const current = env[key];
  // No PATH at all: a spawn would search the C library's default path (execvp), so it stays after the bins.
  const rest = current === undefined ? DEFAULT_PATH : current;
  return { ...env, [key]: rest === '' ? dirs.join(delimiter) : [...dirs, rest].join(delimiter) };
}
