// turbo's cache entries: which names of the cache dir make one entry, and every path of one save.
//
// Owns: the layout `<hash>.tar.zst` + `<hash>-meta.json` (+ `<hash>-manifest.json` on 2.11.11; 2.0.14 and
// 2.5.8 write none), all written when the task ends.
// Invariants: names only (no stat, no read); no regex on the common path (a 10,000-entry cache); a meta or
// manifest without an archive (a torn save) still makes an entry.

import { HEX } from '../cache-dir.js';
import type { CacheUnit } from '../types.js';

const TURBO_SIDE_FILE = /^([0-9a-f]+)(-meta\.json|-manifest\.json)$/;
/** A turbo entry's archive: `<hash>.tar.zst`. */
const TURBO_ARCHIVE = '.tar.zst';

/** The entries among the cache dir's names. */
export function turboUnits(list: readonly string[]): CacheUnit[] {
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

/** One save: the archive and its side files, moved together. */
export function turboUnitPaths(unit: CacheUnit): string[] {
  return [`${unit.key}.tar.zst`, `${unit.key}-meta.json`, `${unit.key}-manifest.json`];
}
