// nx's task graph for a plan: the same command with `--graph=stdout` (nx 24 prints the project graph and
// the task graph as JSON instead of running).
//
// Owns: reading `tasks.tasks` (id, target, projectRoot, cache) and `tasks.dependencies` (ids or {id}),
// and each task's command from the project graph: `nx:run-script` (metadata.scriptContent, started with
// the package manager's run) and `nx:run-commands` (options.command / options.commands).
// Keys: nx hashes every task up front and never re-keys after a write (test/e2e/poisoning.test.ts): no key folds the
// fingerprint as the watch sees it. Other executors run no command lockguard can read: not writers.

import type { PnpmSettings } from '../../plan/pnpm-settings.js';
import { runDry, type SpawnOptions } from '../../plan/spawn-runner.js';
import { taskWrite } from '../../plan/task-writes.js';
import { planError, type PlannedTask, type RunnerGraph } from '../../plan/types.js';

interface NxTarget {
  readonly executor?: unknown;
  readonly metadata?: { readonly scriptContent?: unknown; readonly runCommand?: unknown };
  readonly options?: { readonly command?: unknown; readonly commands?: unknown };
}

export function nxGraphArgv(argv: readonly string[]): string[] {
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
  return nxGraph(await runDry(nxGraphArgv(argv), options), options.root, settings);
}
