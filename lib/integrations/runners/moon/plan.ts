// moon's task graph for a plan: `moon query projects` (moon 2.5.5), which lists every project with its
// source folder and its tasks as moon resolved them (command, args or script, deps, options.cache), without
// running any. The tasks of `moon run <target>...` are those its targets name (`project:task`, or `:task` for
// every project that has it) and, transitively, the tasks they depend on (`deps[].target`).
//
// Owns: `planMoon`. Targets moon selects by query (`#tag:task`, `~:task`, `^:task`) are refused with the
// form to use, not guessed.
// Keys: with the system toolchain a moon task's key folds its inputs (the project's files by default), never
// the workspace lockfile (FIELD-NOTES: a committed bump rebuilt nothing), so no key folds the fingerprint.
// Invariants: runs `moon query projects` only (no task runs); output that is not moon's JSON is
// ERR_LOCKGUARD_PLAN.

import type { PnpmSettings } from '../../plan/pnpm-settings.js';
import { runDry, type SpawnOptions } from '../../plan/spawn-runner.js';
import { taskWrite } from '../../plan/task-writes.js';
import { planError, type PlannedTask, type RunnerGraph } from '../../plan/types.js';

interface MoonTask {
  readonly target?: unknown;
  readonly command?: unknown;
  readonly args?: unknown;
  readonly script?: unknown;
  readonly deps?: unknown;
  readonly options?: { readonly cache?: unknown };
}

interface Found {
  readonly source: string;
  readonly task: MoonTask;
}

/** The targets a `moon run …` (or `moon check`-less `moon …`) command line names: its words that hold a colon. */
function requested(argv: readonly string[]): string[] {
  const words = argv.slice(1);
  const at = words.indexOf('run');
  const out: string[] = [];
  for (const word of words.slice(at === -1 ? 0 : at + 1)) {
    if (word === '--') break;
    if (!word.startsWith('-') && word.includes(':')) out.push(word);
  }
  return out;
}

function parse(output: string, root: string): Map<string, Found> {
  let projects: unknown;
  try {
    projects = (JSON.parse(output) as { projects?: unknown }).projects;
  } catch {
    projects = undefined;
  }
  if (!Array.isArray(projects))
    throw planError(
      'moon query projects did not print its project list as JSON.',
      'Run moon query projects yourself to see what it prints (moon 2.5 is the version measured).',
      root,
    );
  const tasks = new Map<string, Found>();
  for (const project of projects as { source?: unknown; tasks?: Record<string, MoonTask> }[]) {
    const source = typeof project.source === 'string' && project.source !== '' ? project.source : '.';
    for (const task of Object.values(project.tasks ?? {}))
      if (typeof task.target === 'string') tasks.set(task.target, { source, task });
  }
  return tasks;
}

const depsOf = (task: MoonTask): string[] =>
  Array.isArray(task.deps)
    ? task.deps
        .map((dep: { target?: unknown }) => dep.target)
        .filter((target): target is string => typeof target === 'string')
    : [];

/** The targets the run starts: those named, then every task they depend on. */
function selected(all: ReadonlyMap<string, Found>, targets: readonly string[], root: string): string[] {
  const queue: string[] = [];
  for (const target of targets) {
    if (/^[#~^]/.test(target))
      throw planError(
        `lockguard plan reads moon targets as project:task or :task, not "${target}".`,
        'Name the projects (moon run a:build b:build) or all of them (moon run :build).',
        root,
      );
    const matches = target.startsWith(':')
      ? [...all.keys()].filter((id) => id.endsWith(target))
      : all.has(target)
        ? [target]
        : [];
    if (matches.length === 0)
      throw planError(`moon has no task "${target}" here.`, 'moon query projects lists every task.', root);
    queue.push(...matches);
  }
  const seen = new Set<string>();
  while (queue.length > 0) {
    const id = queue.shift() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    const found = all.get(id);
    if (found !== undefined) queue.push(...depsOf(found.task));
  }
  return [...seen].sort();
}

function commandOf(task: MoonTask): string | undefined {
  if (typeof task.script === 'string') return task.script;
  if (typeof task.command !== 'string') return undefined;
  const args = Array.isArray(task.args) ? task.args.map(String) : [];
  return [task.command, ...args].join(' ');
}

export async function planMoon(
  argv: readonly string[],
  options: SpawnOptions,
  settings: PnpmSettings,
  _pnpmWorkspace: boolean,
): Promise<RunnerGraph> {
  const targets = requested(argv);
  if (targets.length === 0)
    throw planError(
      'Expected the targets moon runs (lockguard plan -- moon run :build).',
      'Name them after moon run, as you would run them.',
      options.root,
    );
  const all = parse(await runDry(['moon', 'query', 'projects'], options), options.root);
  const ids = selected(all, targets, options.root);
  const tasks: PlannedTask[] = ids.map((id) => {
    const { source, task } = all.get(id) as Found;
    const command = commandOf(task);
    const write = taskWrite({
      root: options.root,
      directory: source,
      command,
      settings,
      viaPnpmRun: false,
      nestedPnpmRunInstalls: settings.verifyDepsBeforeRun === 'install',
    });
    return {
      id,
      dependsOn: depsOf(task).filter((dep) => ids.includes(dep)),
      cached: task.options?.cache !== false,
      foldsFingerprint: false,
      directory: source,
      command,
      ...write,
    };
  });
  return { runner: 'moon', tasks, notes: [] };
}
