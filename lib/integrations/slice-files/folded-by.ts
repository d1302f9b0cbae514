// Which runners of a workspace fold its per-project slice files (`.lockguard-slice`) into their keys.
//
// Owns: the adoption question the slice-file writers ask before writing into a workspace that never asked
// for the files (`lockguard run` and the install hooks write them only where a runner folds them, or where
// lockguard already wrote them once: run/slice-files.ts's record), and the runner names the status line says.
// The answer is read from the runners' own configuration as `lockguard init --sound-keys` writes it: turbo
// when the root turbo.json (or turbo.jsonc) names the file, nx when nx.json or .nxignore does (nx hashes a
// gitignored file only once .nxignore un-ignores it).
// Invariants: reads at most four files, only when asked (never on a run whose record is current), each
// through the bounded reader (core/bounded-read.ts: never a device or FIFO, at most 16 MiB, a link only to a
// file inside the workspace); an absent config folds nothing; one the bounded reader refuses is its
// LockguardError (the CLI exits 2 naming it; the install hooks turn it into their warning line).

import { join } from 'node:path';
import { readBounded } from '../../core/bounded-read.js';
import { SLICE_FILE } from '../../run/slice-files.js';
import type { RunnerName } from '../runners/types.js';

/** A runner whose keys can fold the slice files (its adapter has `soundKeys`). */
export type SliceRunner = Exclude<RunnerName, 'none'>;

/**
 * Each runner adapter's `soundKeys.configFiles`, written out: the install hooks read this module without
 * loading the adapters (test/integrations/runners/registry.test.ts holds the two equal).
 */
export const CONFIGS: ReadonlyArray<readonly [runner: SliceRunner, file: string]> = [
  ['turbo', 'turbo.json'],
  ['turbo', 'turbo.jsonc'],
  ['nx', 'nx.json'],
  ['nx', '.nxignore'],
];

function names(root: string, file: string): boolean {
  return readBounded(join(root, file), { kind: 'config', root })?.includes(SLICE_FILE) === true;
}

/**
 * The runners whose configuration at `root` names `.lockguard-slice`, in a fixed order; `among`: only these
 * are asked (a run passes the runners it found configured, so a workspace with neither reads nothing).
 */
export function runnersFoldingSlices(root: string, among?: readonly string[]): SliceRunner[] {
  const found: SliceRunner[] = [];
  for (const [runner, file] of CONFIGS) {
    if (among !== undefined && !among.includes(runner)) continue;
    if (!found.includes(runner) && names(root, file)) found.push(runner);
  }
  return found;
}
