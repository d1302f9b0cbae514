// The projects of a pnpm workspace and how they depend on each other, without spawning pnpm.
//
// Owns: the projects among the folders pnpm-workspace.yaml's globs name (../workspace-folders.ts) that hold a
// package.json, and the workspace edges:
// a dependency (dependencies, devDependencies, optionalDependencies, peerDependencies) whose spec is
// `workspace:` or `link:`/`file:` to another project, or names another project by its package name.
// Invariants: read-only; a project without a name is named by its path; the root is a project ('.').

import { join, posix } from 'node:path';
import { readConfigText } from '../../core/bounded-read.js';
import { isLockguardError } from '../../core/errors.js';
import { foldersMatching, pnpmWorkspaceGlobs } from '../workspace-folders.js';

export interface WorkspaceProject {
  /** Workspace-relative POSIX folder ('.' for the root). */
  readonly dir: string;
  readonly name: string;
  readonly scripts: Readonly<Record<string, string>>;
  /** Folders of the projects it depends on. */
  readonly deps: readonly string[];
}

function manifest(root: string, dir: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(readConfigText(join(root, dir, 'package.json'), root) ?? 'null');
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch (error) {
    if (isLockguardError(error)) throw error;
    return undefined;
  }
}

export function workspaceProjects(root: string): WorkspaceProject[] {
  const dirs = ['.', ...foldersMatching(root, pnpmWorkspaceGlobs(root))];
  const found = dirs
    .map((dir) => ({ dir, data: manifest(root, dir) }))
    .filter((entry) => entry.data !== undefined || entry.dir === '.');
  const byName = new Map<string, string>();
  for (const { dir, data } of found) if (typeof data?.['name'] === 'string') byName.set(data['name'], dir);
  const dirSet = new Set(found.map((entry) => entry.dir));
  return found.map(({ dir, data }) => {
    const deps = new Set<string>();
    for (const group of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
      const map = data?.[group];
      if (map === null || typeof map !== 'object') continue;
      for (const [name, spec] of Object.entries(map as Record<string, unknown>)) {
        const text = typeof spec === 'string' ? spec : '';
        let target: string | undefined;
        if (text.startsWith('link:') || text.startsWith('file:'))
          target = posix.normalize(posix.join(dir, text.slice(5))).replace(/\/$/, '') || '.';
        else
          target = byName.get(
            text.startsWith('workspace:') && text.includes('@')
              ? text.slice('workspace:'.length, text.lastIndexOf('@'))
              : name,
          );
        if (target !== undefined && target !== dir && dirSet.has(target)) deps.add(target);
      }
    }
    const scripts = data?.['scripts'];
    const scriptMap =
      scripts !== null && typeof scripts === 'object'
        ? Object.fromEntries(
            Object.entries(scripts as Record<string, unknown>).filter(
              (e): e is [string, string] => typeof e[1] === 'string',
            ),
          )
        : {};
    return {
      dir,
      name: typeof data?.['name'] === 'string' ? data['name'] : dir,
      scripts: scriptMap,
      deps: [...deps].sort(),
    };
  });
}
