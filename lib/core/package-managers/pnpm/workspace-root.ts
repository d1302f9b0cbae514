// pnpm's own rule for the workspace root: the nearest folder with a workspace manifest, as
// @pnpm/find-workspace-dir finds it (workspace.ts asks it through pnpm's adapter).
//
// Owns: `findPnpmRoot`. Invariants: only lstat; pnpm's package is loaded only when the answer is not plain;
// a misnamed manifest is a LockguardError naming the folder.

import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LockguardError } from '../../errors.js';

// The names @pnpm/find-workspace-dir looks for (the right one, and the misnamed ones it refuses).
const PNPM_MANIFESTS = [
  'pnpm-workspace.yaml',
  'pnpm-workspaces.yaml',
  'pnpm-workspaces.yml',
  'pnpm-workspace.yml',
  '.pnpm-workspace.yaml',
  '.pnpm-workspace.yml',
  '.pnpm-workspaces.yaml',
  '.pnpm-workspaces.yml',
];

/**
 * pnpm's workspace root as @pnpm/find-workspace-dir finds it (the nearest folder at or above the real
 * `dir` holding one of its manifest names, which must then be `pnpm-workspace.yaml`), answered here where
 * the answer is plain: no env override, and the nearest level with any of the names holds exactly
 * `pnpm-workspace.yaml` as a regular file (not a link, not a folder). Then find-up's walk (stat of each
 * name, level by level, files only) ends at that level with that file, by construction. `undefined`: no
 * name at any level (pnpm finds nothing either). 'ask': anything else (a misnamed manifest, a link, the
 * env override, a real path that `realpath.native` would spell differently): pnpm's package answers, so
 * its rules and its refusal stay the authority. Loading that package and its async walk cost about a
 * fifth of a Node start, so npm, yarn and bun workspaces, and plain pnpm ones, never pay for it.
 */
function plainPnpmRoot(real: string): string | undefined | 'ask' {
  if (process.env['NPM_CONFIG_WORKSPACE_DIR'] || process.env['npm_config_workspace_dir']) return 'ask';
  for (let at = real; ; at = dirname(at)) {
    const found = PNPM_MANIFESTS.map(
      (name) => [name, lstatSync(join(at, name), { throwIfNoEntry: false })] as const,
    ).filter(([, stats]) => stats !== undefined);
    if (found.length > 0) {
      const [name, stats] = found[0] ?? [];
      if (found.length !== 1 || name !== 'pnpm-workspace.yaml' || stats?.isFile() !== true) return 'ask';
      try {
        return realpathSync.native(real) === real ? at : 'ask';
      } catch {
        return 'ask';
      }
    }
    if (dirname(at) === at) return undefined;
  }
}

/** pnpm's workspace root at or above the real folder `real`, or undefined when pnpm finds none. */
export async function findPnpmRoot(real: string): Promise<string | undefined> {
  try {
    const plain = plainPnpmRoot(real);
    return plain === 'ask' ? await (await import('@pnpm/find-workspace-dir')).findWorkspaceDir(real) : plain;
  } catch (error) {
    throw new LockguardError('ERR_LOCKGUARD_NOT_A_WORKSPACE', `pnpm's workspace manifest near "${real}" is misnamed.`, {
      path: real,
      cause: error,
      hint: 'Rename it to pnpm-workspace.yaml.',
    });
  }
}
