// The shapes every runner adapter of `lockguard plan` returns, and the small helpers they share.
//
// Owns: `RunnerGraph` (the task graph as the runner itself reports it, lowered to core's PlanTask plus
// where and what each task runs), and the ERR_LOCKGUARD_PLAN error shape.
// Invariants: adapters never decide stability (core/key-stability.ts does); they only report the graph.

import { LockguardError } from '../../core/errors.js';
import type { PlanTask } from '../../core/key-stability.js';
import type { RunnerName } from '../runners/types.js';

/** What planned the graph: a runner's adapter (by name), a pnpm -r/--filter run, or a plain command. */
export type RunnerKind = Exclude<RunnerName, 'none'> | 'pnpm-recursive' | 'command';

export interface PlannedTask extends PlanTask {
  /** Workspace-relative folder the task runs in ('.' for the root). */
  readonly directory: string;
  /** The command line it runs, when the runner says (a script body). */
  readonly command: string | undefined;
}

export interface RunnerGraph {
  readonly runner: RunnerKind;
  readonly tasks: readonly PlannedTask[];
  /** What the plan assumed, for the report: "pnpm 12 default: pnpm run installs first". */
  readonly notes: readonly string[];
}

export function planError(message: string, hint: string, path?: string): LockguardError {
  return new LockguardError('ERR_LOCKGUARD_PLAN', message, path === undefined ? { hint } : { hint, path });
}
