// Listing a runner's cache cheaply: entry names from readdir, then one lstat per entry.
//
// Owns: the per-runner layouts (which names make one entry) and the before-the-run `cacheState`.
// Invariants:
// - One readdir of the cache dir (plus one per pnpm shard, up to 256), one lstat per entry; never reads
//   an entry's bytes, never follows a link (a linked entry is recorded as 'link').
// - A missing cache dir is a value (an empty state); an unreadable one is a LockguardError naming it.

import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { errnoCode, LockguardError } from '../../core/errors.js';
import type { CacheState, CacheUnit, RunnerCache, UnitIdentity } from './types.js';

const TURBO_SIDE_FILE = /^([0-9a-f]+)(-meta\.json|-manifest\.json)$/;
const NX_ENTRY = /^\d+$/;
const HEX = /^[0-9a-f]+$/;
const SHARD = /^[0-9a-f]{2}$/;

function cacheError(dir: string, error: unknown): LockguardError {
  const code = errnoCode(error);
  if (code === 'EACCES' || code === 'EPERM') {
    return new LockguardError('ERR_LOCKGUARD_ACCESS', `Cannot read the runner cache dir "${dir}" (permission denied).`, {
      path: dir,
      cause: error,
      hint: 'Nothing was moved. Give your user read and write access to it (chmod u+rwx), or point the runner at a cache dir you own.',
    });
  }
  if (code === 'ENOTDIR') {
    return new LockguardError('ERR_LOCKGUARD_IO', `Expected the runner cache dir "${dir}" to be a folder, but it is not.`, {
      path: dir,
      cause: error,
      hint: 'Nothing was moved. Remove or rename that file; the runner recreates its cache folder.',
    });
  }
  return new LockguardError('ERR_LOCKGUARD_IO', `Cannot list the runner cache dir "${dir}" (${code ?? 'unknown error'}).`, { path: dir, cause: error, hint: 'Nothing was moved.' });
}

/** readdir, with ENOENT as undefined and everything else loud. */
function names(dir: string): string[] | undefined {
  try {
    return readdirSync(dir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw cacheError(dir, error);
  }
}

/** A turbo entry's archive: `<hash>.tar.zst`. */
const TURBO_ARCHIVE = '.tar.zst';

function turboUnits(list: readonly string[]): CacheUnit[] {
  // One pass, no regex on the common path: `<hash>.tar.zst` names the entry; meta/manifest without an
  // archive (a torn save) still make an entry.
  const keys = new Set<string>();
  const orphans = new Map<string, string>();
  for (const name of list) {
    if (name.endsWith(TURBO_ARCHIVE)) {
      const key = name.slice(0, -TURBO_ARCHIVE.length);
      if (HEX.test(key)) keys.add(key);
    } else {
      const match = TURBO_SIDE_FILE.exec(name);
      if (match?.[1] !== undefined && match[2] !== undefined && !orphans.has(match[1])) orphans.set(match[1], name);
    }
  }
  const units: CacheUnit[] = [];
  for (const key of keys) units.push({ key, primary: `${key}.tar.zst` });
  for (const [key, primary] of orphans) if (!keys.has(key)) units.push({ key, primary });
  return units;
}

function nxUnits(list: readonly string[]): CacheUnit[] {
  return list.filter((name) => NX_ENTRY.test(name)).map((key) => ({ key, primary: key }));
}

function pipelineUnits(dir: string, list: readonly string[]): CacheUnit[] {
  if (!list.includes('tasks')) return [];
  const tasks = join(dir, 'tasks');
  const top = lstatSync(tasks, { throwIfNoEntry: false });
  if (top === undefined || !top.isDirectory()) return [];
  const units: CacheUnit[] = [];
  for (const shard of names(tasks) ?? []) {
    if (!SHARD.test(shard)) continue;
    // A shard that is a link could lead out of the cache: never listed through.
    if (lstatSync(join(tasks, shard), { throwIfNoEntry: false })?.isDirectory() !== true) continue;
    for (const key of names(join(tasks, shard)) ?? []) {
      if (HEX.test(key) && key.startsWith(shard)) units.push({ key, primary: `tasks/${shard}/${key}` });
    }
  }
  return units;
}

/** The entries in the cache now (names only, no stat), or undefined when the cache dir does not exist. */
export function listUnits(cache: RunnerCache): CacheUnit[] | undefined {
  const list = names(cache.dir);
  if (list === undefined) return undefined;
  switch (cache.runner) {
    case 'turbo':
      return turboUnits(list);
    case 'nx':
      return nxUnits(list);
    case 'pnpm-pipeline':
      return pipelineUnits(cache.dir, list);
  }
}

/** Every path of an entry, relative to the cache dir: what moves together (computed only for candidates). */
export function unitPaths(cache: RunnerCache, unit: CacheUnit): string[] {
  switch (cache.runner) {
    case 'turbo':
      return [`${unit.key}.tar.zst`, `${unit.key}-meta.json`, `${unit.key}-manifest.json`];
    case 'nx':
      return [unit.key, `terminalOutputs/${unit.key}`];
    case 'pnpm-pipeline':
      return [unit.primary];
  }
}

/** lstat identity of a unit's primary path; 'link' for a symlink (never followed); undefined when gone. */
export function unitIdentity(cache: RunnerCache, unit: CacheUnit): UnitIdentity | 'link' | undefined {
  let stats: Stats | undefined;
  try {
    // Plain concatenation: `primary` is a clean relative name from the listing (join's normalizing costs
    // more than the lstat on a 10,000-entry cache).
    stats = lstatSync(`${cache.dir}/${unit.primary}`, { throwIfNoEntry: false });
  } catch (error) {
    throw cacheError(join(cache.dir, unit.primary), error);
  }
  if (stats === undefined) return undefined;
  if (stats.isSymbolicLink()) return 'link';
  return [stats.ino, stats.size, stats.mtimeMs, stats.ctimeMs];
}

/** The cheap listing taken before the command: every entry's key and its primary path's stat identity. */
export function cacheState(cache: RunnerCache, now: () => number = Date.now): CacheState {
  const takenAt = now();
  const units = listUnits(cache);
  const entries = new Map<string, UnitIdentity | 'link'>();
  for (const unit of units ?? []) {
    const identity = unitIdentity(cache, unit);
    if (identity !== undefined) entries.set(unit.key, identity);
  }
  return { dir: cache.dir, exists: units !== undefined, takenAt, entries };
}

/** When the entry was written: its primary path's mtime. */
export function writtenAtOf(identity: UnitIdentity): number {
  return identity[2];
}

export function sameIdentity(a: UnitIdentity | 'link' | undefined, b: UnitIdentity | 'link' | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  if (a === 'link' || b === 'link') return a === b;
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3];
}
