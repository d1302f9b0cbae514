// lage's local cache: where it is, what one entry is, and which settings turn local saves off.
//
// Owns: resolving the cache as lage 2.17.0 does (read from its bundled source: @lage-run/cache
// getCacheDirectory.ts, BackfillCacheProvider.ts, @lage-run/scheduler createCacheProvider.ts, backfill-cache
// LocalCacheStorage.ts). The folder is always `<root>/node_modules/.cache/lage` (root: the workspace manager's
// root, where the lockfile is): the local provider is handed `cache/<hash[:4]>` itself, so `cacheOptions.
// internalCacheFolder` and `BACKFILL_INTERNAL_CACHE_FOLDER` do not move it. One save of a target is the
// folder `cache/<hash[:4]>/<hash>/` (its outputs, copied; a hit copies them back) and the log lage replays on
// a hit, `logs/<hash[:4]>/<hash>.log`, written just after; keys are sha1 hex (40). Measured
// (test/e2e/lage-poisoning.test.ts; the log left alone, by hand): with the folder moved away the next run is
// a miss that runs the target; a log without its folder is never a hit (lage reads it only to replay one).
// Local saves are off with `--no-cache` or `--skip-local-cache`, or when `LAGE_RUN_CACHE` or
// `LAGE_RUN_SKIP_LOCAL_CACHE` is set (commander's env options: any value, "false" included, measured); `CI`
// alone does not turn them off (lage's default for --skip-local-cache is the string in CI, never `true`:
// measured). `BACKFILL_CACHE_PROVIDER` set makes the local provider that provider too (remote.ts).
// lage writes no run report: entries are judged by when they were written.
// Invariants: names and one lstat per entry; never follows a link; never reads an entry's bytes.

import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Env } from '../../../core/env.js';
import { errnoCode } from '../../../core/errors.js';
import { cacheError } from '../cache-dir.js';
import type { CacheUnit, RunnerCache, SummaryReading } from '../types.js';

const SHA1 = /^[0-9a-f]{40}$/;
const PREFIX = /^[0-9a-f]{4}$/;

/** `<root>/node_modules/.cache/lage`: the folder holding `cache/` and `logs/`. */
function lageCacheDir(root: string): string {
  return join(root, 'node_modules', '.cache', 'lage');
}

/** Why this run saves nothing locally (lage's flags and env), or undefined when it saves as usual. */
export function localSavesOff(argv: readonly string[], env: Env): string | undefined {
  const words = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length);
  if (words.includes('--no-cache')) return '--no-cache';
  if (env['LAGE_RUN_CACHE'] !== undefined) return 'LAGE_RUN_CACHE is set';
  if (words.includes('--skip-local-cache')) return '--skip-local-cache';
  if (env['LAGE_RUN_SKIP_LOCAL_CACHE'] !== undefined) return 'LAGE_RUN_SKIP_LOCAL_CACHE is set';
  return undefined;
}

export function resolveLageCache(root: string, argv: readonly string[], env: Env): RunnerCache {
  const off = localSavesOff(argv, env);
  return {
    runner: 'lage',
    root,
    dir: lageCacheDir(root),
    source: off === undefined ? 'default (lage fixes it)' : `default (no local saves this run: ${off})`,
  };
}

/** readdir of a shard (its names, or its subfolders: links and files left out, from the listing's own types); a missing one is [], anything else loud. */
function namesIn(path: string, folders = false): string[] {
  try {
    if (!folders) return readdirSync(path);
    return readdirSync(path, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw cacheError(path, error);
  }
}

/**
 * The entries under the cache dir (`names`: its own names, one readdir done): each `cache/<prefix>/<hash>`
 * whose prefix is the hash's first four characters. Other names (`npm/` of the npm provider, `skip-cache/` of
 * local-skip, `file_hashes.manifest`) are not entries.
 */
export function lageUnits(dir: string, names: readonly string[]): CacheUnit[] {
  // A linked `cache` folder is never listed through (nor moved: the quarantine checks every component).
  if (!names.includes('cache') || lstatSync(`${dir}/cache`, { throwIfNoEntry: false })?.isDirectory() !== true)
    return [];
  const units: CacheUnit[] = [];
  for (const prefix of namesIn(`${dir}/cache`, true)) {
    if (!PREFIX.test(prefix)) continue;
    for (const name of namesIn(`${dir}/cache/${prefix}`))
      if (name.length === 40 && name.startsWith(prefix) && SHA1.test(name))
        units.push({ key: name, primary: `cache/${prefix}/${name}` });
  }
  return units;
}

/** One save: the outputs folder and the log lage replays with it. */
export function lageUnitPaths(unit: CacheUnit): string[] {
  const prefix = unit.key.slice(0, 4);
  return [unit.primary, `logs/${prefix}/${unit.key}.log`];
}

/** lage writes no report of a run (so no note): its saves are judged by when they were written. */
export function lageSummary(): SummaryReading {
  return { source: undefined, tasks: [], runningAcrossMove: [], ownKeys: undefined, note: undefined };
}
