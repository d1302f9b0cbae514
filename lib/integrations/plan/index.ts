// `planFor(argv, root, env)`: the plan of a runner command, before it runs: which tasks may write a
// fingerprinted file and which up-front keys that makes unstable.
//
// Owns: recognizing the runner in argv (turbo, nx, `pnpm pipeline`, `pnpm -r`/`--filter` runs; through
// `npx`, `pnpm exec`, `pnpm <bin>` and a root script whose body is one of them), building its graph with
// the runner's own dry run (one child process for turbo, nx and pnpm pipeline; none for pnpm -r), and
// classifying it with core's classifyKeys. Any other command is planned as one task.
// Cost: the runner's dry run plus a few file reads. `lockguard run` may call it for its remote-cache
// decision (`plan.writers.length > 0`: the run may contain a writer).
// Invariants: library code: returns values, never prints; runner failures are ERR_LOCKGUARD_PLAN.

import { join } from 'node:path';
import { classifyKeys, type KeyClass } from '../../core/key-stability.js';
import { detectManager, LOCKFILES } from '../../core/workspace.js';
import { existsSync } from 'node:fs';
import { commandWrites } from './command-writes.js';
import { planNx } from './nx.js';
import { planPipeline } from './pnpm-pipeline.js';
import { recursiveArgs, recursiveGraph } from './pnpm-recursive.js';
import { pnpmSettings, type PnpmSettings } from './pnpm-settings.js';
import { planTurbo } from './turbo.js';
import { scriptsOf, type PlannedTask, type RunnerGraph, type RunnerKind } from './types.js';

export type { RunnerKind, PlannedTask, RunnerGraph } from './types.js';

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
}

export interface PlanOptions {
  readonly timeoutMs?: number;
}

const base = (word: string | undefined): string => (word ?? '').split('/').pop()?.replace(/\.(c?js|cmd|exe)$/, '') ?? '';

function lockfileOf(root: string): string {
  const manager = detectManager(root);
  const present = LOCKFILES.find(([name, owner]) => owner === manager && existsSync(join(root, name)));
  return present?.[0] ?? LOCKFILES.find(([, owner]) => owner === manager)?.[0] ?? 'the lockfile';
}

/** Put an uncached writer (the wrapper's own install check) before every task. */
function gated(graph: RunnerGraph, id: string, reason: string): RunnerGraph {
  const gate: PlannedTask = { id, dependsOn: [], mayWrite: true, writeReason: reason, cached: false, foldsFingerprint: false, directory: '.', command: undefined };
  return { ...graph, tasks: [gate, ...graph.tasks.map((task) => ({ ...task, dependsOn: [...task.dependsOn, id] }))], notes: [...graph.notes, reason] };
}

async function graphFor(argv: readonly string[], root: string, env: Readonly<Record<string, string | undefined>>, settings: PnpmSettings, options: PlanOptions, depth: number): Promise<RunnerGraph> {
  const spawnOptions = { root, env, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) };
  const tool = base(argv[0]);
  const pnpmWorkspace = detectManager(root) === 'pnpm';
  const installsFirst = settings.verifyDepsBeforeRun === 'install';
  if ((tool === 'npx' || tool === 'bunx') && argv.length > 1) return graphFor(argv.slice(1).filter((arg, i) => i > 0 || !arg.startsWith('-')), root, env, settings, options, depth);
  if (tool === 'turbo') return planTurbo(argv, spawnOptions, settings, pnpmWorkspace);
  if (tool === 'nx') return planNx(argv, spawnOptions, settings);
  if (tool === 'pnpm') {
    const args = argv.slice(1);
    if (args[0] === 'pipeline') return planPipeline(argv, spawnOptions, settings);
    const recursive = recursiveArgs(args, scriptsOf(root));
    if (recursive !== undefined) return recursiveGraph(root, recursive, settings, `pnpm ${args.join(' ')}`);
    const inner = args[0] === 'exec' ? args.slice(1) : args[0] === 'run' ? undefined : args;
    if (inner !== undefined && (base(inner[0]) === 'turbo' || base(inner[0]) === 'nx')) {
      const graph = await graphFor(inner, root, env, settings, options, depth + 1);
      return installsFirst ? gated(graph, '(pnpm exec: verify deps before run)', `pnpm exec installs first (verifyDepsBeforeRun: install, ${settings.source})`) : graph;
    }
  }
  // A root script whose body is one runner command: plan the runner, behind the wrapper's own check.
  if ((tool === 'pnpm' || tool === 'npm' || tool === 'yarn') && depth < 3) {
    const args = argv.slice(1);
    const name = args[0] === 'run' || args[0] === 'run-script' ? args[1] : tool !== 'npm' ? args[0] : undefined;
    const body = name === undefined ? undefined : scriptsOf(root)[name];
    const words = body?.trim().split(/\s+/) ?? [];
    if (body !== undefined && !/[;&|]/.test(body) && ['turbo', 'nx', 'pnpm'].includes(base(words[0])) && (base(words[0]) !== 'pnpm' || words.includes('-r') || words.includes('pipeline') || words.some((w) => w.startsWith('--filter') || w === '-F'))) {
      const graph = await graphFor(words.map((word) => word.replace(/^['"]|['"]$/g, '')), root, env, settings, options, depth + 1);
      return tool === 'pnpm' && installsFirst ? gated(graph, `(pnpm run ${name}: verify deps before run)`, `pnpm run installs first (verifyDepsBeforeRun: install, ${settings.source})`) : graph;
    }
  }
  const verdict = commandWrites(argv.map((word) => (/[\s"'\\]/.test(word) ? `'${word.replaceAll("'", "'\\''")}'` : word)).join(' '), { scripts: scriptsOf(root), pnpmRunInstalls: installsFirst });
  const task: PlannedTask = { id: argv.join(' '), dependsOn: [], mayWrite: verdict.writes, ...(verdict.writes ? { writeReason: `runs ${verdict.reason ?? 'an install'}` } : {}), cached: false, foldsFingerprint: false, directory: '.', command: argv.join(' ') };
  return { runner: 'command', tasks: [task], notes: [] };
}

/** Plan `argv` (a runner command) in the workspace at `root`. */
export async function planFor(argv: readonly string[], root: string, env: Readonly<Record<string, string | undefined>>, options: PlanOptions = {}): Promise<Plan> {
  const settings = pnpmSettings(root, env);
  const graph = await graphFor(argv, root, env, settings, options, 0);
  const classes = classifyKeys(graph);
  const lockfile = lockfileOf(root);
  const byId = new Map(graph.tasks.map((task) => [task.id, task]));
  const tasks: PlanRow[] = classes.tasks.map((key) => {
    const task = byId.get(key.id) as PlannedTask;
    const reasons = key.because.map((why) => `${why.ordering === 'runs-after' ? 'runs after' : 'may run after (not ordered against)'} ${why.writer}, which may rewrite ${lockfile}${why.writerCached ? '' : ' on every run'}`);
    return { id: key.id, directory: task.directory, command: task.command ?? null, cached: task.cached, writer: key.writer, writeReason: task.writeReason ?? null, stability: key.stability, reasons };
  });
  return { runner: graph.runner, lockfile, tasks, writers: classes.writers, unstable: classes.unstable, notes: graph.notes, verdict: verdictLine(classes.tasks.length, classes.writers, classes.unstable, lockfile) };
}

function verdictLine(total: number, writers: readonly string[], unstable: readonly string[], lockfile: string): string {
  if (writers.length === 0) return `all ${total} task ${total === 1 ? 'key is' : 'keys are'} stable: no task may rewrite ${lockfile}`;
  if (unstable.length === 0) return `all ${total} task keys are stable: ${writers.length} ${writers.length === 1 ? 'task' : 'tasks'} may rewrite ${lockfile}, and every key after it folds the fingerprint`;
  const shown = writers.slice(0, 3).join(', ') + (writers.length > 3 ? `, and ${writers.length - 3} more` : '');
  return `${unstable.length} of ${total} task keys unstable: ${shown} may rewrite ${lockfile} during the run, and keys taken before it would name the old lockfile`;
}
