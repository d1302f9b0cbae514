// `planFor(argv, root, env)`: the plan of a runner command, before it runs: which tasks may write a
// fingerprinted file and which up-front keys that makes unstable.
//
// Owns: following the command to every simple command it may start (package-managers/script-walk: root
// scripts, `npx`, `pnpm exec`, `pnpm <bin>`, `sh -c`, scripts calling scripts), building each runner's graph
// with its own dry run (the runner's adapter: one child process for turbo, nx and pnpm pipeline; none for pnpm -r), installs
// outside every runner as uncached writers, and classifying the whole with core's classifyKeys. A command
// that starts no runner is planned as one task. Runner resolution is the same walk `lockguard run` uses.
// Cost: the runner's dry run plus a few file reads. `lockguard run` may call it for its remote-cache
// decision (`plan.writers.length > 0`: the run may contain a writer).
// Invariants: library code: returns values, never prints; runner failures are ERR_LOCKGUARD_PLAN.

import { join } from 'node:path';
import type { Env } from '../../core/env.js';
import { classifyKeys, type KeyClass } from '../../core/key-stability.js';
import { detectManager, LOCKFILES } from '../../core/workspace.js';
import { baseEntries } from '../../core/package-managers/registry.js';
import { existsSync } from 'node:fs';
import { parseCommand } from '../package-managers/argv.js';
import { runningVersion } from '../package-managers/version.js';
import { walkCommand, type Step } from '../package-managers/script-walk.js';
import { quoteWord } from '../package-managers/shell-line.js';
import { scriptsOf } from '../package-managers/scripts.js';
import { runnerOfStep } from '../runners/detect.js';
import { adapterFor } from '../runners/registry.js';
import { commandWrites } from './command-writes.js';
import { recursiveArgs, recursiveGraph } from './pnpm-recursive.js';
import { pnpmSettings, type PnpmSettings } from './pnpm-settings.js';
import type { PlannedTask, RunnerGraph, RunnerKind } from './types.js';

export type { RunnerKind } from './types.js';

export interface PlanRow {
  readonly id: string;
  readonly directory: string;
  readonly command: string | null;
  readonly cached: boolean;
  readonly writer: boolean;
  readonly writeReason: string | null;
  readonly stability: KeyClass['stability'];
  /** "runs after a#build, which may rewrite pnpm-lock.yaml" (one per writer). */
  readonly reasons: readonly string[];
}

export interface Plan {
  readonly runner: RunnerKind;
  /** The lockfile a writer may rewrite (workspace-relative). */
  readonly lockfile: string;
  readonly tasks: readonly PlanRow[];
  readonly writers: readonly string[];
  readonly unstable: readonly string[];
  readonly notes: readonly string[];
  /** One line: "1 of 2 task keys unstable: a#build may rewrite pnpm-lock.yaml before b#build runs". */
  readonly verdict: string;
  /** The package manager that runs here (not only what `packageManager` pins). */
  readonly packageManager: { readonly name: string; readonly version: string | null; readonly path: string | null };
}

export interface PlanOptions {
  readonly timeoutMs?: number;
}

function lockfileOf(root: string): string {
  const manager = detectManager(root);
  // A root whose layout puts the lockfile elsewhere (a Rush repository: common/config/rush/pnpm-lock.yaml).
  const laid = baseEntries(manager, 'inputs', root).find((entry) => entry.kind === 'lockfile')?.path;
  if (laid !== undefined && !LOCKFILES.some(([name]) => name === laid)) return laid;
  const present = LOCKFILES.find(([name, owner]) => owner === manager && existsSync(join(root, name)));
  return present?.[0] ?? LOCKFILES.find(([, owner]) => owner === manager)?.[0] ?? 'the lockfile';
}

/** A step that plans as a graph of its own: a runner (turbo, nx, pnpm pipeline) or a pnpm -r/--filter run. */
function graphStep(step: Step): Exclude<RunnerKind, 'command'> | undefined {
  const runner = runnerOfStep(step.argv);
  if (runner !== undefined) return runner;
  const cmd = step.class;
  if (cmd?.manager === 'pnpm' && cmd.elsewhere && recursiveArgs(step.argv.slice(1)) !== undefined)
    return 'pnpm-recursive';
  return undefined;
}

/** An uncached writer task standing for a step outside every runner graph (an install, pnpm run installing first). */
function writerTask(step: Step, settings: PnpmSettings, index: number): PlannedTask | undefined {
  const cmd = step.class;
  if (cmd === undefined) return undefined;
  const line = step.argv.join(' ');
  let reason: string | undefined;
  if (cmd.writesLockfile)
    reason = `runs ${[...step.via, `${cmd.manager} ${parseCommand(step.argv)?.typed ?? '(install)'}`].join(': ')}`;
  else if (cmd.verifiesDepsFirst && settings.verifyDepsBeforeRun === 'install')
    reason = `pnpm ${cmd.command === 'exec' ? 'exec' : 'run'} installs first (verifyDepsBeforeRun: install, ${settings.source})`;
  if (reason === undefined) return undefined;
  const id = cmd.writesLockfile ? line : `(${line}: verify deps before run)`;
  return {
    id: index === 0 ? id : `${id} #${index + 1}`,
    dependsOn: [],
    mayWrite: true,
    writeReason: reason,
    cached: false,
    foldsFingerprint: false,
    directory: '.',
    command: line,
  };
}

/**
 * The graph of `argv`: every simple command it may start (through root scripts, npx, pnpm exec, sh -c) in
 * order; each runner among them contributes its own dry-run graph, each install outside them an uncached
 * writer; everything later runs after everything earlier (a script's `&&` chain). No runner: one task.
 */
/** A command that starts no task graph: one uncached task, a writer when its command line installs. */
function commandGraph(argv: readonly string[], root: string, settings: PnpmSettings): RunnerGraph {
  const verdict = commandWrites(argv.map(quoteWord).join(' '), {
    scripts: scriptsOf(root),
    pnpmRunInstalls: settings.verifyDepsBeforeRun === 'install',
  });
  const task: PlannedTask = {
    id: argv.join(' '),
    dependsOn: [],
    mayWrite: verdict.writes,
    ...(verdict.writes ? { writeReason: `runs ${verdict.reason ?? 'an install'}` } : {}),
    cached: false,
    foldsFingerprint: false,
    directory: '.',
    command: argv.join(' '),
  };
  return { runner: 'command', tasks: [task], notes: [] };
}

async function graphFor(
  argv: readonly string[],
  root: string,
  env: Env,
  settings: PnpmSettings,
  options: PlanOptions,
): Promise<RunnerGraph> {
  const spawnOptions = { root, env, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) };
  const pnpmWorkspace = detectManager(root) === 'pnpm';
  const steps = walkCommand(argv, { cwd: root, scriptsOf });
  if (!steps.some((step) => graphStep(step) !== undefined)) {
    const graph = commandGraph(argv, root, settings);
    // The walk also reads scripts in the folders a line moves to (cd): an install found there makes it a writer.
    const found = steps.map((step) => writerTask(step, settings, 0)).find((task) => task !== undefined);
    const tasks = graph.tasks.map((task) =>
      task.mayWrite || found === undefined
        ? task
        : { ...task, mayWrite: true, writeReason: found.writeReason ?? 'runs an install' },
    );
    return { ...graph, tasks, notes: [...graph.notes, ...unreadScripts(steps)] };
  }
  const tasks: PlannedTask[] = [];
  const notes: string[] = [];
  let kind: RunnerKind | undefined;
  let before: string[] = [];
  const append = (graph: RunnerGraph): void => {
    const own = new Set(graph.tasks.map((task) => task.id));
    for (const task of graph.tasks)
      tasks.push({ ...task, dependsOn: [...task.dependsOn.filter((dep) => own.has(dep)), ...before] });
    notes.push(...graph.notes);
    before = graph.tasks.map((task) => task.id);
  };
  let writers = 0;
  for (const step of steps) {
    const graphKind = graphStep(step);
    if (graphKind === undefined) {
      const writer = writerTask(step, settings, writers);
      if (writer !== undefined) {
        writers++;
        append({ runner: 'command', tasks: [writer], notes: [writer.writeReason ?? ''] });
      }
      continue;
    }
    kind ??= graphKind;
    if (graphKind !== 'pnpm-recursive') {
      append(await adapterFor(graphKind).plan(step.argv, spawnOptions, settings, pnpmWorkspace));
      continue;
    }
    const recursive = recursiveArgs(step.argv.slice(1));
    if (recursive !== undefined) append(recursiveGraph(root, recursive, settings, step.argv.join(' ')));
  }
  return { runner: kind ?? 'command', tasks, notes: [...notes, ...unreadScripts(steps)] };
}

/**
 * A script the command runs in other workspaces than the root (`npm run build -w a`, `--workspaces`, `yarn
 * workspace a build`, `yarn workspaces foreach`) outside any runner's graph: the plan does not read those
 * packages' scripts, and says so (an audit found `writers: none` for a script that installed).
 */
function unreadScripts(steps: readonly Step[]): string[] {
  const notes = steps.flatMap((step) =>
    step.class?.script !== undefined &&
    (step.class.elsewhere || step.dir === undefined) &&
    graphStep(step) === undefined
      ? [
          `the ${step.class.script} script of other workspaces (${step.argv.join(' ')}) is not read by lockguard plan: an install there shows only in lockguard run, which guards it`,
        ]
      : [],
  );
  return [...new Set(notes)];
}

/** Plan `argv` (a runner command) in the workspace at `root`. */
export async function planFor(
  argv: readonly string[],
  root: string,
  env: Env,
  options: PlanOptions = {},
): Promise<Plan> {
  const settings = pnpmSettings(root, env);
  const graph = await graphFor(argv, root, env, settings, options);
  const classes = classifyKeys(graph);
  const lockfile = lockfileOf(root);
  const byId = new Map(graph.tasks.map((task) => [task.id, task]));
  const tasks: PlanRow[] = classes.tasks.map((key) => {
    const task = byId.get(key.id) as PlannedTask;
    const reasons = key.because.map(
      (why) =>
        `${why.ordering === 'runs-after' ? 'runs after' : 'may run after (not ordered against)'} ${why.writer}, which may rewrite ${lockfile}${why.writerCached ? '' : ' on every run'}`,
    );
    return {
      id: key.id,
      directory: task.directory,
      command: task.command ?? null,
      cached: task.cached,
      writer: key.writer,
      writeReason: task.writeReason ?? null,
      stability: key.stability,
      reasons,
    };
  });
  const manager = detectManager(root);
  const running =
    manager === 'pnpm'
      ? { version: settings.running?.version, path: settings.running?.path }
      : runningVersion(manager, root, env);
  const packageManager = { name: manager, version: running.version ?? null, path: running.path ?? null };
  return {
    runner: graph.runner,
    lockfile,
    tasks,
    writers: classes.writers,
    unstable: classes.unstable,
    notes: graph.notes,
    verdict: verdictLine(classes.tasks.length, classes.writers, classes.unstable, lockfile),
    packageManager,
  };
}

/** How many writers the plan's verdict line names before it counts the rest. */
const WRITERS_NAMED = 3;

function verdictLine(total: number, writers: readonly string[], unstable: readonly string[], lockfile: string): string {
  const all = total === 1 ? 'the one task key is' : `all ${total} task keys are`;
  // What the plan reads is commands: a program that installs from inside (node build.js calling pnpm add) is
  // seen only by lockguard run, so the verdict says what was read, never that nothing can write.
  if (writers.length === 0)
    return `${all} stable: no task's command installs (a program that installs from inside shows only in lockguard run, which guards it)`;
  const may = writers.length === 1 ? '1 task may' : `${writers.length} tasks may`;
  if (unstable.length === 0)
    return `${all} stable: ${may} rewrite ${lockfile}, and every key after ${writers.length === 1 ? 'it' : 'them'} folds the fingerprint`;
  const shown =
    writers.slice(0, WRITERS_NAMED).join(', ') +
    (writers.length > WRITERS_NAMED ? `, and ${writers.length - WRITERS_NAMED} more` : '');
  return `${unstable.length} of ${total} task ${total === 1 ? 'key' : 'keys'} unstable: ${shown} may rewrite ${lockfile} during the run, and keys taken before it would name the old lockfile`;
}
