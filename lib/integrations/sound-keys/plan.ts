// `lockguard plan`'s sound-keys line: which cached tasks' keys fold their project's `.lockguard-slice`, which
// leave it out, and (given what the slice writer would write) whose keys would change.
//
// Owns: `hasSoundKeys(runner)` and `sliceKeysFor(argv, root, env, expected?)`: every command `argv` starts
// (through root scripts, npx, pnpm exec: runners/detect.ts `stepsOf`) that starts a runner with sound keys
// (turbo, nx), each asked for its own plan once more (the adapter's `soundKeys.folds`: turbo's dry run
// `tasks[].inputs`, nx's `--graph=stdout` `taskPlans`), as findings.ts `TaskFold`s.
// Cost: one more dry run per runner step than the plan's own (the plan's graph does not keep the runner's
// JSON); nothing for a command that starts neither runner.
// Invariants: never writes; a dry run that fails is the plan's own ERR_LOCKGUARD_PLAN (it ran the same).

import type { Env } from '../../core/env.js';
import { adapterFor, RUNNERS, runnerOfStep, stepsOf } from '../runners/index.js';
import { keysWouldChange, type TaskFold } from './findings.js';

export interface SliceKeys {
  /** Cached tasks whose keys fold their project's slice file. */
  readonly folded: readonly string[];
  /** Cached tasks whose keys leave it out (the fix: lockguard init --sound-keys). */
  readonly leftOut: readonly string[];
  /** With `expected`: the folding tasks whose file holds other bytes than the writer would write. */
  readonly wouldChange?: readonly string[];
}

/** Whether the runner named `runner` (a plan's `runner`) has sound keys: its keys can fold the slice files. */
export function hasSoundKeys(runner: string): boolean {
  return RUNNERS.some((adapter) => adapter.name === runner && adapter.soundKeys !== undefined);
}

/** The sound-keys view of the steps of `argv` that start a runner with sound keys; undefined when none does. */
export async function sliceKeysFor(
  argv: readonly string[],
  root: string,
  env: Env,
  expected?: ReadonlyMap<string, string>,
): Promise<SliceKeys | undefined> {
  const folds: TaskFold[] = [];
  let found = false;
  for (const step of stepsOf(argv, root)) {
    const runner = runnerOfStep(step.argv);
    const side = runner === undefined ? undefined : adapterFor(runner).soundKeys;
    if (side === undefined) continue;
    folds.push(...(await side.folds(step.argv, root, env)));
    found = true;
  }
  if (!found) return undefined;
  return {
    folded: folds.filter((task) => task.folds).map((task) => task.id),
    leftOut: folds.filter((task) => !task.folds).map((task) => task.id),
    ...(expected === undefined ? {} : { wouldChange: keysWouldChange(folds, root, expected) }),
  };
}
