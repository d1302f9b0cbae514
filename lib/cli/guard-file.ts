// The guarded caches of a run, to and from their on-disk record (run/guard-record.ts).
//
// Owns: turning the runner adapters' shapes (RunnerCache, CacheState) into the structural record `lockguard
// run` writes before its child starts, and back, for the run that finishes a dead guard's work.
// Invariants: paths are stored resolved (absolute, normalized); a record naming a runner lockguard does not
// know is skipped with a note, never guessed.

import { resolve } from 'node:path';
import { RUNNER_NAMES, type CacheState, type RunnerCache, type RunnerName } from '../integrations/runners/index.js';
import type { GuardedCacheRecord, GuardRecord } from '../run/guard-record.js';
import type { GuardedCache } from './runner-guard.js';

export function guardRecordOf(caches: readonly GuardedCache[], runStartedAt: number): GuardRecord {
  return {
    version: 1,
    runStartedAt,
    caches: caches.map(({ cache, before, started }) => {
      const dir = resolve(cache.dir);
      return {
        runner: cache.runner,
        root: resolve(cache.root),
        dir,
        source: cache.source,
        ...(cache.shared === undefined ? {} : { shared: cache.shared }),
        ...(cache.summaries === undefined ? {} : { summaries: resolve(cache.summaries) }),
        started,
        before: { dir, exists: before.exists, takenAt: before.takenAt, entries: [...before.entries] },
      };
    }),
  };
}

/** The adapter shapes of one recorded cache, or undefined for a runner lockguard does not know. */
export function cacheOfRecord(record: GuardedCacheRecord): { cache: RunnerCache; before: CacheState } | undefined {
  const runner = record.runner as RunnerName;
  if (!RUNNER_NAMES.includes(runner) || runner === 'none') return undefined;
  const cache: RunnerCache = {
    runner,
    root: record.root,
    dir: record.dir,
    source: record.source,
    ...(record.shared === undefined ? {} : { shared: record.shared }),
    ...(record.summaries === undefined ? {} : { summaries: record.summaries }),
  };
  return { cache, before: { dir: record.dir, exists: record.before.exists, takenAt: record.before.takenAt, entries: new Map(record.before.entries) } };
}
