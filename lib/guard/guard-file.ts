// The guarded caches of a run, to and from their on-disk record (ledger/guard-record.ts), and the places a
// record read back may name (ledger/trust.ts).
//
// Owns: turning the runner adapters' shapes (RunnerCache, CacheState) into the structural record `lockguard
// run` writes before its child starts, and back, for the run that finishes a dead guard's work; composing
// the trusted places (the caches the workspace is configured for as they resolve now, from the runner
// adapters) that repair, recovery, restore and drop are handed.
// Invariants: paths are stored resolved (absolute, normalized); a record naming a runner lockguard does not
// know is skipped with a note, never guessed; a record only *names* a cache: what a recovery touches is that
// cache as it resolves now (dir, summaries, sharing), and only when the record names it exactly.

import type { Env } from '../core/env.js';
import { resolve } from 'node:path';
import {
  cachesNow,
  configuredRunners,
  RUNNER_NAMES,
  type CacheState,
  type RunnerCache,
  type RunnerName,
} from '../integrations/runners/index.js';
import type { GuardedCacheRecord, GuardRecord } from '../ledger/guard-record.js';
import { trustedCache, trustedPlaces, type TrustedPlaces } from '../ledger/trust.js';
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

/**
 * The caches a record read back may name: every configured runner's, and those of the runners a record names
 * (resolved on first use, once per runner: nx may be asked where its cache is, only when a record needs it).
 */
export class PlacesNow {
  private readonly resolved = new Map<RunnerName, RunnerCache | undefined>();
  private readonly root: string;
  private readonly env: Env;

  constructor(root: string, env: Env) {
    this.root = root;
    this.env = env;
  }

  /** The caches of the configured runners plus `named` (unknown names are ignored), as they resolve now. */
  list(named: readonly string[] = []): RunnerCache[] {
    const runners = new Set<RunnerName>([
      ...configuredRunners(this.root),
      ...named.filter((name): name is RunnerName => RUNNER_NAMES.includes(name as RunnerName) && name !== 'none'),
    ]);
    const out: RunnerCache[] = [];
    for (const runner of runners) {
      if (!this.resolved.has(runner)) this.resolved.set(runner, cachesNow(this.root, this.env, [runner])[0]);
      const cache = this.resolved.get(runner);
      if (cache !== undefined) out.push(cache);
    }
    return out;
  }

  trusted(named: readonly string[] = []): TrustedPlaces {
    return trustedPlaces(
      this.root,
      this.list(named).map((cache) => ({ runner: cache.runner, dir: resolve(cache.dir) })),
    );
  }
}

export type RecordedCache = { cache: RunnerCache; before: CacheState } | { problem: string };

/**
 * The cache one record names, as it resolves now, with the record's before-listing; or why it is left alone
 * (a runner lockguard does not know, another workspace, or a folder that is not one of its caches now).
 */
export function cacheOfRecord(record: GuardedCacheRecord, workspace: string, places: PlacesNow): RecordedCache {
  const runner = record.runner as RunnerName;
  if (!RUNNER_NAMES.includes(runner) || runner === 'none')
    return { problem: `${record.runner}: not a runner lockguard knows; its cache "${record.dir}" was left alone` };
  if (record.root !== resolve(workspace))
    return {
      problem: `${runner}: the record names another workspace ("${record.root}"); its cache "${record.dir}" was left alone`,
    };
  const trusted = trustedCache(places.trusted([runner]), record.dir, runner);
  const cache =
    trusted === undefined
      ? undefined
      : places
          .list([runner])
          .find((candidate) => candidate.runner === runner && resolve(candidate.dir) === trusted.dir);
  if (cache === undefined) {
    return {
      problem: `${runner}: "${record.dir}" is not a ${runner} cache this workspace is configured for now, so it was left alone: the saves the run made there stay unchecked (clear that cache if you did not set it on purpose for that run)`,
    };
  }
  return {
    cache,
    before: {
      dir: cache.dir,
      exists: record.before.exists,
      takenAt: record.before.takenAt,
      entries: new Map(record.before.entries),
    },
  };
}
