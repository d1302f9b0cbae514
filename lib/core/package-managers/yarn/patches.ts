// The patch files a yarn berry lockfile names (yarn's part of the table: fingerprints.ts asks it through
// yarn's adapter).
//
// Owns: `yarnPatchPaths`. Invariants: a byte scan, never a parse; only paths inside the workspace are named.

import { posix } from 'node:path';
import { yarnFlavor } from './flavor.js';

/**
 * The patch files a yarn berry lockfile names: `name@patch:<inner>#<path>.patch` descriptors and
 * resolutions (`~/` is the project root; builtin patches such as `optional!builtin<compat/fsevents>` are
 * no files). A path relative to a workspace other than the root is resolved against the workspace named by
 * the resolution's `locator=` parameter. Classic (v1) lockfiles have no patch protocol: nothing is found.
 * Found from the `#` each patch path follows, a rare byte (9 us over jest's 0.88 MB lockfile, against
 * 152 us to search for `patch:`); only lines that hold `@patch:` are read.
 */
export function yarnPatchPaths(bytes: Buffer): string[] {
  // yarn v1 has no `patch:` protocol, and each of its `resolved` lines holds a `#`: nothing to find there.
  if (yarnFlavor(bytes) === 'classic') return [];
  const found = new Set<string>();
  for (let at = bytes.indexOf(35); at !== -1; at = bytes.indexOf(35, at + 1)) {
    const start = bytes.lastIndexOf(10, at) + 1;
    const newline = bytes.indexOf(10, at);
    const end = newline === -1 ? bytes.length : newline;
    at = end;
    const line = bytes.subarray(start, end).toString('utf8');
    if (!line.includes('@patch:')) continue;
    for (const match of line.matchAll(/#([^#",]+?\.patch)(?:::([^",\s]*))?(?=[",\s]|$)/g)) {
      const raw = safeDecode(match[1] ?? '');
      let path: string;
      if (raw.startsWith('~/')) path = raw.slice(2);
      else {
        const locator = /(?:^|&)locator=([^&]*)/.exec(match[2] ?? '')?.[1];
        const workspace = locator === undefined ? undefined : /@workspace:(.*)$/.exec(safeDecode(locator))?.[1];
        path = posix.join(workspace === undefined || workspace === '.' ? '' : workspace, raw);
      }
      found.add(path);
    }
  }
  return [...found]
    .map((path) => posix.normalize(path))
    .filter((path) => path !== '' && !path.startsWith('../') && path !== '..' && !posix.isAbsolute(path))
    .sort();
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // A stray % is taken as written: the path is then looked up as it stands (and found absent).
    return text;
  }
}
