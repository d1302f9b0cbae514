// wireit's local cache: where it is, what one entry is, and the freshness stamp that must go with it.
//
// Owns: resolving the cache as wireit 0.14.13 does (read from its lib/cli-options.js, lib/caching/
// local-cache.js, lib/util/script-data-dir.js): `WIREIT_CACHE` is `local`, `none` or `github` (anything else
// makes wireit fail); unset, it is `none` when `CI` is exactly `true`, else `local`. A local save is the folder
// `<package>/.wireit/<hex(script name)>/cache/<sha256(fingerprint)>/` (the outputs, copied), written once
// (wireit throws if it exists); a hit copies it back. Next to `cache/`, the script's `fingerprint` file is the
// fingerprint its current outputs were built or restored under: when the next run computes the same one and
// the outputs are unchanged, wireit says "fresh" and reads no cache at all.
// The cache is spread over the packages, so lockguard's cache dir is the nearest folder holding every wireit
// package but the root (`packages/`), the one package's folder when there is one, or `<root>/.wireit` when
// only the root configures wireit; an entry's path is relative to it. The trust rule never lets a record name
// the workspace root itself (ledger/trust.ts): where the packages' nearest common folder is the root, a
// guarded run still withholds, but a dead run's record cannot steer into it (recovery leaves it, and says so).
// Measured (test/e2e/wireit.test.ts): a moved entry is a miss (wireit runs the script and saves again); with
// the stamp left naming it and the outputs in place, the next run is "fresh" and rebuilds nothing, so a
// withheld entry's stamp is removed first (what wireit itself does before every run or restore).
// Invariants: names and one lstat per entry; never follows a link (a linked `.wireit`, script or cache folder
// is not listed through); node_modules and dot folders are never walked; reads only the stamps of entries
// being withheld.

import { nodeCrypto } from '../../../core/lazy-builtins.js';
import { lstatSync, readdirSync, readFileSync, rmSync, type Dirent } from 'node:fs';
import { basename, join, posix, relative, sep } from 'node:path';
import type { Env } from '../../../core/env.js';
import { errnoCode } from '../../../core/errors.js';
import { cacheError, HEX } from '../cache-dir.js';
import type { CacheUnit, RunnerCache, SummaryReading } from '../types.js';
import { wireitPackages } from './packages.js';

export type WireitCacheMode = 'local' | 'none' | 'github';

/** The cache wireit uses with `env`, and where that came from; `invalid` when wireit would refuse to start. */
export function wireitCacheMode(env: Env): { mode: WireitCacheMode | 'invalid'; source: string } {
  const value = env['WIREIT_CACHE'];
  if (value === undefined) {
    return env['CI'] === 'true'
      ? { mode: 'none', source: 'default under CI=true (no cache)' }
      : { mode: 'local', source: 'default (local)' };
  }
  if (value === 'local' || value === 'none' || value === 'github')
    return { mode: value, source: `WIREIT_CACHE=${value}` };
  return { mode: 'invalid', source: 'WIREIT_CACHE (not local, none or github: wireit refuses to start)' };
}

/** The deepest common folder of relative POSIX paths ('' when they share none). */
function commonFolder(dirs: readonly string[]): string {
  const [first, ...rest] = dirs.map((dir) => dir.split('/'));
  if (first === undefined) return '';
  let length = first.length;
  for (const parts of rest) {
    let same = 0;
    while (same < Math.min(length, parts.length) && parts[same] === first[same]) same++;
    length = same;
  }
  return first.slice(0, length).join('/');
}

/** The folder lockguard treats as wireit's cache dir (see the header), as wireit resolves it now. */
export function resolveWireitCache(root: string, _argv: readonly string[], env: Env): RunnerCache {
  const packages = wireitPackages(root).filter((dir) => dir !== '.');
  const common = commonFolder(packages);
  const dir = packages.length === 0 ? join(root, '.wireit') : common === '' ? root : join(root, ...common.split('/'));
  return { runner: 'wireit', root, dir, source: wireitCacheMode(env).source };
}

const SHA256 = /^[0-9a-f]{64}$/;
const WALK_DEPTH = 4;

/** readdir with types; a missing or non-folder path is [], anything else loud. */
function entriesOf(path: string): Dirent[] {
  try {
    return readdirSync(path, { withFileTypes: true });
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw cacheError(path, error);
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

/** The entries of one `.wireit` folder (`rel` is its path relative to the cache dir, '' for the dir itself). */
function scriptEntries(dir: string, rel: string, into: CacheUnit[], seen: Set<string>): void {
  for (const script of entriesOf(join(dir, rel))) {
    if (!script.isDirectory() || !HEX.test(script.name)) continue;
    const cacheRel = rel === '' ? `${script.name}/cache` : `${rel}/${script.name}/cache`;
    // Names only, joined by concatenation (clean names from readdir): this loop is once per entry, and on a
    // 10,000-entry cache join's normalizing and Dirent objects cost as much as the listing's one lstat each.
    if (lstatSync(`${dir}/${cacheRel}`, { throwIfNoEntry: false })?.isDirectory() !== true) continue;
    for (const name of namesOf(`${dir}/${cacheRel}`)) {
      if (name.length !== 64 || !SHA256.test(name) || seen.has(name)) continue;
      seen.add(name);
      into.push({ key: name, primary: `${cacheRel}/${name}` });
    }
  }
}

/**
 * The entries under the cache dir `dir`: its own `.wireit` (or `dir` itself when it is one), then each package
 * folder below it (a folder with a package.json is not walked further), at most four folders deep. A key seen
 * twice (two scripts with the same fingerprint) is listed once.
 */
export function wireitUnits(dir: string): CacheUnit[] {
  const units: CacheUnit[] = [];
  const seen = new Set<string>();
  if (basename(dir) === '.wireit') {
    scriptEntries(dir, '', units, seen);
    return units;
  }
  const walk = (rel: string, depth: number): void => {
    const entries = entriesOf(rel === '' ? dir : join(dir, rel));
    if (entries.some((entry) => entry.name === '.wireit' && entry.isDirectory()))
      scriptEntries(dir, rel === '' ? '.wireit' : `${rel}/.wireit`, units, seen);
    if ((rel !== '' && entries.some((entry) => entry.name === 'package.json')) || depth >= WALK_DEPTH) return;
    for (const entry of entries)
      if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.'))
        walk(rel === '' ? entry.name : `${rel}/${entry.name}`, depth + 1);
  };
  walk('', 0);
  return units;
}

/** The script's freshness stamp next to an entry's `cache/` folder (`<pkg>/.wireit/<hex>/fingerprint`). */
function stampOf(dir: string, primary: string): string {
  return join(dir, ...posix.dirname(posix.dirname(primary)).split('/'), 'fingerprint');
}

/**
 * Remove the stamp of each entry (by its path relative to `dir`) when the stamp names that entry (its bytes
 * hash to the entry's key): the outputs in place are then no longer "fresh" to wireit. Returns the stamps
 * removed, relative to `dir`. A stamp that is absent or names another fingerprint stays.
 */
export function dropStamps(dir: string, entries: readonly { key: string; path: string }[]): string[] {
  const dropped: string[] = [];
  for (const { key, path } of entries) {
    const stamp = stampOf(dir, path);
    let bytes: Buffer;
    try {
      bytes = readFileSync(stamp);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') continue;
      throw cacheError(stamp, error);
    }
    if (nodeCrypto().createHash('sha256').update(bytes).digest('hex') !== key) continue;
    try {
      rmSync(stamp, { force: true });
    } catch (error) {
      throw cacheError(stamp, error);
    }
    dropped.push(relative(dir, stamp).split(sep).join('/'));
  }
  return dropped;
}

/**
 * wireit writes no report of a run (by design, so no note): its saves are judged by when they were written
 * and named by their keys.
 */
export function wireitSummary(): SummaryReading {
  return { source: undefined, tasks: [], runningAcrossMove: [], ownKeys: undefined, note: undefined };
}
