// lage's target graph for a plan: `lage info <tasks> --reporter json` (lage 2.17.0), which lists every target
// the run would start, with its id (`<package>#<task>`), the folder it runs in, the command it starts and the
// targets it waits for (`dependencies`). Read from lage's bundled source (`DZn`: id, command, dependencies,
// workingDirectory, package, task) and from its output (sound-keys.ts's doctor proof reads the same lines).
//
// Owns: `planLage` (the tasks of argv: its words after `lage` that are not flags) and `lageGraph`.
// A target's command is `[npmClient, "run", task]` for a package script (lage's default): the script's own body
// is what runs, so that is what is judged (its package.json), started through `pnpm run` where the npmClient
// is pnpm (pnpm 11+ installs first). A target whose script is `node …` is given as that command itself.
// Keys: lage parses the lockfile once, when the run starts (test/e2e/lage-poisoning.test.ts), so no target's
// key folds the fingerprint as the watch sees it. lage caches every target (its `cache: false` is per
// pipeline entry and not in `lage info`'s lines): all are counted as cached, which can only flag more.
// Invariants: runs `lage info` only (no target runs); a line that is not lage's JSON is ERR_LOCKGUARD_PLAN.

import { join } from 'node:path';
import { readConfigText } from '../../../core/bounded-read.js';
import type { PnpmSettings } from '../../plan/pnpm-settings.js';
import { runDry, type SpawnOptions } from '../../plan/spawn-runner.js';
import { taskWrite } from '../../plan/task-writes.js';
import { planError, type PlannedTask, type RunnerGraph } from '../../plan/types.js';

interface InfoTask {
  readonly id?: unknown;
  readonly command?: unknown;
  readonly dependencies?: unknown;
  readonly workingDirectory?: unknown;
  readonly package?: unknown;
  readonly task?: unknown;
}

/** The tasks a `lage …` command line names: its words after the executable that are not flags. */
function lageTasks(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (const word of argv.slice(1)) {
    if (word === '--') break;
    if (word.startsWith('-')) continue;
    out.push(word);
  }
  return out;
}

/** The body of `script` in `directory`'s package.json, or undefined. */
function scriptBody(root: string, directory: string, script: string): string | undefined {
  try {
    const scripts = (
      JSON.parse(readConfigText(join(root, directory, 'package.json')) ?? '{}') as {
        scripts?: Record<string, unknown>;
      }
    ).scripts;
    const body = scripts?.[script];
    return typeof body === 'string' ? body : undefined;
  } catch {
    return undefined;
  }
}

function lowered(task: InfoTask, root: string, ids: ReadonlySet<string>, settings: PnpmSettings): PlannedTask {
  const id = String(task.id);
  const directory =
    typeof task.workingDirectory === 'string' && task.workingDirectory !== '' ? task.workingDirectory : '.';
  const argv = Array.isArray(task.command) ? task.command.map(String) : [];
  const viaRun = argv[1] === 'run' && typeof task.task === 'string';
  const command = viaRun
    ? scriptBody(root, directory, String(task.task))
    : argv.length > 0
      ? argv.join(' ')
      : undefined;
  const write = taskWrite({
    root,
    directory,
    command,
    settings,
    viaPnpmRun: viaRun && argv[0] === 'pnpm',
    nestedPnpmRunInstalls: settings.verifyDepsBeforeRun === 'install',
  });
  const dependsOn = Array.isArray(task.dependencies) ? task.dependencies.map(String).filter((dep) => ids.has(dep)) : [];
  return { id, dependsOn, cached: true, foldsFingerprint: false, directory, command, ...write };
}

/** The graph of `lage info`'s JSON reporter output (the line holding `packageTasks`). */
function lageGraph(out: string, root: string, settings: PnpmSettings): RunnerGraph {
  const line = out.split('\n').find((text) => text.includes('"packageTasks"'));
  let tasks: unknown;
  try {
    tasks = (JSON.parse(line ?? '') as { data?: { packageTasks?: unknown } }).data?.packageTasks;
  } catch {
    tasks = undefined;
  }
  if (!Array.isArray(tasks))
    throw planError(
      'lage info did not print its target list (a JSON line with packageTasks).',
      'Run lage info <task> --reporter json yourself to see what it prints (lage 2.17 is the version measured).',
      root,
    );
  const real = (tasks as InfoTask[]).filter(
    (task) => typeof task.id === 'string' && task.id !== '__start' && task.package !== '',
  );
  const ids = new Set(real.map((task) => String(task.id)));
  const notes =
    settings.verifyDepsBeforeRun === 'install' &&
    real.some((task) => Array.isArray(task.command) && task.command[0] === 'pnpm')
      ? [
          `lage starts each target with pnpm run, which installs first (verifyDepsBeforeRun: install, ${settings.source})`,
        ]
      : [];
  return { runner: 'lage', tasks: real.map((task) => lowered(task, root, ids, settings)), notes };
}

export async function planLage(
  argv: readonly string[],
  options: SpawnOptions,
  settings: PnpmSettings,
  _pnpmWorkspace: boolean,
): Promise<RunnerGraph> {
  const tasks = lageTasks(argv);
  if (tasks.length === 0)
    throw planError(
      'Expected the task lage runs (lockguard plan -- lage build).',
      'Name the task after lage, as you would run it.',
      options.root,
    );
  const out = await runDry(['lage', 'info', ...tasks, '--reporter', 'json'], options);
  return lageGraph(out, options.root, settings);
}
