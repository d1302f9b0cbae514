// Which pnpm command loaded the pnpmfile: recovering its argv from inside pnpm's processes.
//
// Owns: recovering pnpm's argv (pnpm 10 runs hooks in its own process, so `process.argv` holds it; pnpm 12
// runs them in `node` helper processes with an empty argv, whose parent is the pnpm process: its
// `/proc/<ppid>/cmdline` holds it on Linux). What the argv means is package-managers/argv.ts's to say.
// Invariants: Node builtins only (loaded inside pnpm); never throws; unknown is `undefined`, never a guess
// that refuses: a command we cannot name is left to `frozenLockfile`, `afterAllResolved` and the run's
// final check.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readConfigText } from '../../core/bounded-read.js';

/** pnpm's own argv (after the executable), from this process (pnpm 10) or its parent (pnpm 12 helpers). */
export function pnpmArgv(
  argv: readonly string[] = process.argv,
  ppid: number = process.ppid,
): readonly string[] | undefined {
  // pnpm 10: [node, pnpm.cjs, ...args]. pnpm 12 helper: [node] only.
  if (argv.length >= 2) return argv.slice(2);
  try {
    const words = readFileSync(`/proc/${ppid}/cmdline`, 'utf8').split('\0');
    if (words.at(-1) === '') words.pop();
    return words.slice(1);
  } catch {
    return undefined;
  }
}

/**
 * The major version of the pnpm running hooks in this very process (pnpm <= 11 do; pnpm 12 runs them in
 * helpers, where this is undefined): read from the package.json above its entry script. Read only inside a
 * refusing run, to decide whether `afterAllResolved` may be registered.
 */
/** pnpm's package.json sits at most this many folders above its entry script (bin/pnpm.cjs, dist/pnpm.cjs). */
const PNPM_MANIFEST_LEVELS = 3;

export function inProcessPnpmMajor(argv: readonly string[] = process.argv): number | undefined {
  const entry = argv[1];
  if (argv.length < 2 || entry === undefined) return undefined;
  for (let dir = dirname(entry), up = 0; up < PNPM_MANIFEST_LEVELS; dir = dirname(dir), up++) {
    try {
      const manifest = JSON.parse(readConfigText(join(dir, 'package.json')) ?? '') as {
        name?: unknown;
        version?: unknown;
      };
      if (typeof manifest.version === 'string' && typeof manifest.name === 'string' && manifest.name.includes('pnpm')) {
        const major = Number(manifest.version.split('.')[0]);
        return Number.isInteger(major) ? major : undefined;
      }
    } catch {
      // No manifest at this level: look one up.
    }
  }
  return undefined;
}
