// Finding a workspace's per-project runner config files (package-level turbo.json, nx's project.json).
//
// Owns: `configFilesUnder(root, names, options)`: every file named one of `names` in a folder under `root`
// (not the root itself), first name found per folder, sorted; never inside node_modules or a dot folder.
// Invariants: read-only; an unreadable folder is skipped (what cannot be listed holds nothing to edit);
// links to folders are not followed (a workspace project is a real folder); a config file may be a link.

import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Folders never searched. */
const NEVER_SEARCHED = /^(node_modules|\..*)$/;
/** How deep under the root project folders are looked for (apps/web, packages/group/lib, ...). */
const SEARCH_DEPTH = 5;

/**
 * The first of `names` in `dir` that is not a folder, as a path: it is read through the bounded reader,
 * which follows a link to a regular file inside the workspace and refuses anything else (a FIFO, a device),
 * naming it.
 */
export function fileIn(dir: string, names: readonly string[]): string | undefined {
  return names
    .map((name) => join(dir, name))
    .find((path) => {
      const stats = lstatSync(path, { throwIfNoEntry: false });
      return stats !== undefined && !stats.isDirectory();
    });
}

export function configFilesUnder(
  root: string,
  names: readonly string[],
  options: { withPackageJson: boolean },
): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (
      dir !== root &&
      (!options.withPackageJson || entries.some((entry) => entry.name === 'package.json' && entry.isFile()))
    ) {
      const file = fileIn(dir, names);
      if (file !== undefined) found.push(file);
    }
    if (depth === 0) return;
    for (const entry of entries)
      if (entry.isDirectory() && !NEVER_SEARCHED.test(entry.name)) walk(join(dir, entry.name), depth - 1);
  };
  walk(root, SEARCH_DEPTH);
  return found.sort();
}
