// Which folders of a workspace hold a wireit configuration: the root and the workspace packages whose
// package.json has a `wireit` block (wireit 0.14.13 reads its scripts from there; analyzer.js).
//
// Owns: `wireitPresent` (a root block or wireit installed), `wireitInstalled` (wireit under the root's node_modules: hoisted, or in pnpm's hidden hoist) and
// `wireitPackages` (the workspace folders, pnpm-workspace.yaml `packages:` else package.json `workspaces`,
// read by ../../workspace-folders.ts, whose manifest has a `wireit` object).
// Invariants: read-only; a manifest that cannot be read or parsed is no wireit package (never an error).

import { join } from 'node:path';
import { readConfigText } from '../../../core/bounded-read.js';
import { foldersMatching, manifestWorkspaceGlobs, pnpmWorkspaceGlobs } from '../../workspace-folders.js';
import { present } from '../workspace-files.js';

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

/**
 * wireit may be in use here: a root `wireit` block, or wireit installed at the root. Where it is not, nothing
 * reads the packages' manifests (doctor, folded-by: a workspace of hundreds of projects paid a read of each).
 */
export function wireitPresent(root: string): boolean {
  return wireitBlock(manifestAt(root)) !== undefined || wireitInstalled(root);
}

/** The workspace's package folders (relative, POSIX), the root not included. */
function workspaceFolders(root: string, rootManifest = manifestAt(root)): string[] {
  const globs = present(join(root, 'pnpm-workspace.yaml'))
    ? pnpmWorkspaceGlobs(root)
    : manifestWorkspaceGlobs(rootManifest);
  return foldersMatching(root, globs);
}

/** The folders (relative, POSIX; '.' for the root) whose package.json has a `wireit` block. */
export function wireitPackages(root: string): string[] {
  const rootManifest = manifestAt(root);
  const out = wireitBlock(rootManifest) === undefined ? [] : ['.'];
  for (const dir of workspaceFolders(root, rootManifest))
    if (wireitBlock(manifestAt(join(root, dir))) !== undefined) out.push(dir);
  return out;
}
