// Workspace discovery: which folder holds the lockfile, and which package manager owns it.
//
// Owns: the workspace root (pnpm: `findWorkspaceDir`'s rule, its package asked unless the answer is plain;
// npm/yarn/bun: the nearest folder up with a lockfile or a `workspaces` field) and the package-manager guess
// from the files found there.
// Invariants: only lstat and small manifest reads; never opens a lockfile (a FIFO there must reach the
// table read, which refuses it loudly); missing workspace is a LockguardError naming the folder.

import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { LockguardError } from './errors.js';
import { readConfigText } from './bounded-read.js';

export type PackageManager = 'pnpm' | 'npm' | 'yarn' | 'bun';

export interface Workspace {
  /** Absolute, real path of the workspace root. */
  readonly root: string;
  readonly manager: PackageManager;
}

/** Lockfile names in the order a root is recognized by, with their package manager. */
export const LOCKFILES: ReadonlyArray<readonly [name: string, manager: PackageManager]> = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['package-lock.json', 'npm'],
  ['npm-shrinkwrap.json', 'npm'],
  ['yarn.lock', 'yarn'],
  ['bun.lock', 'bun'],
  ['bun.lockb', 'bun'],
];

function exists(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

function readManifest(dir: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(readConfigText(join(dir, 'package.json')) ?? '');
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    // Discovery only: a broken or missing manifest just means "no workspaces field here".
    return undefined;
  }
}

function isRootCandidate(dir: string): boolean {
  if (LOCKFILES.some(([name]) => exists(join(dir, name)))) return true;
  const manifest = readManifest(dir);
  return manifest !== undefined && manifest['workspaces'] !== undefined;
}

function nearestRootUp(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    if (isRootCandidate(dir)) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The package manager that owns `root`, judged from the files in it. */
export function detectManager(root: string): PackageManager {
  if (exists(join(root, 'pnpm-workspace.yaml'))) return 'pnpm';
  for (const [name, manager] of LOCKFILES) if (exists(join(root, name))) return manager;
  const declared = readManifest(root)?.['packageManager'];
  if (typeof declared === 'string') {
    const name = declared.split('@')[0];
    if (name === 'pnpm' || name === 'yarn' || name === 'bun' || name === 'npm') return name;
  }
  return 'npm';
}

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

/** Find the workspace that contains `start` (a folder). */
export async function findWorkspace(start: string): Promise<Workspace> {
  const from = resolve(start);
  let real: string;
  try {
    real = realpathSync(from);
  } catch (error) {
    throw new LockguardError('ERR_LOCKGUARD_NOT_A_WORKSPACE', `The folder "${from}" does not exist.`, {
      path: from,
      cause: error,
      hint: 'Run lockguard inside your repository, or pass --dir with the workspace root.',
    });
  }
  let pnpmRoot: string | undefined;
  try {
    const plain = plainPnpmRoot(real);
    pnpmRoot = plain === 'ask' ? await (await import('@pnpm/find-workspace-dir')).findWorkspaceDir(real) : plain;
  } catch (error) {
    throw new LockguardError('ERR_LOCKGUARD_NOT_A_WORKSPACE', `pnpm's workspace manifest near "${real}" is misnamed.`, {
      path: real,
      cause: error,
      hint: 'Rename it to pnpm-workspace.yaml.',
    });
  }
  const nearest = nearestRootUp(real);
  // The deeper of the two wins: a pnpm workspace above an unrelated npm project does not own it.
  const root =
    pnpmRoot !== undefined && (nearest === undefined || pnpmRoot.length >= nearest.length) ? pnpmRoot : nearest;
  if (root === undefined) {
    throw new LockguardError(
      'ERR_LOCKGUARD_NOT_A_WORKSPACE',
      `No workspace found at or above "${real}": expected pnpm-workspace.yaml, a lockfile ` +
        `(${LOCKFILES.map(([name]) => name).join(', ')}) or a package.json with "workspaces".`,
      {
        path: real,
        hint: 'Run lockguard inside your repository, or pass --dir with the workspace root.',
      },
    );
  }
  return { root, manager: detectManager(root) };
}
