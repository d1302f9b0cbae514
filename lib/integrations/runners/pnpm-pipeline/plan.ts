// pnpm 12's `pnpm pipeline` task graph for a plan: the same command with `--dry-run --json`.
//
// Owns: reading `{tasks: [{project, script, missingScript, dependsOn: [{project, script}]}]}` into a
// RunnerGraph, each task's command from its project's package.json, and `cache: false` from the
// `tasks:` section of pnpm-workspace.yaml (a line scan).
// Keys: the pipeline keys every task up front after one frozen install and never re-checks
// (test/e2e/poisoning.test.ts): no key folds the fingerprint as the watch sees it. Its own install is frozen: no writer.
// Tasks see `pnpm_config_verify_deps_before_run=false`, so a nested `pnpm run` does not install.

import { join } from 'node:path';
import type { PnpmSettings } from '../../plan/pnpm-settings.js';
import { runDry, type SpawnOptions } from '../../plan/spawn-runner.js';
import { taskWrite } from '../../plan/task-writes.js';
import { scriptsOf } from '../../package-managers/scripts.js';
import { planError, type PlannedTask, type RunnerGraph } from '../../plan/types.js';
import { readConfigText } from '../../../core/bounded-read.js';

interface PipelineTask {
  readonly project?: unknown;
  readonly script?: unknown;
  readonly missingScript?: unknown;
  readonly dependsOn?: readonly { readonly project?: unknown; readonly script?: unknown }[];
}

/** Task names whose pnpm-workspace.yaml entry says `cache: false`. */
function uncachedPipelineTasks(root: string): Set<string> {
  const found = new Set<string>();
  let text: string;
  try {
    text = readConfigText(join(root, 'pnpm-workspace.yaml')) ?? '';
  } catch {
    return found;
  }
  let inTasks = false;
  let current = '';
  for (const line of text.split('\n')) {
    if (/^\S/.test(line)) inTasks = /^tasks:\s*$/.test(line);
    else if (inTasks && /^ {2}\S/.test(line))
      current = line
        .trim()
        .replace(/:.*$/, '')
        .replace(/^['"]|['"]$/g, '');
    else if (inTasks && /^ {4}cache:\s*false\s*$/.test(line)) found.add(current);
  }
  return found;
}

const idOf = (project: unknown, script: unknown): string => `${String(project)}#${String(script)}`;

function pipelineGraph(json: string, root: string, settings: PnpmSettings): RunnerGraph {
  let parsed: { tasks?: unknown };
  try {
    parsed = JSON.parse(json.slice(json.indexOf('{'))) as { tasks?: unknown };
  } catch {
    throw planError(
      'pnpm pipeline --dry-run --json did not print JSON.',
      'Run it yourself to see what it prints (pnpm 12 or later).',
      root,
    );
  }
  if (!Array.isArray(parsed.tasks))
    throw planError("pnpm pipeline's dry-run JSON has no tasks list.", 'Use pnpm 12 or later.', root);
  const uncached = uncachedPipelineTasks(root);
  const all = parsed.tasks as PipelineTask[];
  const ids = new Set(all.map((task) => idOf(task.project, task.script)));
  const tasks: PlannedTask[] = all.map((task) => {
    const directory = typeof task.project === 'string' && task.project !== '' ? task.project : '.';
    const script = String(task.script);
    const command = task.missingScript === true ? undefined : scriptsOf(join(root, directory))[script];
    const write = taskWrite({ root, directory, command, settings, viaPnpmRun: false, nestedPnpmRunInstalls: false });
    const dependsOn = (task.dependsOn ?? []).map((dep) => idOf(dep.project, dep.script)).filter((dep) => ids.has(dep));
    return {
      id: idOf(task.project, task.script),
      dependsOn,
      cached: !uncached.has(script),
      foldsFingerprint: false,
      directory,
      command,
      ...write,
    };
  });
  return {
    runner: 'pnpm-pipeline',
    tasks,
    notes: ['pnpm pipeline installs with a frozen lockfile and turns verifyDepsBeforeRun off for its tasks'],
  };
}

export async function planPipeline(
  argv: readonly string[],
  options: SpawnOptions,
  settings: PnpmSettings,
): Promise<RunnerGraph> {
  const args = argv.filter((arg) => arg !== '--dry-run' && arg !== '--json');
  return pipelineGraph(await runDry([...args, '--dry-run', '--json'], options), options.root, settings);
}
