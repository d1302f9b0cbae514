// The folders of a workspace's packages, as its package manager's globs name them, without spawning it: the
// one reader the plan (plan/pnpm-projects.ts) and the runners that read per-package configuration (wireit) share.
//
// Owns: the `packages:` globs of pnpm-workspace.yaml (a line scan), the `workspaces` globs of a package.json
// (an array, or `{ packages: [...] }`), and the folders they match (`*`, `**`, `?`, `!` exclusions; a trailing
// `/**` matches the folder itself, as pnpm globs `<pattern>/package.json`).
// Invariants: read-only; never enters node_modules or a dot folder; a `**` glob is followed at most
// DEEP_GLOB_MAX_DEPTH folders down; a workspace file that cannot be read is no globs (never an error), but a
// lockguard refusal of the read (a FIFO, a file too large: core/bounded-read.ts) is thrown.

import { readdirSync, type Dirent } from 'node:fs';
import { join, posix } from 'node:path';
import { readConfigText } from '../core/bounded-read.js';
import { isLockguardError } from '../core/errors.js';

/** How deep a `**` glob is followed (node_modules and dot folders are never entered). */
const DEEP_GLOB_MAX_DEPTH = 12;

/** The `packages:` globs of the root's pnpm-workspace.yaml ([] when there is none). */
export function pnpmWorkspaceGlobs(root: string): string[] {
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

/** A package.json's `workspaces` globs: an array, or yarn 1's `{ packages: [...] }`. */
export function manifestWorkspaceGlobs(manifest: Record<string, unknown> | undefined): string[] {
  const field = manifest?.['workspaces'];
  const list = Array.isArray(field)
    ? field
    : field !== null && typeof field === 'object'
      ? (field as { packages?: unknown }).packages
      : undefined;
  return Array.isArray(list) ? list.filter((glob): glob is string => typeof glob === 'string') : [];
}

function globRegex(glob: string): RegExp {
  const clean = posix.normalize(glob.replace(/^\.\//, '')).replace(/\/$/, '');
  let source = '';
  for (let i = 0; i < clean.length; i++) {
    const c = clean[i] as string;
    if (c === '/' && clean.slice(i) === '/**') {
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

function foldersUnder(root: string, maxDepth: number): string[] {
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

/** The folders (relative, POSIX; the root not included) that `globs` name, whether or not they hold a package.json. */
export function foldersMatching(root: string, globs: readonly string[]): string[] {
  const include = globs.filter((glob) => !glob.startsWith('!')).map(globRegex);
  if (include.length === 0) return [];
  const exclude = globs.filter((glob) => glob.startsWith('!')).map((glob) => globRegex(glob.slice(1)));
  const maxDepth = globs.some((glob) => glob.includes('**'))
    ? DEEP_GLOB_MAX_DEPTH
    : Math.max(1, ...globs.map((glob) => glob.split('/').length));
  return foldersUnder(root, maxDepth).filter(
    (dir) => include.some((re) => re.test(dir)) && !exclude.some((re) => re.test(dir)),
  );
}
