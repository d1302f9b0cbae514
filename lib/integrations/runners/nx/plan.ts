// nx's task graph for a plan: the same command with `--graph=stdout` (nx 24 prints the project graph and
// the task graph as JSON instead of running).
//
// Owns: reading `tasks.tasks` (id, target, projectRoot, cache) and `tasks.dependencies` (ids or {id}),
// and each task's command from the project graph: `nx:run-script` (metadata.scriptContent, started with
// the package manager's run) and `nx:run-commands` (options.command / options.commands).
// Lerna (`lerna run`, no --graph of its own): the graph of the `nx run-many` it starts, asked of Lerna's nx.
// Keys: nx hashes every task up front and never re-keys after a write (test/e2e/poisoning.test.ts): no key folds the
// fingerprint as the watch sees it. Other executors run no command lockguard can read: not writers.

import { printable } from '../../../core/printable.js';
import type { PnpmSettings } from '../../plan/pnpm-settings.js';
import { runDry, type SpawnOptions } from '../../plan/spawn-runner.js';
import { taskWrite } from '../../plan/task-writes.js';
import { planError, type PlannedTask, type RunnerGraph } from '../../plan/types.js';
import { executableName } from '../../package-managers/argv.js';
import { nxCommand, whichNx } from './which.js';

interface NxTarget {
  readonly executor?: unknown;
  readonly metadata?: { readonly scriptContent?: unknown; readonly runCommand?: unknown };
  readonly options?: { readonly command?: unknown; readonly commands?: unknown };
}

function nxGraphArgv(argv: readonly string[]): string[] {
  return [...argv.filter((arg) => !arg.startsWith('--graph')), '--graph=stdout'];
}

function commandOf(target: NxTarget | undefined): { command: string | undefined; viaRun: boolean } {
  if (target === undefined) return { command: undefined, viaRun: false };
  if (target.executor === 'nx:run-script') {
    const script = target.metadata?.scriptContent;
    return {
      command: typeof script === 'string' ? script : undefined,
      viaRun: String(target.metadata?.runCommand ?? '').startsWith('pnpm '),
    };
  }
  if (target.executor === 'nx:run-commands') {
    const { command, commands } = target.options ?? {};
    if (typeof command === 'string') return { command, viaRun: false };
    if (Array.isArray(commands)) {
      const lines = commands
        .map((entry: unknown) =>
          typeof entry === 'string'
            ? entry
            : typeof (entry as { command?: unknown })?.command === 'string'
              ? (entry as { command: string }).command
              : '',
        )
        .filter(Boolean);
      return { command: lines.join(' ; '), viaRun: false };
    }
  }
  return { command: undefined, viaRun: false };
}

function nxGraph(json: string, root: string, settings: PnpmSettings): RunnerGraph {
  let parsed: {
    graph?: { nodes?: Record<string, { data?: { targets?: Record<string, NxTarget> } }> };
    tasks?: { tasks?: unknown; dependencies?: unknown };
  };
  try {
    parsed = JSON.parse(json.slice(json.indexOf('{'))) as typeof parsed;
  } catch {
    throw planError(
      "nx's --graph=stdout did not print JSON.",
      'Run the nx command with --graph=stdout yourself to see what it prints.',
      root,
    );
  }
  const table = parsed.tasks?.tasks;
  if (table === null || typeof table !== 'object')
    throw planError(
      "nx's graph output has no task graph (tasks.tasks).",
      'Plan a command that runs targets: nx run-many -t build, nx run b:build, nx affected -t build.',
      root,
    );
  const deps = (parsed.tasks?.dependencies ?? {}) as Record<string, unknown>;
  const tasks: PlannedTask[] = Object.entries(
    table as Record<string, { target?: { project?: string; target?: string }; projectRoot?: string; cache?: unknown }>,
  ).map(([id, task]) => {
    const project = task.target?.project ?? '';
    const target = parsed.graph?.nodes?.[project]?.data?.targets?.[task.target?.target ?? ''];
    const { command, viaRun } = commandOf(target);
    const directory = typeof task.projectRoot === 'string' && task.projectRoot !== '' ? task.projectRoot : '.';
    const write = taskWrite({
      root,
      directory,
      command,
      settings,
      viaPnpmRun: viaRun,
      nestedPnpmRunInstalls: settings.verifyDepsBeforeRun === 'install',
    });
    const list = Array.isArray(deps[id]) ? (deps[id] as unknown[]) : [];
    const dependsOn = list
      .map((dep) => (typeof dep === 'string' ? dep : String((dep as { id?: unknown })?.id)))
      .filter((dep) => dep in (table as object));
    return { id, dependsOn, cached: task.cache === true, foldsFingerprint: false, directory, command, ...write };
  });
  return { runner: 'nx', tasks, notes: [] };
}

export async function planNx(
  argv: readonly string[],
  options: SpawnOptions,
  settings: PnpmSettings,
): Promise<RunnerGraph> {
  return nxGraph(await nxDryRun(argv, options), options.root, settings);
}

/**
 * nx's `--graph=stdout` output for the command `argv`: the command itself with the flag, or for `lerna run`
 * (no --graph: Lerna 9.0.7 says "Unknown argument: graph") the `nx run-many` Lerna starts, asked of Lerna's nx.
 */
export async function nxDryRun(argv: readonly string[], options: SpawnOptions): Promise<string> {
  if (executableName(argv[0] ?? '') !== 'lerna') return await runDry(nxGraphArgv(argv), options);
  const nx = nxCommand(whichNx(options.root), options.env);
  const dry = [...nx.argv, 'run-many', ...lernaAsNx(argv, options.root), '--graph=stdout'];
  return await runDry(dry, { ...options, env: { ...options.env, ...nx.env } });
}

/** Lerna's flags that only shape its output or its concurrency, with how many values each takes. */
const LERNA_OUTPUT_FLAGS: Readonly<Record<string, number>> = {
  '--stream': 0,
  '--parallel': 0,
  '--no-bail': 0,
  '--no-prefix': 0,
  '--loglevel': 1,
  '--concurrency': 1,
};

/**
 * `lerna run <script> [--scope <p>]... [--ignore <p>]...` as the `nx run-many` arguments Lerna (6 and newer)
 * starts nx with: the script as nx's target, `--scope` as `--projects`, `--ignore` as `--exclude` (Lerna's
 * package names are nx's project names); output flags dropped. Any other flag is refused with the nx command to
 * plan instead: what it selects is Lerna's to say, and a guess would plan other tasks than the run's.
 */
function lernaAsNx(argv: readonly string[], root: string): string[] {
  const [, verb, script, ...rest] = argv;
  const fix = `Plan the nx command Lerna runs for it: lockguard plan -- nx run-many -t ${script ?? '<script>'} [--projects <names>] [--exclude <names>].`;
  if (verb !== 'run' || script === undefined || script.startsWith('-'))
    throw planError('lockguard plan reads Lerna through "lerna run <script>" only.', fix, root);
  const out = ['-t', script];
  for (let at = 0; at < rest.length; at++) {
    const word = rest[at] ?? '';
    const [flag, inline] = word.includes('=')
      ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]
      : [word, undefined];
    const value = (): string => {
      const given = inline ?? rest[++at];
      if (given === undefined) throw planError(`lerna run's ${flag} needs a value.`, fix, root);
      return given;
    };
    if (flag === '--scope') out.push('--projects', value());
    else if (flag === '--ignore') out.push('--exclude', value());
    else if (flag in LERNA_OUTPUT_FLAGS) at += inline === undefined ? (LERNA_OUTPUT_FLAGS[flag] ?? 0) : 0;
    else
      throw planError(
        `lockguard plan does not read lerna run's ${printable(flag).slice(0, 40)} (only --scope and --ignore).`,
        fix,
        root,
      );
  }
  return out;
}
