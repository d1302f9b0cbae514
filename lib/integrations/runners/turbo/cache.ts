// turbo 2: where its local cache is, and what its run summary says about the tasks after a move.
//
// Owns: resolving the cache dir as turbo 2.11 does (measured: `--cache-dir` beats `TURBO_CACHE_DIR`, which
// beats turbo.json's `cacheDir`, which beats `.turbo/cache`; relative paths are from the workspace root),
// and reading `.turbo/runs/<id>.json` (written with `--summarize`). In a linked git worktree the default
// cache is the main worktree's `.turbo/cache` (shared with every worktree).
// Entry layout: `<hash>.tar.zst` + `<hash>-meta.json` (+ `<hash>-manifest.json` on 2.11.11; 2.0.14 and 2.5.8
// write none), written when the task ends; the same cache dir and `.turbo/runs/` summaries from 2.0.14 on.
// Invariants: never runs turbo; a missing or corrupt summary is a note, never an error, and the note says only what
// the missing summary hides in this run (`noSummaryNote`). The summary's
// task hashes are used to limit withholding only when the cache is shared (a linked worktree); its task
// graph (each task's `directory` and `dependencies`) tells which entries a move touched (affected.ts).

import { lstatSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Env } from '../../../core/env.js';
import { errnoCode } from '../../../core/errors.js';
import type { RunnerCache, SummaryReading, TaskAfterMove, TaskNode } from '../types.js';
import { readConfigText } from '../../../core/bounded-read.js';

function flagValue(argv: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] ?? '';
    if (word === '--') break;
    if (word === name) value = argv[i + 1];
    else if (word.startsWith(`${name}=`)) value = word.slice(name.length + 1);
  }
  return value;
}

/** A folder's turbo.json / turbo.jsonc with `//` and block comments removed (strings kept); undefined when absent or not JSON. */
export function readTurboJson(dir: string): { cacheDir?: unknown; tasks?: unknown; pipeline?: unknown } | undefined {
  for (const name of ['turbo.json', 'turbo.jsonc']) {
    let text: string | undefined;
    try {
      text = readConfigText(join(dir, name));
    } catch {
      continue;
    }
    if (text === undefined) continue;
    const stripped = text.replace(
      /("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g,
      (_match, str: string | undefined) => str ?? '',
    );
    try {
      const value: unknown = JSON.parse(stripped.replace(/,(\s*[}\]])/g, '$1'));
      return value !== null && typeof value === 'object' ? (value as { cacheDir?: unknown }) : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export function resolveTurboCache(root: string, argv: readonly string[], env: Env): RunnerCache {
  const place = (path: string): string => (isAbsolute(path) ? path : join(root, path));
  const summaries = join(root, '.turbo', 'runs');
  const fromFlag = flagValue(argv, '--cache-dir');
  if (fromFlag !== undefined && fromFlag !== '')
    return { runner: 'turbo', root, dir: place(fromFlag), source: '--cache-dir', summaries };
  const fromEnv = env['TURBO_CACHE_DIR'];
  if (fromEnv !== undefined && fromEnv !== '')
    return { runner: 'turbo', root, dir: place(fromEnv), source: 'TURBO_CACHE_DIR', summaries };
  const config = readTurboJson(root);
  if (typeof config?.cacheDir === 'string' && config.cacheDir !== '')
    return { runner: 'turbo', root, dir: place(config.cacheDir), source: 'turbo.json cacheDir', summaries };
  const main = mainWorktreeRoot(root);
  if (main !== undefined)
    return {
      runner: 'turbo',
      root,
      dir: join(main, '.turbo', 'cache'),
      source: 'default (shared with the main git worktree)',
      summaries,
      shared: true,
    };
  return { runner: 'turbo', root, dir: join(root, '.turbo', 'cache'), source: 'default', summaries };
}

/**
 * In a linked git worktree, the same folder in the main worktree (turbo 2.11 shares its default cache
 * there; measured: "Using shared worktree cache at: <main>/.turbo/cache"), else undefined.
 */
function mainWorktreeRoot(root: string): string | undefined {
  for (let top = root; ; top = dirname(top)) {
    const dotGit = join(top, '.git');
    const stats = lstatSync(dotGit, { throwIfNoEntry: false });
    if (stats?.isDirectory() === true) return undefined;
    if (stats?.isFile() === true) {
      try {
        const gitdir = /^gitdir:\s*(.+)$/m.exec(readConfigText(dotGit) ?? '')?.[1]?.trim();
        if (gitdir === undefined) return undefined;
        const linked = resolve(top, gitdir);
        const common = resolve(linked, (readConfigText(join(linked, 'commondir')) ?? '').trim());
        if (basename(common) !== '.git') return undefined;
        return join(dirname(common), relative(top, root));
      } catch {
        return undefined;
      }
    }
    if (dirname(top) === top) return undefined;
  }
}

interface TurboTask {
  taskId?: unknown;
  hash?: unknown;
  directory?: unknown;
  dependencies?: unknown;
  cache?: { status?: unknown };
  execution?: { startTime?: unknown; endTime?: unknown };
}

const none = (note: string, source?: string): SummaryReading => ({
  source,
  tasks: [],
  runningAcrossMove: [],
  ownKeys: undefined,
  note,
});

/** The summaries turbo wrote during this run (`.turbo/runs/*.json` modified at or after the run started). */
function summariesOf(dir: string, runStartedAt: number): string[] {
  let list: string[];
  try {
    list = readdirSync(dir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  }
  return list
    .filter((name) => name.endsWith('.json'))
    .map((name) => join(dir, name))
    .filter((path) => (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0) >= runStartedAt)
    .sort();
}

export function turboSummary(cache: RunnerCache, options: { movedAt: number; runStartedAt: number }): SummaryReading {
  const dir = cache.summaries ?? join(cache.root, '.turbo', 'runs');
  let files: string[];
  try {
    files = summariesOf(dir, options.runStartedAt);
  } catch (error) {
    return none(
      `turbo's run summaries in "${dir}" cannot be read (${errnoCode(error) ?? 'error'}); tasks are not named.`,
    );
  }
  if (files.length === 0) return none(noSummaryNote(cache, options.movedAt));
  const gathered: Gathered = { tasks: [], across: [], own: [], graph: new Map(), first: Number.POSITIVE_INFINITY };
  const notes: string[] = [];
  for (const file of files) {
    const tasks = summaryTasks(file, notes);
    for (const task of tasks ?? []) gatherTask(task, options.movedAt, gathered);
  }
  const { tasks, across, own, graph, first } = gathered;
  return {
    source: files.at(-1),
    tasks,
    runningAcrossMove: across,
    ...(Number.isFinite(first) ? { firstTaskAt: first } : {}),
    ownKeys: notes.length === 0 ? own : undefined,
    ...(notes.length === 0 ? { graph } : {}),
    note: notes.length === 0 ? undefined : notes.join(' '),
  };
}

/** The saves this run wrote at or after the move (`<hash>.tar.zst` by mtime) with no `-manifest.json` beside them. */
function savesWithoutManifest(dir: string, movedAt: number): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  const present = new Set(names);
  return names.filter((name) => {
    if (!name.endsWith('.tar.zst')) return false;
    const key = name.slice(0, -'.tar.zst'.length);
    if (present.has(`${key}-manifest.json`)) return false;
    return (statSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0) >= movedAt;
  }).length;
}

/**
 * What is lost without a run summary, and only that: which tasks turbo restored from its cache after the move
 * (only the summary says: a restore writes no entry); the saves after it are named from their `-manifest.json`
 * (turbo 2.11.11 writes one; 2.0.14 and 2.5.8 do not: then they are named by key only, said with their count);
 * in a cache shared with other worktrees, which saves are this run's own.
 */
function noSummaryNote(cache: RunnerCache, movedAt: number): string {
  const unnamed = savesWithoutManifest(cache.dir, movedAt);
  const lost = [
    'which tasks turbo restored from its cache after the move',
    ...(unnamed > 0
      ? [
          `the task of ${unnamed === 1 ? 'the 1 save' : `the ${unnamed} saves`} after it (this turbo wrote no -manifest.json)`,
        ]
      : []),
    ...(cache.shared === true ? ["which saves in the shared cache are this run's own"] : []),
  ];
  const list = lost.length === 1 ? lost[0] : `${lost.slice(0, -1).join(', ')} and ${lost.at(-1)}`;
  return `turbo wrote no run summary for this run, so lockguard cannot tell ${list} (add --summarize to turbo's command line).`;
}

/** What the summaries say, task by task: what restored or saved after the move, what ran across it, the keys and graph. */
interface Gathered {
  readonly tasks: TaskAfterMove[];
  readonly across: string[];
  readonly own: string[];
  readonly graph: Map<string, TaskNode>;
  first: number;
}

/** One run summary's task list; undefined (and a note) when the file is not JSON or has no task list. */
function summaryTasks(file: string, notes: string[]): TurboTask[] | undefined {
  let parsed: { tasks?: unknown };
  try {
    parsed = JSON.parse(readConfigText(file) ?? '') as { tasks?: unknown };
  } catch {
    notes.push(`turbo's run summary "${file}" is not valid JSON; its tasks are not named.`);
    return undefined;
  }
  if (!Array.isArray(parsed?.tasks)) {
    notes.push(`turbo's run summary "${file}" has no task list; its tasks are not named.`);
    return undefined;
  }
  return parsed.tasks as TurboTask[];
}

/** One task of a summary into `into` (a task without its id, hash or times is skipped). */
function gatherTask(task: TurboTask, movedAt: number, into: Gathered): void {
  const name = task?.taskId;
  const key = task?.hash;
  const start = task?.execution?.startTime;
  const end = task?.execution?.endTime;
  if (typeof name !== 'string' || typeof key !== 'string' || typeof start !== 'number' || typeof end !== 'number')
    return;
  into.own.push(key);
  if (typeof task.directory === 'string' && Array.isArray(task.dependencies)) {
    into.graph.set(key, {
      task: name,
      directory: task.directory,
      dependsOn: task.dependencies.filter((dep): dep is string => typeof dep === 'string'),
    });
  }
  into.first = Math.min(into.first, start);
  const status = task.cache?.status;
  if (start < movedAt && end > movedAt) into.across.push(key);
  if (status === 'HIT' && start >= movedAt) into.tasks.push({ task: name, key, action: 'restored', at: start });
  else if (status === 'MISS' && end >= movedAt) into.tasks.push({ task: name, key, action: 'saved', at: end });
}
