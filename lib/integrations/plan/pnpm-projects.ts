// The projects of a pnpm workspace and how they depend on each other, without spawning pnpm.
//
// Owns: the `packages:` globs of pnpm-workspace.yaml (line scan; `*`, `**`, `!` exclusions), the folders
// they match that hold a package.json (node_modules and dot-folders skipped), and the workspace edges:
// a dependency (dependencies, devDependencies, optionalDependencies, peerDependencies) whose spec is
// `workspace:` or `link:`/`file:` to another project, or names another project by its package name.
// Invariants: read-only; a project without a name is named by its path; the root is a project ('.').

import { readdirSync, type Dirent } from 'node:fs';
import { join, posix } from 'node:path';
import { readConfigText } from '../../core/bounded-read.js';
import { isLockguardError } from '../../core/errors.js';

export interface WorkspaceProject {
  /** Workspace-relative POSIX folder ('.' for the root). */
  readonly dir: string;
  readonly name: string;
  readonly scripts: Readonly<Record<string, string>>;
  /** Folders of the projects it depends on. */
  readonly deps: readonly string[];
}

export function workspaceGlobs(root: string): string[] {
  let text: string;
  try {
    text = readConfigText(join(root, 'pnpm-workspace.yaml'), root) ?? '';
  } catch (error) {
    if (isLockguardError(error)) throw error;
    return [];
  }
  const globs: string[] = [];
  let inPackages = false;
  for (const line of text.split('\n')) {
    if (/^\S/.test(line)) inPackages = /^packages:\s*$/.test(line);
    else if (inPackages) {
      const match = /^\s+-\s+(.+?)\s*$/.exec(line);
      if (match?.[1] !== undefined) globs.push(match[1].replace(/^['"]|['"]$/g, ''));
    }
  }
  return globs;
}

function globRegex(glob: string): RegExp {
  const clean = posix.normalize(glob.replace(/^\.\//, '')).replace(/\/$/, '');
  let source = '';
  for (let i = 0; i < clean.length; i++) {
    const c = clean[i] as string;
    if (c === '/' && clean.slice(i) === '/**') {
      // A trailing /** matches the folder itself too (pnpm globs `<pattern>/package.json`).
      source += '(?:/.*)?';
      break;
    }
    if (c === '*' && clean[i + 1] === '*') {
      source += clean[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += clean[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

function folders(root: string, maxDepth: number): string[] {
  const out: string[] = [];
  const walk = (rel: string, depth: number): void => {
    if (depth > maxDepth) return;
    let entries: Dirent[];
    try {
      entries = readdirSync(join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      out.push(child);
      walk(child, depth + 1);
    }
  };
  walk('', 1);
  return out;
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

/** How deep a `**` glob of pnpm-workspace.yaml is followed (node_modules and dot folders are never entered). */
const DEEP_GLOB_MAX_DEPTH = 12;

export function workspaceProjects(root: string): WorkspaceProject[] {
  const globs = workspaceGlobs(root);
  const include = globs.filter((glob) => !glob.startsWith('!')).map(globRegex);
  const exclude = globs.filter((glob) => glob.startsWith('!')).map((glob) => globRegex(glob.slice(1)));
  const deep = globs.some((glob) => glob.includes('**'));
  const maxDepth = deep ? DEEP_GLOB_MAX_DEPTH : Math.max(1, ...globs.map((glob) => glob.split('/').length));
  const dirs = [
    '.',
    ...folders(root, maxDepth).filter(
      (dir) => include.some((re) => re.test(dir)) && !exclude.some((re) => re.test(dir)),
    ),
  ];
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
