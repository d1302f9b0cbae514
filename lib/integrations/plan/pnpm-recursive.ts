// The task graph of a `pnpm -r run <script>` / `pnpm --filter <sel> <script>` run, from the workspace.
//
// Owns: reading the argv (-r, --filter/-F selectors with `...` and `^`, --parallel/--no-sort, -w /
// --include-workspace-root, run/exec/implicit script) and ordering the selected projects' tasks the way
// pnpm sorts them: a project's task runs after the tasks of the selected projects it depends on,
// through projects that lack the script. Under an effective `verifyDepsBeforeRun: install` the command
// itself installs before any task: one uncached writer every task runs after.
// Keys: pnpm caches nothing here; keys (a CI cache around it) are taken before the command.
// Invariants: no spawn; an unknown selector form is ERR_LOCKGUARD_PLAN naming it.

import { classifyParsed, managerWords, parseCommand } from '../package-managers/argv.js';
import { commandWrites } from './command-writes.js';
import { workspaceProjects, type WorkspaceProject } from './pnpm-projects.js';
import type { PnpmSettings } from './pnpm-settings.js';
import { planError, type PlannedTask, type RunnerGraph } from './types.js';

export interface RecursiveArgs {
  readonly filters: readonly string[];
  readonly recursive: boolean;
  readonly sorted: boolean;
  readonly includeRoot: boolean;
  /** 'run' (a script) or 'exec' (a command in every project). */
  readonly mode: 'run' | 'exec';
  /** The script name, or the exec command line. */
  readonly target: string;
}

/** Parse pnpm argv (without the leading `pnpm`) for a recursive or filtered run; undefined when it is not one. */
export function recursiveArgs(args: readonly string[]): RecursiveArgs | undefined {
  const parsed = parseCommand(['pnpm', ...args]);
  if (parsed === undefined) return undefined;
  // pnpm's own words only: what follows the script name is the script's (`pnpm build --filter x` runs the root script).
  const words = managerWords(parsed);
  const filters: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (word === '--') break;
    if (word === '--filter' || word === '-F') filters.push(words[++i] ?? '');
    else if (word.startsWith('--filter=')) filters.push(word.slice('--filter='.length));
  }
  const recursive = words.includes('-r') || words.includes('--recursive');
  if (!recursive && filters.length === 0) return undefined;
  const sorted = !words.includes('--parallel') && !words.includes('--no-sort');
  const includeRoot = words.some(
    (word) => word === '-w' || word === '--workspace-root' || word === '--include-workspace-root',
  );
  const cmd = classifyParsed(parsed);
  if (cmd.effect === 'script' && cmd.script !== undefined)
    return { filters, recursive, sorted, includeRoot, mode: 'run', target: cmd.script };
  if (cmd.command === 'exec' && cmd.runs !== undefined)
    return { filters, recursive, sorted, includeRoot, mode: 'exec', target: cmd.runs.join(' ') };
  // Installs and every other builtin are planned as plain commands.
  return undefined;
}

function matcher(pattern: string): (project: WorkspaceProject) => boolean {
  if (pattern.startsWith('./') || pattern.startsWith('{') || pattern === '.') {
    const dir =
      pattern
        .replace(/^\{|\}$/g, '')
        .replace(/^\.\//, '')
        .replace(/\/$/, '') || '.';
    return (project) => project.dir === dir || (dir !== '.' && project.dir.startsWith(`${dir}/`));
  }
  if (/[[\]]/.test(pattern))
    throw planError(
      `lockguard plan cannot read the pnpm filter "${pattern}" (changed-since selectors need git).`,
      'Plan with a name, path or ... selector, or without --filter.',
    );
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|\\]/g, '\\$&').replaceAll('*', '.*')}$`);
  return (project) => re.test(project.name);
}

function closureOf(start: Iterable<string>, next: (dir: string) => readonly string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...start];
  while (todo.length > 0) {
    const dir = todo.pop() as string;
    if (seen.has(dir)) continue;
    seen.add(dir);
    todo.push(...next(dir));
  }
  return seen;
}

/** The projects a set of pnpm selectors picks (no selector: every project but the root). */
export function selectProjects(projects: readonly WorkspaceProject[], args: RecursiveArgs): WorkspaceProject[] {
  const byDir = new Map(projects.map((project) => [project.dir, project]));
  const dependents = new Map<string, string[]>();
  for (const project of projects)
    for (const dep of project.deps) dependents.set(dep, [...(dependents.get(dep) ?? []), project.dir]);
  const chosen = new Set<string>();
  const excluded = new Set<string>();
  const positive = args.filters.filter((filter) => !filter.startsWith('!'));
  if (positive.length === 0)
    for (const project of projects) if (project.dir !== '.' || args.includeRoot) chosen.add(project.dir);
  for (const raw of args.filters) {
    const negate = raw.startsWith('!');
    let selector = negate ? raw.slice(1) : raw;
    const withDependents = selector.startsWith('...');
    if (withDependents) selector = selector.slice(3);
    const dependentsOnly = withDependents && selector.startsWith('^');
    if (dependentsOnly) selector = selector.slice(1);
    const withDeps = selector.endsWith('...');
    if (withDeps) selector = selector.slice(0, -3);
    const depsOnly = withDeps && selector.endsWith('^');
    if (depsOnly) selector = selector.slice(0, -1);
    const direct = projects.filter(matcher(selector)).map((project) => project.dir);
    const picked = new Set(dependentsOnly || depsOnly ? [] : direct);
    if (withDeps)
      for (const dir of closureOf(direct, (d) => byDir.get(d)?.deps ?? []))
        if (!depsOnly || !direct.includes(dir)) picked.add(dir);
    if (withDependents)
      for (const dir of closureOf(direct, (d) => dependents.get(d) ?? []))
        if (!dependentsOnly || !direct.includes(dir)) picked.add(dir);
    for (const dir of picked) (negate ? excluded : chosen).add(dir);
  }
  return projects.filter((project) => chosen.has(project.dir) && !excluded.has(project.dir));
}

export function recursiveGraph(root: string, args: RecursiveArgs, settings: PnpmSettings, label: string): RunnerGraph {
  const projects = selectProjects(workspaceProjects(root), args);
  const has = (project: WorkspaceProject): boolean =>
    args.mode === 'exec' || project.scripts[args.target] !== undefined;
  const selected = new Map(projects.map((project) => [project.dir, project]));
  const idOf = (project: WorkspaceProject): string => `${project.name}#${args.mode === 'exec' ? 'exec' : args.target}`;
  const installsFirst = settings.verifyDepsBeforeRun === 'install';
  const gate = `(${label}: verify deps before run)`;
  const tasks: PlannedTask[] = [];
  if (installsFirst)
    tasks.push({
      id: gate,
      dependsOn: [],
      mayWrite: true,
      writeReason: `pnpm installs before running (verifyDepsBeforeRun: install, ${settings.source})`,
      cached: false,
      foldsFingerprint: false,
      directory: '.',
      command: label,
    });
  for (const project of projects.filter(has)) {
    // The nearest selected projects with the task, through selected projects without it.
    const deps = new Set<string>();
    if (args.sorted) {
      const seen = new Set<string>();
      const todo = [...project.deps];
      while (todo.length > 0) {
        const dir = todo.pop() as string;
        if (seen.has(dir)) continue;
        seen.add(dir);
        const dep = selected.get(dir);
        if (dep === undefined) continue;
        if (has(dep)) deps.add(idOf(dep));
        else todo.push(...dep.deps);
      }
    }
    if (installsFirst) deps.add(gate);
    const command = args.mode === 'exec' ? args.target : project.scripts[args.target];
    const verdict =
      command === undefined
        ? { writes: false, reason: undefined }
        : commandWrites(command, { scripts: project.scripts, pnpmRunInstalls: installsFirst });
    tasks.push({
      id: idOf(project),
      dependsOn: [...deps].sort(),
      mayWrite: verdict.writes,
      ...(verdict.writes ? { writeReason: `runs ${verdict.reason ?? 'an install'}` } : {}),
      cached: false,
      foldsFingerprint: false,
      directory: project.dir,
      command,
    });
  }
  return {
    runner: 'pnpm-recursive',
    tasks,
    notes: installsFirst ? [`pnpm run installs first (verifyDepsBeforeRun: install, ${settings.source})`] : [],
  };
}
