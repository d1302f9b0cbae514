// turbo's task graph for a plan: `turbo run … --dry=json`.
//
// Owns: reading turbo 2's dry-run JSON (`tasks[]`: taskId, command, directory, dependencies,
// resolvedTaskDefinition.cache) into a RunnerGraph.
// Keys: turbo hashes each task once, up front, from the lockfile as parsed at the start, and never
// re-keys after a write (test/e2e/poisoning.test.ts): no task's key folds the fingerprint as the watch sees it.
// Tasks whose script does not exist (`<NONEXISTENT>`) run nothing and write nothing.

import type { PnpmSettings } from '../../plan/pnpm-settings.js';
import { runDry, type SpawnOptions } from '../../plan/spawn-runner.js';
import { taskWrite } from '../../plan/task-writes.js';
import { planError, type PlannedTask, type RunnerGraph } from '../../plan/types.js';

interface TurboTask {
  readonly taskId?: unknown;
  readonly command?: unknown;
  readonly directory?: unknown;
  readonly dependencies?: unknown;
  readonly resolvedTaskDefinition?: { readonly cache?: unknown };
}

export function turboDryArgv(argv: readonly string[]): string[] {
  return [...argv.filter((arg) => !arg.startsWith('--dry') && !arg.startsWith('--graph')), '--dry=json'];
}

function turboGraph(json: string, root: string, settings: PnpmSettings, pnpmWorkspace: boolean): RunnerGraph {
  let parsed: { tasks?: unknown };
  try {
    parsed = JSON.parse(json.slice(json.indexOf('{'))) as { tasks?: unknown };
  } catch {
    throw planError(
      "turbo's dry run did not print JSON.",
      'Run turbo run <task> --dry=json yourself to see what it prints.',
      root,
    );
  }
  if (!Array.isArray(parsed.tasks))
    throw planError(
      "turbo's dry-run JSON has no tasks list.",
      'Upgrade turbo to 2.x, or run its dry run yourself.',
      root,
    );
  const ids = new Set((parsed.tasks as TurboTask[]).map((task) => String(task.taskId)));
  const tasks: PlannedTask[] = (parsed.tasks as TurboTask[]).map((task) => {
    const id = String(task.taskId);
    const raw = typeof task.command === 'string' ? task.command : undefined;
    const command = raw === undefined || raw === '<NONEXISTENT>' ? undefined : raw;
    const directory = typeof task.directory === 'string' && task.directory !== '' ? task.directory : '.';
    const write = taskWrite({
      root,
      directory,
      command,
      settings,
      viaPnpmRun: pnpmWorkspace,
      nestedPnpmRunInstalls: settings.verifyDepsBeforeRun === 'install',
    });
    const dependsOn = Array.isArray(task.dependencies)
      ? task.dependencies.map(String).filter((dep) => ids.has(dep))
      : [];
    return {
      id,
      dependsOn,
      cached: task.resolvedTaskDefinition?.cache !== false,
      foldsFingerprint: false,
      directory,
      command,
      ...write,
    };
  });
  const notes =
    pnpmWorkspace && settings.verifyDepsBeforeRun === 'install'
      ? [
          `turbo starts each task with pnpm run, which installs first (verifyDepsBeforeRun: install, ${settings.source})`,
        ]
      : [];
  return { runner: 'turbo', tasks, notes };
}

export async function planTurbo(
  argv: readonly string[],
  options: SpawnOptions,
  settings: PnpmSettings,
  pnpmWorkspace: boolean,
): Promise<RunnerGraph> {
  return turboGraph(await runDry(turboDryArgv(argv), options), options.root, settings, pnpmWorkspace);
}
