// nx (20 to 24): where its local cache is, and what its `run.json` says about the tasks after a move.
//
// Owns: resolving the cache dir of the nx the command really starts (which.ts: the workspace's own, else
// Lerna's), as that nx does:
//   1. `NX_CACHE_DIRECTORY` (relative to the root), else 2. nx.json `cacheDirectory` (or
//   `tasksRunnerOptions.default.options.cacheDirectory`); else 3. what that nx's own
//   `cache-directory` module answers (one `node` process requiring it from where the command's `require('nx')`
//   resolves, ~350 ms, remembered in memo.ts under a key of everything it depends on). Per version (measured):
//   nx 24.0.6 shares `~/.nx/<id>/cache` only when HOME is usable and not under /tmp and the workspace has an
//   identity (git, or an Nx Cloud id), so there, and only on nx 24 and newer, `<root>/.nx/cache` is known without
//   asking; nx 23.3.2 uses `~/.nx/<id>/cache` even with HOME under /tmp, nx 20 to 23.0 the checkout
//   (`node_modules/.cache/nx` for a lerna repo without nx.json): those are asked, never assumed.
//   No nx to ask, or no answer: a LockguardError (ERR_LOCKGUARD_BAD_CONFIG) (the cache is not guarded, and the line says why first);
//   never a folder guessed from the root.
// Entry layout (measured, nx 20 to 24): `<cache>/<hash>/` (the outputs) + `<cache>/terminalOutputs/<hash>`,
// plus a `cache_outputs` row in nx's task DB (`.nx/workspace-data/*.db` or `~/.nx/<id>/databases/`). With
// the folder gone nx 24 misses; nx 20 to 23 need the row marked first (task-db.ts, withhold.ts).
// Invariants: never writes anything of nx's; a missing or corrupt run.json is a note, never an error.

import type { Env } from '../../../core/env.js';
import { childProcess } from '../../../core/child-process.js';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { LockguardError } from '../../../core/errors.js';
import { nxMemoKey, readNxMemo, writeNxMemo } from './memo.js';
import { whichNx, type NxAt } from './which.js';
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

// argv[1]: the folder `require('nx')` resolves from (the root, or Lerna's package folder); cwd: the root.
const ASK_NX = `
const { createRequire } = require('node:module');
const req = createRequire(require('node:path').join(process.argv[1], 'package.json'));
const m = req(req.resolve('nx/src/utils/cache-directory'));
process.stdout.write(JSON.stringify({ cache: m.cacheDir }));
`;

/** How long the workspace's nx may take to say where its cache is (it loads its config and plugins). */
const ASK_NX_TIMEOUT_MS = 15_000;

/** The cache dir the nx at `from` computes for the workspace at `root`, or undefined when it gives no answer. */
function askNx(root: string, from: string, env: Env): string | undefined {
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) clean[name] = value;
  const result = childProcess().spawnSync(process.execPath, ['-e', ASK_NX, from], {
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

/** What makes nx's cache resolvable again (doctor's fix, the error's hint). */
export const NX_CACHE_FIX =
  'Install the workspace so the nx your command starts resolves (nx as a root devDependency, or Lerna installed), or set cacheDirectory in nx.json.';

/** Thrown where the nx a command starts cannot say where its cache is: nothing of it can be guarded. */
function cacheUnknown(why: string): LockguardError {
  return new LockguardError('ERR_LOCKGUARD_BAD_CONFIG', why, { hint: NX_CACHE_FIX });
}

/** The checkout's own cache dir (nx 24 with HOME under /tmp or no identity: measured). */
function inCheckout(root: string): string {
  const lerna = existsSync(join(root, 'lerna.json')) && !existsSync(join(root, 'nx.json'));
  return lerna ? join(root, 'node_modules', '.cache', 'nx') : join(root, '.nx', 'cache');
}

function major(nx: NxAt): number | undefined {
  return nx.version === undefined ? undefined : Number(nx.version.split('.')[0]);
}

export function resolveNxCache(root: string, env: Env, options: { askNx?: boolean } = {}): RunnerCache {
  const place = (path: string): string => (isAbsolute(path) ? path : join(root, path));
  const fromEnv = env['NX_CACHE_DIRECTORY'];
  if (fromEnv !== undefined && fromEnv !== '')
    return { runner: 'nx', root, dir: place(fromEnv), source: 'NX_CACHE_DIRECTORY' };
  const nxJson = readNxJson(root);
  const configured = nxJsonCacheDirectory(nxJson);
  if (configured !== undefined) return { runner: 'nx', root, dir: place(configured), source: 'nx.json cacheDirectory' };
  const nx = whichNx(root);
  if (nx === undefined)
    throw cacheUnknown(
      "no nx resolves from the workspace root or from Lerna's own folder (not installed?), so lockguard cannot tell which nx runs or where it caches",
    );
  const named = `nx ${nx.version ?? '(version unknown)'}${nx.via === 'lerna' ? " (Lerna's)" : ''}`;
  if ((major(nx) ?? 0) >= 24 && !mayShare(root, env, nxJson))
    return { runner: 'nx', root, dir: inCheckout(root), source: `default (${named}: HOME under /tmp or no identity)` };
  if (options.askNx === false) throw cacheUnknown(`${named} was not asked where its cache is`);
  const key = nxMemoKey(root, env, nx.manifest);
  const remembered = readNxMemo(root, key);
  const asked = remembered ?? askNx(root, nx.from, env);
  if (asked === undefined)
    throw cacheUnknown(`${named} did not say where its cache is (its cache-directory module failed to load)`);
  if (remembered === undefined) writeNxMemo(root, key, asked);
  return {
    runner: 'nx',
    root,
    dir: asked,
    source: `${named}'s own cache-directory resolution`,
    ...(relative(root, asked).startsWith('..') ? { shared: true } : {}),
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
