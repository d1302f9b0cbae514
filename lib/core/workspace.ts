// Workspace discovery: which folder holds the lockfile, and which package manager owns it.
//
// Owns: the workspace root (a package manager's own rule where its adapter has one, pnpm's find-workspace-dir
// in package-managers/pnpm/; else the nearest folder up with a lockfile or a `workspaces` field) and the
// package-manager guess from the files found there, asked of the registry (package-managers/registry.ts);
// a Rush repository's root is the folder with rush.json (core/rush.ts reads it).
// Invariants: only lstat and small manifest reads; never opens a lockfile (a FIFO there must reach the
// table read, which refuses it loudly); missing workspace is a LockguardError naming the folder.

import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { LockguardError } from './errors.js';
import { readConfigText } from './bounded-read.js';
import type { PackageManager } from './package-managers/names.js';
import { FALLBACK_MANAGER, isPackageManager, layoutAt, PACKAGE_MANAGER_CORES } from './package-managers/registry.js';

export type { PackageManager };

export interface Workspace {
  /** Absolute, real path of the workspace root. */
  readonly root: string;
  readonly manager: PackageManager;
}

/** Lockfile names in the order a root is recognized by, with their package manager (the registry's order). */
export const LOCKFILES: ReadonlyArray<readonly [name: string, manager: PackageManager]> = PACKAGE_MANAGER_CORES.flatMap(
  (core) => core.lockfiles.map((name) => [name, core.name] as const),
);

/** Files that mark a root whose lockfile lives elsewhere (Rush's rush.json: package-managers/pnpm/rush.ts). */
const LAYOUT_MARKERS: readonly string[] = PACKAGE_MANAGER_CORES.flatMap((core) =>
  core.layout === undefined ? [] : [core.layout.marker],
);

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
  // A Rush repository's lockfile is under common/config/rush/ (core/rush.ts): rush.json marks its root.
  if (LOCKFILES.some(([name]) => exists(join(dir, name))) || LAYOUT_MARKERS.some((name) => exists(join(dir, name))))
    return true;
  const manifest = readManifest(dir);
  return manifest !== undefined && manifest['workspaces'] !== undefined;
}

function nearestRootUp(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    if (isRootCandidate(dir)) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The package manager that owns `root`, judged from the files in it. A Rush repository (rush.json) is pnpm's
 * in pnpm mode; its npm and yarn modes are refused (core/rush.ts throws with the fix).
 */
export function detectManager(root: string): PackageManager {
  const layout = layoutAt(root);
  if (layout !== undefined) return layout.manager;
  for (const core of PACKAGE_MANAGER_CORES)
    if (core.rootMarkers.some((name) => exists(join(root, name)))) return core.name;
  for (const [name, manager] of LOCKFILES) if (exists(join(root, name))) return manager;
  const declared = readManifest(root)?.['packageManager'];
  if (typeof declared === 'string') {
    const name = declared.split('@')[0] ?? '';
    if (isPackageManager(name)) return name;
  }
  return FALLBACK_MANAGER;
}

/** The deepest root a package manager's own rule finds above `real` (pnpm: find-workspace-dir's), if any. */
async function ownRuleRoot(real: string): Promise<string | undefined> {
  let deepest: string | undefined;
  for (const core of PACKAGE_MANAGER_CORES) {
    const found = await core.findRoot?.(real);
    if (found !== undefined && (deepest === undefined || found.length > deepest.length)) deepest = found;
  }
  return deepest;
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
  const ownRoot = await ownRuleRoot(real);
  const nearest = nearestRootUp(real);
  // The deeper of the two wins: a pnpm workspace above an unrelated npm project does not own it.
  const root = ownRoot !== undefined && (nearest === undefined || ownRoot.length >= nearest.length) ? ownRoot : nearest;
  if (root === undefined) {
    throw new LockguardError(
      'ERR_LOCKGUARD_NOT_A_WORKSPACE',
      `No workspace found at or above "${real}": expected pnpm-workspace.yaml, a lockfile ` +
        `(${LOCKFILES.map(([name]) => name).join(', ')}), a package.json with "workspaces" or ${LAYOUT_MARKERS.join(', ')}.`,
      {
        path: real,
        hint: 'Run lockguard inside your repository, or pass --dir with the workspace root.',
      },
    );
  }
  return { root, manager: detectManager(root) };
}
