// Finding a command as a spawn would: the PATH variable (whatever its case, as on Windows) and whether a
// file there may be executed. Used by the "which pnpm runs here" answer (version.ts) and by the plan's
// lookup of turbo's native binary (runners/turbo-binary.ts).
// Invariant: stats only; never spawns.

import { accessSync, constants } from 'node:fs';
import { delimiter } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

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
