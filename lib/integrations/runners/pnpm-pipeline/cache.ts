// pnpm 12's `pnpm pipeline`: where its task cache is, and what its run events say after a move.
//
// Owns: resolving `<pnpm cache dir>/pipeline/<sha256(workspace root)[:32]>/`. Measured with 12.4.2: the
// pnpm cache dir is `pnpm_config_cache_dir` (or `PNPM_CONFIG_CACHE_DIR`; `npm_config_cache_dir` is
// ignored), else pnpm-workspace.yaml `cacheDir` (relative to the root), else `$XDG_CACHE_HOME/pnpm`, else
// `~/.cache/pnpm` (`~/Library/Caches/pnpm` on macOS). Its `tasks/<key[:2]>/<key>/` folders
// (`meta.json` + `outputs/`) are the entries and `runs/<epoch ms>-<hex>/` hold `summary.json` and
// `events.ndjson` (`taskStarted {task,key,at}`, `taskFinished {task,status,cache,at}`).
// Measured: removing a task folder makes the next pipeline miss and rebuild it; the `state/` files need
// no change. Invariants: never runs pnpm; unreadable runs are notes, never errors.

import type { Env } from '../../../core/env.js';
import { nodeCrypto, nodeOs } from '../../../core/lazy-builtins.js';
import { readdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { errnoCode } from '../../../core/errors.js';
import type { RunnerCache, SummaryReading, TaskAfterMove } from '../types.js';
import { readConfigText } from '../../../core/bounded-read.js';

/** A top-level `cacheDir:` in pnpm-workspace.yaml (plain or quoted scalar), or undefined. */
function workspaceCacheDir(root: string): string | undefined {
  let text: string;
  try {
    text = readConfigText(join(root, 'pnpm-workspace.yaml')) ?? '';
  } catch {
    return undefined;
  }
  const match = /^cacheDir:[ \t]*(?:"([^"]*)"|'([^']*)'|([^#\s][^#\n]*?))[ \t]*(?:#.*)?$/m.exec(text);
  const value = match?.[1] ?? match?.[2] ?? match?.[3];
  return value === undefined || value === '' ? undefined : value;
}

function pnpmCacheDir(root: string, env: Env): { dir: string; source: string } {
  for (const name of ['pnpm_config_cache_dir', 'PNPM_CONFIG_CACHE_DIR']) {
    const value = env[name];
    if (value !== undefined && value !== '')
      return { dir: isAbsolute(value) ? value : join(root, value), source: name };
  }
  const configured = workspaceCacheDir(root);
  if (configured !== undefined)
    return {
      dir: isAbsolute(configured) ? configured : join(root, configured),
      source: 'pnpm-workspace.yaml cacheDir',
    };
  const xdg = env['XDG_CACHE_HOME'];
  if (xdg !== undefined && xdg !== '' && isAbsolute(xdg)) return { dir: join(xdg, 'pnpm'), source: 'XDG_CACHE_HOME' };
  const home = env['HOME'] !== undefined && env['HOME'] !== '' ? env['HOME'] : nodeOs().homedir();
  return nodeOs().platform() === 'darwin'
    ? { dir: join(home, 'Library', 'Caches', 'pnpm'), source: 'default' }
    : { dir: join(home, '.cache', 'pnpm'), source: 'default' };
}

/** The workspace's folder in the pipeline cache: sha256 of the workspace path, first 32 hex. */
export function pipelineFolderName(root: string): string {
  return nodeCrypto().createHash('sha256').update(root).digest('hex').slice(0, 32);
}

export function resolvePipelineCache(root: string, env: Env): RunnerCache {
  const base = pnpmCacheDir(root, env);
  const dir = join(base.dir, 'pipeline', pipelineFolderName(root));
  return { runner: 'pnpm-pipeline', root, dir, source: base.source, summaries: join(dir, 'runs') };
}

interface PipelineEvent {
  event?: unknown;
  task?: unknown;
  key?: unknown;
  status?: unknown;
  cache?: unknown;
  at?: unknown;
}

const none = (note: string): SummaryReading => ({
  source: undefined,
  tasks: [],
  runningAcrossMove: [],
  ownKeys: undefined,
  note,
});

export function pipelineSummary(
  cache: RunnerCache,
  options: { movedAt: number; runStartedAt: number },
): SummaryReading {
  const runs = cache.summaries ?? join(cache.dir, 'runs');
  let ids: string[];
  try {
    ids = readdirSync(runs).filter((id) => {
      const epoch = Number(/^(\d+)-/.exec(id)?.[1]);
      return Number.isFinite(epoch) && epoch >= options.runStartedAt;
    });
  } catch (error) {
    return none(
      errnoCode(error) === 'ENOENT'
        ? 'pnpm pipeline wrote no run report; tasks are not named.'
        : `pnpm pipeline's run reports in "${runs}" cannot be read; tasks are not named.`,
    );
  }
  if (ids.length === 0) return none('pnpm pipeline wrote no run report for this run; tasks are not named.');
  const gathered: Gathered = { tasks: [], across: [], own: [], first: Number.POSITIVE_INFINITY };
  const notes: string[] = [];
  let source: string | undefined;
  for (const id of ids.sort()) {
    const path = join(runs, id, 'events.ndjson');
    let text: string | undefined;
    try {
      text = readConfigText(path);
    } catch {
      text = undefined;
    }
    if (text === undefined) {
      notes.push(`pnpm pipeline's "${path}" cannot be read; its tasks are not named.`);
      continue;
    }
    source = path;
    const torn = gatherEvents(text, options.movedAt, gathered);
    if (torn > 0) notes.push(`pnpm pipeline's "${path}" has ${torn} unreadable line(s); the rest was used.`);
  }
  const { tasks, across, own, first } = gathered;
  return {
    source,
    tasks,
    runningAcrossMove: across,
    ...(Number.isFinite(first) ? { firstTaskAt: first } : {}),
    ownKeys: notes.length === 0 ? own : undefined,
    note: notes.length === 0 ? undefined : notes.join(' '),
  };
}

/** What the run reports say, task by task: what restored or saved after the move, what ran across it, the keys. */
interface Gathered {
  readonly tasks: TaskAfterMove[];
  readonly across: string[];
  readonly own: string[];
  first: number;
}

/** One run's events.ndjson into `into`, a task's start matched with its finish; returns how many lines were torn. */
function gatherEvents(text: string, movedAt: number, into: Gathered): number {
  const started = new Map<string, { key: string; at: number }>();
  let torn = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let event: PipelineEvent;
    try {
      event = JSON.parse(line) as PipelineEvent;
    } catch {
      torn++;
      continue;
    }
    if (typeof event?.task !== 'string' || typeof event.at !== 'number') continue;
    if (event.event === 'taskStarted' && typeof event.key === 'string') {
      started.set(event.task, { key: event.key, at: event.at });
      into.first = Math.min(into.first, event.at);
      into.own.push(event.key);
    } else if (event.event === 'taskFinished') {
      const start = started.get(event.task);
      if (start === undefined) continue;
      if (start.at < movedAt && event.at > movedAt) into.across.push(start.key);
      if (event.cache === 'hit' && start.at >= movedAt)
        into.tasks.push({ task: event.task, key: start.key, action: 'restored', at: start.at });
      else if (event.cache === 'miss' && event.status === 'passed' && event.at >= movedAt)
        into.tasks.push({ task: event.task, key: start.key, action: 'saved', at: event.at });
    }
  }
  return torn;
}
