// What a runner's own plan showed about its cached tasks and their slice files, as one doctor finding.
//
// Owns: `Findings` (cached tasks; those that leave the file out; those that name it but whose project has
// none written yet) and `judge` (ok / warn / fail with the fix), shared by the turbo and nx proofs.
// Invariants: pure; a task that leaves its file out is always named (at most five, then how many more).

import { SLICE_FILE, SOUND_KEYS_FIX, type SoundCheck } from './types.js';

export interface Findings {
  readonly cached: number;
  readonly missing: readonly string[];
  readonly unwritten: readonly string[];
}

/** Names, at most a few, then how many more. */
export function someOf(names: readonly string[], limit = 5): string {
  return `${names.slice(0, limit).join(', ')}${names.length > limit ? ` (+${names.length - limit} more)` : ''}`;
}

/** One finding from what a runner's plan showed. */
export function judge(runner: 'turbo' | 'nx', found: Findings): SoundCheck {
  const folded = found.cached - found.missing.length - found.unwritten.length;
  if (found.missing.length > 0) {
    return {
      runner,
      // Nothing folds the file yet: sound keys are not set up (a warning); some do, some do not: a hole (a failure).
      level: folded + found.unwritten.length === 0 ? 'warn' : 'fail',
      detail: `${found.missing.length} of ${found.cached} cached ${runner} tasks do not fold their project's ${SLICE_FILE}, so a lockfile change ${runner} misses can replay their outputs: ${someOf(found.missing)}`,
      fix: SOUND_KEYS_FIX,
    };
  }
  if (found.unwritten.length > 0) {
    return {
      runner,
      level: 'warn',
      detail: `every cached ${runner} task names its ${SLICE_FILE}, but ${found.unwritten.length} projects have none written yet: ${someOf(found.unwritten)}`,
      fix: 'lockguard key --write-slices (lockguard run and the install hooks write them too).',
    };
  }
  return { runner, level: 'ok', detail: `all ${found.cached} cached ${runner} tasks fold their project's ${SLICE_FILE} (${runner}'s own plan says so)` };
}
