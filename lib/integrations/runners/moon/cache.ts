// moon's local cache (2.5.5): where it is, what one entry is, and the "previous run" state that must go with it.
//
// Owns: resolving the cache as moon resolves it (read from moon's crates/app session.rs, cache, cache-item,
// task-runner): always `<moon config dir>/cache` (`.moon/cache`, or `.config/moon/cache`), no setting moves it;
// `MOON_CACHE` is `off`, `read`, `write` or `read-write` (unset or anything else: read-write), deciding whether
// a run reads or writes it. One save is `outputs/<hash>.tar.gz` (the task's outputs, archived when the task
// ends) with its hash manifest `hashes/<hash>.json` (written when the task is hashed; moon calls it "purely for
// local debugging": a hit looks for the archive only). Next to them, `states/<project>/<task>/lastRun.json`
// names the hash the task's current outputs were built or restored under: when the next run computes the same
// hash, the run succeeded and the outputs exist, moon reuses them ("cached") and opens no archive at all.
// Measured (test/e2e/moon-poisoning.test.ts): a moved archive is a miss (moon runs the task and archives it
// again); with lastRun.json still naming it and the outputs in place, the next run is "cached" and rebuilds
// nothing, so a withheld entry's lastRun.json is removed first (withhold.ts).
// Not guarded here (said by doctor): the `experiments.casOutputsCache` store (`manifests/`, `blobs/`, or a
// shared worktree cache), where moon then saves instead of `outputs/`.
// Invariants: names and one lstat per entry (one readdir of `outputs/`); never follows a link; reads only the
// states of entries being withheld, and a hash manifest only to name an entry's task.

import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readConfigText } from '../../../core/bounded-read.js';
import type { Env } from '../../../core/env.js';
import { errnoCode } from '../../../core/errors.js';
import { cacheError, HEX } from '../cache-dir.js';
import type { CacheUnit, RunnerCache, SummaryReading } from '../types.js';
import { moonConfigDir } from './config.js';

export type MoonCacheMode = 'off' | 'read' | 'write' | 'read-write';

/** The cache mode moon runs in with `env`, and where that came from. */
export function moonCacheMode(env: Env): { mode: MoonCacheMode; source: string } {
  const value = env['MOON_CACHE'];
  if (value === undefined) return { mode: 'read-write', source: 'default (read-write)' };
  const lower = value.toLowerCase();
  if (lower === 'off' || lower === 'read' || lower === 'write' || lower === 'read-write')
    return { mode: lower, source: `MOON_CACHE=${lower}` };
  return {
    mode: 'read-write',
    source: 'MOON_CACHE (not off, read, write or read-write: moon falls back to read-write)',
  };
}

/** `.moon/cache` (or `.config/moon/cache`), as moon resolves it now. */
export function resolveMoonCache(root: string, _argv: readonly string[], env: Env): RunnerCache {
  return {
    runner: 'moon',
    root,
    dir: join(root, ...moonConfigDir(root).split('/'), 'cache'),
    source: moonCacheMode(env).source,
  };
}

const ARCHIVE = '.tar.gz';
const OUTPUTS = 'outputs';

/** The entries: each `outputs/<hash>.tar.gz` (one readdir of `outputs/`, only when the cache dir has one). */
export function moonUnits(dir: string, names: readonly string[]): CacheUnit[] {
  if (!names.includes(OUTPUTS)) return [];
  let list: string[];
  try {
    list = readdirSync(`${dir}/${OUTPUTS}`);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw cacheError(join(dir, OUTPUTS), error);
  }
  const units: CacheUnit[] = [];
  for (const name of list) {
    if (!name.endsWith(ARCHIVE)) continue;
    const key = name.slice(0, -ARCHIVE.length);
    if (key.length > 0 && HEX.test(key)) units.push({ key, primary: `${OUTPUTS}/${name}` });
  }
  return units;
}

/** One save: the archive and its hash manifest, moved together. */
export function moonUnitPaths(unit: CacheUnit): string[] {
  return [`${OUTPUTS}/${unit.key}${ARCHIVE}`, `hashes/${unit.key}.json`];
}

/** The task (`a:build`) an entry's hash manifest names, or undefined. */
export function moonEntryTask(cache: RunnerCache, key: string): string | undefined {
  if (!HEX.test(key)) return undefined;
  try {
    const parsed: unknown = JSON.parse(readConfigText(join(cache.dir, 'hashes', `${key}.json`)) ?? 'null');
    const first: unknown = Array.isArray(parsed) ? parsed[0] : parsed;
    const target = first !== null && typeof first === 'object' ? (first as { target?: unknown }).target : undefined;
    return typeof target === 'string' ? target : undefined;
  } catch {
    return undefined;
  }
}

/** readdir names; a missing or non-folder path is [], anything else loud. */
function namesOf(path: string): string[] {
  try {
    return readdirSync(path);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw cacheError(path, error);
  }
}

/** The hash a `lastRun.json` names, or undefined (absent, unreadable, not moon's shape). */
function lastRunHash(path: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    const hash = parsed !== null && typeof parsed === 'object' ? (parsed as { hash?: unknown }).hash : undefined;
    return typeof hash === 'string' ? hash : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Remove each `states/<project>/<task>/lastRun.json` that names one of `keys`: the outputs in place are then no
 * longer moon's "previous run" of that hash. Returns the states removed, relative to the cache dir. A state
 * naming another hash stays.
 */
export function dropLastRuns(dir: string, keys: ReadonlySet<string>): string[] {
  const dropped: string[] = [];
  const states = join(dir, 'states');
  for (const project of namesOf(states)) {
    for (const task of namesOf(join(states, project))) {
      const path = join(states, project, task, 'lastRun.json');
      const hash = lastRunHash(path);
      if (hash === undefined || !keys.has(hash)) continue;
      try {
        rmSync(path, { force: true });
      } catch (error) {
        throw cacheError(path, error);
      }
      dropped.push(`states/${project}/${task}/lastRun.json`);
    }
  }
  return dropped;
}

/**
 * moon's run report (`.moon/cache/runReport.json`) is not read: entries are judged by when they were written and
 * named by their hash manifests' targets.
 */
export function moonSummary(): SummaryReading {
  return { source: undefined, tasks: [], runningAcrossMove: [], ownKeys: undefined, note: undefined };
}
