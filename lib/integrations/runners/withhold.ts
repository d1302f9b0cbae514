// The after-run pass: which cache entries this run saved under keys that folded the old lockfile, and
// moving them into quarantine.
//
// Owns: the decision per entry, from the before-listing, the stat identity now and the moment of the move.
// An entry is withheld when this run wrote it (absent from `before`, or its primary path's identity
// changed), it was written (mtime) between the run's start and end, and either at or after the move, or
// by a task the runner's summary shows running across the move. When the summary lists this run's own
// keys, only those are candidates (a shared cache, e.g. nx's `~/.nx/<id>/cache`, may take a concurrent
// checkout's saves). A candidate `spare` keeps stays in the cache (its project's slice did not move:
// affected.ts decides, and anything it cannot establish is withheld).
// Invariants: entries present before the run, written before the move, or written outside the run stay;
// a symlinked entry is never followed and never moved (reported); nothing outside the cache dir moves;
// nothing is deleted (quarantine is a journaled rename, ledger/quarantine.ts); a stop request (a second
// signal) or a disk fault ends the pass at a safe point between units, and the result says so.

import { quarantine, type NotMoved, type QuarantineUnit } from '../../ledger/quarantine/index.js';
import { listUnits, sameIdentity, unitIdentity, unitPaths, writtenAtOf } from './listing.js';
import type {
  CacheState,
  RunnerCache,
  WithholdOptions,
  WithholdPlan,
  WithholdPlanOptions,
  WithholdResult,
} from './types.js';

export type { WithholdOptions, WithholdPlan, WithholdPlanOptions, WithholdResult } from './types.js';

/**
 * File times come from the kernel's coarse clock, which can lag `Date.now()` by a tick: the run's window
 * is widened by this much on both sides (the move itself is compared file time to file time).
 */
const COARSE_CLOCK_MS = 20;

/** Decide which entries to withhold, without moving anything (the pass `withhold` applies). */
export function planWithhold(cache: RunnerCache, before: CacheState, options: WithholdPlanOptions): WithholdPlan {
  const across = new Set(options.runningAcrossMove ?? []);
  const own = options.ownKeys === undefined ? undefined : new Set(options.ownKeys);
  const units: QuarantineUnit[] = [];
  const links: NotMoved[] = [];
  const spared: { key: string; task: string }[] = [];
  let keptBeforeMove = 0;
  for (const unit of listUnits(cache) ?? []) {
    const was = before.entries.get(unit.key);
    const now = unitIdentity(cache, unit);
    if (now === undefined || sameIdentity(was, now)) continue;
    if (own !== undefined && !own.has(unit.key)) continue;
    if (now === 'link') {
      links.push({
        key: unit.key,
        reason: 'symlink',
        detail: `"${cache.dir}/${unit.primary}" is a symlink; never followed, never moved`,
      });
      continue;
    }
    const writtenAt = writtenAtOf(now);
    if (writtenAt < options.runStartedAt - COARSE_CLOCK_MS || writtenAt > options.runEndedAt + COARSE_CLOCK_MS)
      continue;
    const acrossMove = across.has(unit.key);
    if (writtenAt < options.movedAt && !acrossMove) {
      keptBeforeMove++;
      continue;
    }
    const verdict = options.spare?.(unit.key);
    const task = options.taskOf?.get(unit.key) ?? verdict?.task ?? options.nameOf?.(unit.key);
    if (verdict?.keep === true) {
      spared.push({ key: unit.key, task: task ?? unit.key });
      continue;
    }
    units.push({
      runner: cache.runner,
      key: unit.key,
      cacheDir: cache.dir,
      paths: unitPaths(cache, unit),
      reason:
        writtenAt >= options.movedAt
          ? (options.reasons?.after ?? 'saved at or after the move, under a key that folded the old lockfile')
          : (options.reasons?.across ?? 'its task was running when the lockfile moved'),
      ...(task === undefined ? {} : { task }),
    });
  }
  return { units, keptBeforeMove, spared, links };
}

/** A pass that moves nothing: the plan's counts and links; with `detail`, every planned entry not moved for it. */
export function keepInPlace(plan: WithholdPlan, detail?: string): WithholdResult {
  const unmoved =
    detail === undefined ? [] : plan.units.map((unit) => ({ key: unit.key, reason: 'error' as const, detail }));
  return {
    withheld: [],
    keptBeforeMove: plan.keptBeforeMove,
    spared: plan.spared,
    notMoved: [...plan.links, ...unmoved],
    quarantineDir: undefined,
  };
}

/** Move every entry this run saved under a stale key into `.lockguard/quarantine/<runId>/`. */
export async function withhold(
  cache: RunnerCache,
  before: CacheState,
  options: WithholdOptions,
): Promise<WithholdResult> {
  const plan = planWithhold(cache, before, options);
  const result = await quarantine(options.ledgerRoot ?? cache.root, options.runId, plan.units, {
    ...(options.rename === undefined ? {} : { rename: options.rename }),
    ...(options.control === undefined ? {} : { control: options.control }),
  });
  return {
    withheld: result.moved,
    keptBeforeMove: plan.keptBeforeMove,
    spared: plan.spared,
    notMoved: [...plan.links, ...result.notMoved],
    quarantineDir: result.moved.length > 0 ? result.dir : undefined,
    ...(result.interrupted === true ? { interrupted: true } : {}),
    ...(result.fault === undefined ? {} : { fault: result.fault }),
  };
}
