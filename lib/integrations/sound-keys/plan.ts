// `lockguard plan`'s sound-keys line: which cached tasks' keys fold their project's `.lockguard-slice`, which
// leave it out, and (given what the slice writer would write) whose keys would change.
//
// Owns: `sliceKeysFor(argv, root, env, expected?)`: every turbo or nx command `argv` starts (through root
// scripts, npx, pnpm exec: runners/detect.ts `stepsOf`), each asked for its own plan once more (turbo's dry
// run: `tasks[].inputs`; nx's `--graph=stdout`: `taskPlans`), lowered to findings.ts `TaskFold`s.
// Cost: one more dry run per runner step than the plan's own (the plan's graph does not keep the runner's
// JSON); nothing for a command that starts neither runner.
// Invariants: never writes; a dry run that fails is the plan's own ERR_LOCKGUARD_PLAN (it ran the same).

import type { Env } from '../../core/env.js';
import { nxGraphArgv } from '../runners/nx/plan.js';
import { runDry } from '../plan/spawn-runner.js';
import { turboDryArgv } from '../runners/turbo/plan.js';
import { runnerOfStep, stepsOf } from '../runners/index.js';
import { keysWouldChange, type TaskFold } from './findings.js';
import { nxFolds } from './nx.js';
import { turboFolds } from './turbo.js';

export interface SliceKeys {
  /** Cached tasks whose keys fold their project's slice file. */
  readonly folded: readonly string[];
  /** Cached tasks whose keys leave it out (the fix: lockguard init --sound-keys). */
  readonly leftOut: readonly string[];
  /** With `expected`: the folding tasks whose file holds other bytes than the writer would write. */
  readonly wouldChange?: readonly string[];
}

/** The sound-keys view of `argv`'s turbo and nx steps; undefined when it starts neither. */
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
    if (runner === 'turbo') folds.push(...turboFolds(await runDry(turboDryArgv(step.argv), { root, env }), root));
    else if (runner === 'nx') folds.push(...nxFolds(await runDry(nxGraphArgv(step.argv), { root, env })));
    else continue;
    found = true;
  }
  if (!found) return undefined;
  return {
    folded: folds.filter((task) => task.folds).map((task) => task.id),
    leftOut: folds.filter((task) => !task.folds).map((task) => task.id),
    ...(expected === undefined ? {} : { wouldChange: keysWouldChange(folds, root, expected) }),
  };
}
