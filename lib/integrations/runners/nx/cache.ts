// nx (20 to 24): where its local cache is, and what its `run.json` says about the tasks after a move.
//
// Owns: resolving the cache dir as nx 24.0.6 does (read from its `cache-directory.js`):
//   1. `NX_CACHE_DIRECTORY` (relative to the root), else 2. nx.json `cacheDirectory` (or
//   `tasksRunnerOptions.default.options.cacheDirectory`); else 3. the per-user shared
//   `~/.nx/<sha256(workspace id)[:16]>/cache`, used when the workspace has an identity (git remote or first
//   commit, or an Nx Cloud id) and the home dir is usable and not under /tmp; else 4. `<root>/.nx/cache`
//   (`node_modules/.cache/nx` for a lerna repo without nx.json).
//   Step 3 depends on git and nx internals, so it is asked of the workspace's own nx (one `node` process
//   requiring `nx/src/utils/cache-directory`, ~350 ms) unless step 3 is impossible (HOME under /tmp, or no
//   git repo and no cloud id); without an nx to ask, step 4 is assumed and said. The answer is remembered
//   (memo.ts) under a key of everything it depends on, so a guarded run asks once, not on every run.
// Entry layout (measured, nx 20 to 24): `<cache>/<hash>/` (the outputs) + `<cache>/terminalOutputs/<hash>`,
// plus a `cache_outputs` row in nx's task DB (`.nx/workspace-data/*.db` or `~/.nx/<id>/databases/`). With
// the folder gone nx 24 misses; nx 20 to 23 need the row marked first (task-db.ts, withhold.ts).
// Invariants: never writes anything of nx's; a missing or corrupt run.json is a note, never an error.

import type { Env } from '../../../core/env.js';
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { nxMemoKey, readNxMemo, writeNxMemo } from './memo.js';
import type { RunnerCache, SummaryReading, TaskAfterMove } from '../types.js';
import { readConfigText } from '../../../core/bounded-read.js';

interface NxJson {
  readonly cacheDirectory?: unknown;
  readonly tasksRunnerOptions?: { readonly default?: { readonly options?: { readonly cacheDirectory?: unknown } } };
  readonly nxCloudId?: unknown;
  readonly nxCloudAccessToken?: unknown;
}

/** nx.json, read once per resolution (undefined when absent or not JSON). */
function readNxJson(root: string): NxJson | undefined {
  try {
    const value: unknown = JSON.parse(readConfigText(join(root, 'nx.json')) ?? '');
    return value !== null && typeof value === 'object' ? (value as NxJson) : undefined;
  } catch {
    return undefined;
  }
}

function nxJsonCacheDirectory(nxJson: NxJson | undefined): string | undefined {
  const found = nxJson?.cacheDirectory ?? nxJson?.tasksRunnerOptions?.default?.options?.cacheDirectory;
  return typeof found === 'string' && found !== '' ? found : undefined;
}

const ASK_NX = `
const { createRequire } = require('node:module');
const req = createRequire(process.cwd() + '/package.json');
const m = req(req.resolve('nx/src/utils/cache-directory'));
process.stdout.write(JSON.stringify({ cache: m.cacheDir }));
`;

/** How long the workspace's nx may take to say where its cache is (it loads its config and plugins). */
const ASK_NX_TIMEOUT_MS = 15_000;

/** The cache dir the workspace's own nx computes, or undefined when there is no nx to ask. */
function askNx(root: string, env: Env): string | undefined {
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) clean[name] = value;
  const result = spawnSync(process.execPath, ['-e', ASK_NX], {
    cwd: root,
    env: { ...clean, NX_DAEMON: 'false' },
    encoding: 'utf8',
    timeout: ASK_NX_TIMEOUT_MS,
  });
  if (result.status !== 0) return undefined;
  try {
    const value = JSON.parse(result.stdout) as { cache?: unknown };
    return typeof value.cache === 'string' && isAbsolute(value.cache) ? value.cache : undefined;
  } catch {
    return undefined;
  }
}

/**
 * False when nx 24 certainly keeps the cache in the checkout (so nx need not be asked): HOME at or under
 * /tmp (nx refuses a shared root there), or no git repository and no Nx Cloud id (no workspace identity).
 */
function mayShare(root: string, env: Env, nxJson: NxJson | undefined): boolean {
  const home = env['HOME'] !== undefined && env['HOME'] !== '' ? env['HOME'] : undefined;
  if (home !== undefined) {
    let real = home;
    try {
      real = realpathSync(home);
    } catch {
      // A HOME that does not exist yet: judge the path as written.
    }
    const fromTmp = relative(realpathSync('/tmp'), real);
    if (fromTmp === '' || (!fromTmp.startsWith('..') && !isAbsolute(fromTmp))) return false;
  }
  // An Nx Cloud id is an identity; without one (or without a readable nx.json) the git identity decides.
  if (nxJson?.nxCloudId !== undefined || nxJson?.nxCloudAccessToken !== undefined) return true;
  for (let dir = root; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return true;
    if (dirname(dir) === dir) return false;
  }
}

export function resolveNxCache(root: string, env: Env, options: { askNx?: boolean } = {}): RunnerCache {
  const place = (path: string): string => (isAbsolute(path) ? path : join(root, path));
  const fromEnv = env['NX_CACHE_DIRECTORY'];
  if (fromEnv !== undefined && fromEnv !== '')
    return { runner: 'nx', root, dir: place(fromEnv), source: 'NX_CACHE_DIRECTORY' };
  const nxJson = readNxJson(root);
  const configured = nxJsonCacheDirectory(nxJson);
  if (configured !== undefined) return { runner: 'nx', root, dir: place(configured), source: 'nx.json cacheDirectory' };
  const shareable = mayShare(root, env, nxJson);
  if (options.askNx !== false && shareable) {
    const key = nxMemoKey(root, env);
    const remembered = readNxMemo(root, key);
    const asked = remembered ?? askNx(root, env);
    if (asked !== undefined && remembered === undefined) writeNxMemo(root, key, asked);
    if (asked !== undefined)
      return {
        runner: 'nx',
        root,
        dir: asked,
        source: "nx's own cache-directory resolution",
        shared: relative(root, asked).startsWith('..'),
      };
  }
  const lerna = existsSync(join(root, 'lerna.json')) && !existsSync(join(root, 'nx.json'));
  return {
    runner: 'nx',
    root,
    dir: lerna ? join(root, 'node_modules', '.cache', 'nx') : join(root, '.nx', 'cache'),
    source: shareable ? 'default (no nx found to ask about a shared ~/.nx/<id>/cache)' : 'default',
  };
}

const CACHE_HIT = new Set(['local-cache', 'local-cache-hit', 'local-cache-kept-existing', 'remote-cache']);
const none = (note: string, source?: string): SummaryReading => ({
  source,
  tasks: [],
  runningAcrossMove: [],
  ownKeys: undefined,
  note,
});

interface NxTask {
  taskId?: unknown;
  hash?: unknown;
  startTime?: unknown;
  endTime?: unknown;
  cacheStatus?: unknown;
}

function time(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : parsed;
}

/** nx keeps only the latest run in `<cache>/run.json`: read when it belongs to this run. */
export function nxSummary(cache: RunnerCache, options: { movedAt: number; runStartedAt: number }): SummaryReading {
  const path = join(cache.dir, 'run.json');
  let parsed: { run?: { startTime?: unknown }; tasks?: unknown };
  try {
    parsed = JSON.parse(readConfigText(path) ?? '') as typeof parsed;
  } catch (error) {
    if (error instanceof SyntaxError)
      return none(`nx's run summary "${path}" is not valid JSON; tasks are not named.`, path);
    return none(`nx wrote no run summary ("${path}") for this run; tasks are not named.`);
  }
  const started = time(parsed?.run?.startTime);
  if (started === undefined || !Array.isArray(parsed.tasks))
    return none(`nx's run summary "${path}" has no run start or task list; tasks are not named.`, path);
  if (started < options.runStartedAt)
    return none(`nx's run summary "${path}" is from an earlier run; tasks are not named.`, path);
  const tasks: TaskAfterMove[] = [];
  const across: string[] = [];
  const own: string[] = [];
  let first = Number.POSITIVE_INFINITY;
  for (const task of parsed.tasks as NxTask[]) {
    const start = time(task?.startTime);
    const end = time(task?.endTime);
    if (typeof task?.taskId !== 'string' || typeof task.hash !== 'string' || start === undefined || end === undefined)
      continue;
    own.push(task.hash);
    first = Math.min(first, start);
    if (start < options.movedAt && end > options.movedAt) across.push(task.hash);
    const status = task.cacheStatus;
    if (typeof status === 'string' && CACHE_HIT.has(status) && start >= options.movedAt)
      tasks.push({ task: task.taskId, key: task.hash, action: 'restored', at: start });
    else if (status === 'cache-miss' && end >= options.movedAt)
      tasks.push({ task: task.taskId, key: task.hash, action: 'saved', at: end });
  }
  return {
    source: path,
    tasks,
    runningAcrossMove: across,
    ...(Number.isFinite(first) ? { firstTaskAt: first } : {}),
    ownKeys: own,
    note: undefined,
  };
}
