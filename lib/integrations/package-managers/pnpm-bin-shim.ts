// pnpm's `node_modules/.bin/<name>` shims: which script one starts, and what it sets on the way.
//
// Owns: `readPnpmBinShim(path)`. pnpm (10 and 12, @zkochan/cmd-shim) writes a bin as a `#!/bin/sh` script,
// not a symlink: it may export `NODE_PATH` (`if [ -z "$NODE_PATH" ]; then export NODE_PATH="<dirs>"; else
// export NODE_PATH="<dirs>:$NODE_PATH"; fi`, unless `extend-node-path` is off) and then execs
// `node "$basedir/<relative target>" "$@"` (or `$basedir/node`, or `.exe` forms on Windows), `$basedir` being
// the shim's own folder. Measured on the shims pnpm 10.34 and 12.4 write (the tests read real ones).
// Invariants: reads one file of at most 16 KB; answers only for a shim of exactly that shape (every `exec`
// starts the same target with node and `"$@"` and nothing else, the only export is NODE_PATH in that form, the
// shim itself is no symlink, so both pnpm versions' `$basedir` are its folder); anything else is undefined.

import { lstatSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { readConfigText } from '../../core/bounded-read.js';

export interface PnpmBinShim {
  /** The script the shim starts (absolute, not resolved through symlinks). */
  readonly target: string;
  /** The folders the shim puts in front of NODE_PATH, or undefined when it leaves NODE_PATH alone. */
  readonly nodePath: string | undefined;
}

const MAX_SHIM_BYTES = 16 * 1024;
const EXEC = /^\s*exec (?:node(?:\.exe)?|"\$basedir\/node(?:\.exe)?") {2}"\$basedir(?:_win)?\/([^"$`\\]+)" "\$@"$/;
const NODE_PATH_FIRST = /^\s*export NODE_PATH="([^"$`\\]*)"$/;
const NODE_PATH_PREPEND = /^\s*export NODE_PATH="([^"$`\\]*):\$NODE_PATH"$/;

/** What the pnpm shim at `path` starts, or undefined when `path` is not one (or not of the shape read). */
export function readPnpmBinShim(path: string): PnpmBinShim | undefined {
  let text: string;
  try {
    const stat = lstatSync(path);
    if (!stat.isFile() || stat.size > MAX_SHIM_BYTES) return undefined;
    text = readConfigText(path) ?? '';
  } catch {
    return undefined;
  }
  if (!text.startsWith('#!/bin/sh\n')) return undefined;
  let target: string | undefined;
  let first: string | undefined;
  let prepend: string | undefined;
  for (const line of text.split('\n')) {
    if (/\bexec\b/.test(line) && !line.trimStart().startsWith('#')) {
      const match = EXEC.exec(line);
      if (match === null || (target !== undefined && target !== match[1])) return undefined;
      target = match[1];
    } else if (/\bexport\b/.test(line) && !line.trimStart().startsWith('#')) {
      const one = NODE_PATH_FIRST.exec(line);
      const two = NODE_PATH_PREPEND.exec(line);
      if (one !== null && first === undefined) first = one[1];
      else if (two !== null && prepend === undefined) prepend = two[1];
      else return undefined;
    }
  }
  if (target === undefined || first !== prepend) return undefined;
  if (first !== undefined && !text.includes('if [ -z "$NODE_PATH" ]; then\n')) return undefined;
  return { target: resolve(dirname(path), target), nodePath: first };
}

/** NODE_PATH as the shim leaves it for what it starts, given the value it found (`[ -z ]`: unset or empty). */
export function shimNodePath(shim: PnpmBinShim, current: string | undefined): string | undefined {
  if (shim.nodePath === undefined) return current;
  return current === undefined || current === '' ? shim.nodePath : `${shim.nodePath}:${current}`;
}
