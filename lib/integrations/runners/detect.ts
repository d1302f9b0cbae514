// Which caching runners a guarded run guards: every one the workspace is configured for, plus any the
// command starts, however it starts it.
//
// Owns: `runnerOfStep` (turbo, nx, `pnpm pipeline` named by one simple command), `runnersInCommand` (through
// root scripts, `sh -c`, `npx`/`pnpm exec`/`pnpm dlx`, scripts calling scripts: package-managers/script-walk),
// `configuredRunners` (what the workspace's own files say: turbo.json/turbo.jsonc, nx.json or nx in the root
// manifest, `tasks`/`pipelines` in pnpm-workspace.yaml) and `resolveGuard`, which combines them with `--runner`.
// Invariants: reads only small config files (a few lstats and the root package.json); never runs anything;
// the command only attributes (whose summary to read first) and adds runners no file names: it never removes a
// configured one. `--runner <name>` overrides; `--runner none` guards no runner cache.

import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyCommand, executableName } from '../package-managers/argv.js';
import { walkCommand, type Step } from '../package-managers/script-walk.js';
import { scriptsOf } from '../package-managers/scripts.js';
import type { RunnerName } from './types.js';

export type GuardedRunner = Exclude<RunnerName, 'none'>;

/** The runner one simple command starts directly, if any. */
export function runnerOfStep(argv: readonly string[]): GuardedRunner | undefined {
  const head = argv[0];
  if (head === undefined) return undefined;
  const name = executableName(head);
  if (name === 'turbo') return 'turbo';
  if (name === 'nx') return 'nx';
  const cmd = classifyCommand(argv);
  if (cmd?.manager === 'pnpm' && cmd.command === 'pipeline') return 'pnpm-pipeline';
  return undefined;
}

/** Every simple command `argv` may start, through the scripts of the packages it runs in. */
export function stepsOf(argv: readonly string[], cwd: string): Step[] {
  return walkCommand(argv, { cwd, scriptsOf });
}

/** The runners the command starts (first seen first), through scripts and launchers. */
export function runnersInCommand(argv: readonly string[], cwd: string, steps: readonly Step[] = stepsOf(argv, cwd)): GuardedRunner[] {
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

function present(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** A top-level `tasks:` or `pipelines:` key in pnpm-workspace.yaml (pnpm 12's pipeline). */
export function hasPipelineTasks(workspaceYaml: string | Buffer | undefined): boolean {
  if (workspaceYaml === undefined) return false;
  const text = typeof workspaceYaml === 'string' ? workspaceYaml : workspaceYaml.toString('utf8');
  return /^(tasks|pipelines):/m.test(text);
}

function nxInManifest(root: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    return ['dependencies', 'devDependencies'].some((field) => {
      const deps = manifest[field];
      return deps !== null && typeof deps === 'object' && 'nx' in deps;
    });
  } catch {
    return false;
  }
}

export interface ConfigHints {
  /** pnpm-workspace.yaml's bytes when the caller already read them (the table did). */
  readonly workspaceYaml?: Buffer | undefined;
}

/** The runners the workspace at `root` is configured for, from its own files. */
export function configuredRunners(root: string, hints: ConfigHints = {}): GuardedRunner[] {
  const found: GuardedRunner[] = [];
  if (present(join(root, 'turbo.json')) || present(join(root, 'turbo.jsonc'))) found.push('turbo');
  if (present(join(root, 'nx.json')) || nxInManifest(root)) found.push('nx');
  let yaml = hints.workspaceYaml;
  if (yaml === undefined && present(join(root, 'pnpm-workspace.yaml'))) {
    try {
      yaml = readFileSync(join(root, 'pnpm-workspace.yaml'));
    } catch {
      yaml = undefined;
    }
  }
  if (hasPipelineTasks(yaml)) found.push('pnpm-pipeline');
  return found;
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
export function resolveGuard(argv: readonly string[], root: string, cwd: string, override: RunnerName | undefined, hints: ConfigHints = {}, steps?: readonly Step[]): GuardPlan {
  if (override === 'none') return { runners: [], started: [], source: 'flag' };
  if (override !== undefined) return { runners: [override], started: [override], source: 'flag' };
  const started = runnersInCommand(argv, cwd, steps);
  const runners = [...started];
  for (const runner of configuredRunners(root, hints)) if (!runners.includes(runner)) runners.push(runner);
  return { runners, started, source: runners.length === 0 ? 'none' : 'workspace' };
}
