// Listing a runner's cache cheaply: entry names from readdir, then one lstat per entry.
//
// Owns: the before-the-run `cacheState` and each entry's stat identity; which names make one entry is the
// runner's adapter's (`units`, `unitPaths`: registry.ts).
// Invariants:
// - One readdir of the cache dir (plus one per pnpm shard, up to 256), one lstat per entry; never reads
//   an entry's bytes, never follows a link (a linked entry is recorded as 'link').
// - A missing cache dir is a value (an empty state); an unreadable one is a LockguardError naming it.

import { lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { cacheError, cacheNames } from './cache-dir.js';
import { adapterFor } from './registry.js';
import type { CacheState, CacheUnit, RunnerCache, UnitIdentity } from './types.js';

/** The entries in the cache now (names only, no stat), or undefined when the cache dir does not exist. */
export function listUnits(cache: RunnerCache): CacheUnit[] | undefined {
  const list = cacheNames(cache.dir);
  if (list === undefined) return undefined;
  return adapterFor(cache.runner).units(cache.dir, list);
}

/** Every path of an entry, relative to the cache dir: what moves together (computed only for candidates). */
export function unitPaths(cache: RunnerCache, unit: CacheUnit): string[] {
  return adapterFor(cache.runner).unitPaths(unit);
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
