// Which folders of a workspace hold a wireit configuration: the root and the workspace packages whose
// package.json has a `wireit` block (wireit 0.14.13 reads its scripts from there; analyzer.js).
//
// Owns: `wireitInstalled` (wireit under the root's node_modules: hoisted, or in pnpm's hidden hoist), the
// workspace package folders (pnpm-workspace.yaml `packages:`, else package.json `workspaces`), and
// `wireitPackages` (those whose manifest has a `wireit` object).
// Invariants: read-only; never follows node_modules or dot folders; a manifest that cannot be read or parsed
// is no wireit package (never an error); globs support `*` and `**` segments and `!` exclusions.

import { readdirSync, type Dirent } from 'node:fs';
import { join, posix } from 'node:path';
import { readConfigText } from '../../../core/bounded-read.js';
import { workspaceGlobs } from '../../plan/pnpm-projects.js';
import { present } from '../workspace-files.js';

/** How deep a `**` glob is followed. */
const DEEP_MAX = 8;

/** A package.json as an object, or undefined (absent, unreadable, not JSON, not an object). */
export function manifestAt(dir: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(readConfigText(join(dir, 'package.json')) ?? 'null');
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The manifest's `wireit` block, when it is an object. */
export function wireitBlock(manifest: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const block = manifest?.['wireit'];
  return block !== null && typeof block === 'object' && !Array.isArray(block)
    ? (block as Record<string, unknown>)
    : undefined;
}

/** wireit installed where a root script finds it (`node_modules/wireit`, or pnpm's `.pnpm/node_modules/wireit`). */
export function wireitInstalled(root: string): boolean {
  return (
    present(join(root, 'node_modules', 'wireit')) ||
    present(join(root, 'node_modules', '.pnpm', 'node_modules', 'wireit'))
  );
}

function npmWorkspaces(manifest: Record<string, unknown> | undefined): string[] {
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
  const source = clean
    .split('/')
    .map((part) =>
      part === '**'
        ? '.*'
        : part
            .split('*')
            .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
            .join('[^/]*'),
    )
    .join('/');
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

/** The workspace's package folders (relative, POSIX), the root not included. */
function workspaceFolders(root: string, rootManifest = manifestAt(root)): string[] {
  const globs = present(join(root, 'pnpm-workspace.yaml')) ? workspaceGlobs(root) : npmWorkspaces(rootManifest);
  const include = globs.filter((glob) => !glob.startsWith('!')).map(globRegex);
  if (include.length === 0) return [];
  const exclude = globs.filter((glob) => glob.startsWith('!')).map((glob) => globRegex(glob.slice(1)));
  const depth = globs.some((glob) => glob.includes('**'))
    ? DEEP_MAX
    : Math.max(1, ...globs.map((glob) => glob.split('/').length));
  return foldersUnder(root, depth).filter(
    (dir) => include.some((re) => re.test(dir)) && !exclude.some((re) => re.test(dir)),
  );
}

/** The folders (relative, POSIX; '.' for the root) whose package.json has a `wireit` block. */
export function wireitPackages(root: string): string[] {
  const rootManifest = manifestAt(root);
  const out = wireitBlock(rootManifest) === undefined ? [] : ['.'];
  for (const dir of workspaceFolders(root, rootManifest))
    if (wireitBlock(manifestAt(join(root, dir))) !== undefined) out.push(dir);
  return out;
}
