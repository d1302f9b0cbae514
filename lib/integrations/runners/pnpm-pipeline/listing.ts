// pnpm pipeline's cache entries: `tasks/<key[:2]>/<key>/` folders (`meta.json` + `outputs/`), one per task key.
//
// Owns: listing the shards (up to 256 readdirs) and their entries; one save is its folder.
// Invariants: a shard that is a link is never listed through (it could lead out of the cache); names and
// one lstat per shard only; a key outside its shard's prefix is not an entry.

import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { cacheNames, HEX } from '../cache-dir.js';
import type { CacheUnit } from '../types.js';

const SHARD = /^[0-9a-f]{2}$/;

/** The entries of the pipeline cache at `dir`, whose names are `list`. */
export function pipelineUnits(dir: string, list: readonly string[]): CacheUnit[] {
  if (!list.includes('tasks')) return [];
  const tasks = join(dir, 'tasks');
  const top = lstatSync(tasks, { throwIfNoEntry: false });
  if (top === undefined || !top.isDirectory()) return [];
  const units: CacheUnit[] = [];
  for (const shard of cacheNames(tasks) ?? []) {
    if (!SHARD.test(shard)) continue;
    if (lstatSync(join(tasks, shard), { throwIfNoEntry: false })?.isDirectory() !== true) continue;
    for (const key of cacheNames(join(tasks, shard)) ?? []) {
      if (HEX.test(key) && key.startsWith(shard)) units.push({ key, primary: `tasks/${shard}/${key}` });
    }
  }
  return units;
}
