// Which caching runners a guarded run guards: every one the workspace is configured for, plus any the
// command starts, however it starts it.
//
// Owns: `runnerOfStep` (the runner one simple command starts: each adapter's `startedBy`), `runnersInCommand`
// (through root scripts, `sh -c`, `npx`/`pnpm exec`/`pnpm dlx`, scripts calling scripts:
// package-managers/script-walk), `configuredRunners` (what the workspace's own files say: each adapter's
// `configuredAt`) and `resolveGuard`, which combines them with `--runner`.
// Invariants: reads only small config files (a few lstats and the root package.json); never runs anything;
// the command only attributes (whose summary to read first) and adds runners no file names: it never removes a
// configured one. `--runner <name>` overrides; `--runner none` guards no runner cache.

import { walkCommand, type Step } from '../package-managers/script-walk.js';
import { scriptsOf } from '../package-managers/scripts.js';
import type { ConfigHints, GuardedRunner } from './adapter.js';
import { RUNNERS } from './registry.js';
import type { RunnerName } from './types.js';

export type { ConfigHints, GuardedRunner } from './adapter.js';

/** The runner one simple command starts directly, if any. */
export function runnerOfStep(argv: readonly string[]): GuardedRunner | undefined {
  if (argv[0] === undefined) return undefined;
  return RUNNERS.find((adapter) => adapter.startedBy(argv))?.name;
}

/** Every simple command `argv` may start, through the scripts of the packages it runs in. */
export function stepsOf(argv: readonly string[], cwd: string): Step[] {
  return walkCommand(argv, { cwd, scriptsOf });
}

/** The runners the command starts (first seen first), through scripts and launchers. */
export function runnersInCommand(
  argv: readonly string[],
  cwd: string,
  steps: readonly Step[] = stepsOf(argv, cwd),
): GuardedRunner[] {
  const found: GuardedRunner[] = [];
  for (const step of steps) {
    const runner = runnerOfStep(step.argv);
    if (runner !== undefined && !found.includes(runner)) found.push(runner);
  }
  return found;
}

/** The runner the command starts, or 'none': the first one `runnersInCommand` finds. */
export function detectRunner(argv: readonly string[], cwd = process.cwd()): RunnerName {
  return runnersInCommand(argv, cwd)[0] ?? 'none';
}

/** The runners the workspace at `root` is configured for, from its own files. */
export function configuredRunners(root: string, hints: ConfigHints = {}): GuardedRunner[] {
  return RUNNERS.filter((adapter) => adapter.configuredAt(root, hints)).map((adapter) => adapter.name);
}

export interface GuardPlan {
  /** Every runner whose cache this run guards, the command's own first. */
  readonly runners: readonly GuardedRunner[];
  /** The runners the command itself starts (whose summaries say which tasks ran). */
  readonly started: readonly GuardedRunner[];
  /** How the list was chosen, for the report. */
  readonly source: 'flag' | 'workspace' | 'none';
}

/** What a guarded run guards: `--runner` when given, else the command's runners plus the configured ones. */
export function resolveGuard(
  argv: readonly string[],
  root: string,
  cwd: string,
  override: RunnerName | undefined,
  hints: ConfigHints = {},
  steps?: readonly Step[],
): GuardPlan {
  if (override === 'none') return { runners: [], started: [], source: 'flag' };
  if (override !== undefined) return { runners: [override], started: [override], source: 'flag' };
  const started = runnersInCommand(argv, cwd, steps);
  const runners = [...started];
  for (const runner of configuredRunners(root, hints)) if (!runners.includes(runner)) runners.push(runner);
  return { runners, started, source: runners.length === 0 ? 'none' : 'workspace' };
}
