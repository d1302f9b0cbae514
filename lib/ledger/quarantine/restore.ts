// Restoring quarantined cache entries: exactly, journaled, and never over something the cache holds again.
//
// Owns: `restore` (checks the record's sha256 of every file before moving anything back, skips an entry
// any of whose paths exists in the cache, records a restore intent before the move and its outcome after).
// Works from whatever the journal holds: a pass killed midway still lists every unit it moved (a unit left
// in flight is settled first: the lock's takeover repairs it, repair.ts).
// Invariants: never overwrites, never deletes; an entry that changed in quarantine stays there; a restore
// killed midway is settled by the next command (finished when every path reached the cache, else undone).
// Trust (trust.ts): an entry goes back only into a cache the workspace is configured for now, named exactly
// by its record, and only when that record was made on this host (a legacy or foreign record is refused,
// with where its files are).

import { lstatSync, mkdirSync, rmdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { errnoCode, LockguardError } from '../../core/errors.js';
import { appendJournal, readJournal, type JournalUnit, type OutcomeLine } from './journal.js';
import {
  crossedLink,
  filesUnder,
  moveTree,
  recordTree,
  treeDifferences,
  type RenameFn,
  type TreeFile,
} from './move.js';
import { settleUnit } from './repair.js';
import { safeFolder } from '../ledger-fs.js';
import { madeOnThisHost, trustedCache, type TrustedPlaces } from '../trust.js';
import { entryHome, lockQuarantine, quarantineFolder, quarantineRoot, type QuarantinedEntry } from './pass.js';
import { entryOf } from './list.js';
import { isoTime } from '../../core/iso-time.js';

export type SkipReason =
  | 'already-in-cache'
  | 'already-restored'
  | 'changed-in-quarantine'
  | 'symlink-in-the-way'
  | 'in-flight'
  | 'unknown-cache-dir'
  | 'foreign'
  | 'error';

export interface RestoreOptions {
  readonly entry?: string;
  readonly rename?: RenameFn;
  readonly now?: () => Date;
  /**
   * The caches entries may go back into (trust.ts): the journal lives in the workspace and names its cache
   * dirs itself, so only a cache the workspace is configured for now, named exactly, receives anything.
   */
  readonly places: TrustedPlaces;
}

export interface RestoreResult {
  readonly restored: readonly QuarantinedEntry[];
  readonly skipped: readonly {
    readonly entry: QuarantinedEntry;
    readonly reason: SkipReason;
    readonly detail: string;
  }[];
}

const BATCH = 256;

function noQuarantine(root: string, runId: string, dir: string): never {
  throw new LockguardError(
    'ERR_LOCKGUARD_BAD_RUN',
    `No quarantine for the run "${runId}" in "${quarantineRoot(root)}".`,
    {
      path: dir,
      hint: 'lockguard quarantine list shows the runs that withheld entries.',
    },
  );
}

/** Why `unit` cannot be restored now, or undefined when it can. */
function blocker(
  dir: string,
  unit: JournalUnit,
  places: TrustedPlaces,
): { reason: SkipReason; detail: string } | undefined {
  const { intent } = unit;
  if (unit.state === 'restored')
    return { reason: 'already-restored', detail: `restored at ${isoTime(unit.restoredAt ?? 0)}` };
  if (unit.state !== 'withheld')
    return {
      reason: 'in-flight',
      detail: 'a pass or restore left it in flight and it could not be settled; see lockguard quarantine list',
    };
  if (!madeOnThisHost(intent))
    return {
      reason: 'foreign',
      detail: `its record was not made on this host (another machine, lockguard 0.1, or a committed ledger); not restored: its files are in "${join(dir, entryHome(intent.runner, intent.key))}" if you know they are good`,
    };
  if (trustedCache(places, intent.cacheDir, intent.runner) === undefined)
    return {
      reason: 'unknown-cache-dir',
      detail: `"${intent.cacheDir}" is not a ${intent.runner} cache this workspace is configured for now; not restored there (set the same TURBO_CACHE_DIR / NX_CACHE_DIRECTORY as the run had)`,
    };
  try {
    safeFolder(dir, ['entries', intent.runner, intent.key], false);
  } catch (error) {
    return { reason: 'symlink-in-the-way', detail: error instanceof Error ? error.message : String(error) };
  }
  const home = join(dir, entryHome(intent.runner, intent.key));
  const inCache = intent.paths.find(
    (p) => crossedLink(intent.cacheDir, p) === undefined && exists(join(intent.cacheDir, p)),
  );
  if (inCache !== undefined)
    return { reason: 'already-in-cache', detail: `"${join(intent.cacheDir, inCache)}" exists; not overwritten` };
  const link = intent.paths.map((p) => crossedLink(intent.cacheDir, p)).find((found) => found !== undefined);
  if (link !== undefined)
    return { reason: 'symlink-in-the-way', detail: `"${link}" is a symlink or not a folder; not followed` };
  let now: TreeFile[];
  try {
    now = intent.paths.flatMap((p) => recordTree(home, p));
  } catch (error) {
    return { reason: 'changed-in-quarantine', detail: `cannot read it in quarantine (${errnoCode(error) ?? 'error'})` };
  }
  const problems = treeDifferences(intent.files, now);
  if (problems.length > 0) return { reason: 'changed-in-quarantine', detail: problems.slice(0, 3).join('; ') };
  return undefined;
}

/** Whether anything (a link included) stands at `path`; an unreadable parent counts as "something". */
function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

/** Put a run's quarantined entries (or the one whose key is `entry`) back where they were, never overwriting. */
export function restore(root: string, runId: string, options: RestoreOptions): RestoreResult {
  const dir = quarantineFolder(root, runId, false);
  if (dir === undefined) return noQuarantine(root, runId, join(quarantineRoot(root), runId));
  const lock = lockQuarantine(root, runId, options.places);
  try {
    const reading = readJournal(dir);
    if (reading.source === 'none') return noQuarantine(root, runId, dir);
    const chosen = chosenUnits(reading.units, options.entry, runId, dir);
    if (reading.source === 'manifest') upgradeLegacy(dir, reading.units);
    const now = (): number => (options.now?.() ?? new Date()).getTime();
    const restored: QuarantinedEntry[] = [];
    const skipped: RestoreResult['skipped'][number][] = [];
    for (let start = 0; start < chosen.length; start += BATCH) {
      const ready: JournalUnit[] = [];
      for (const unit of chosen.slice(start, start + BATCH)) {
        const why = blocker(dir, unit, options.places);
        if (why === undefined) ready.push(unit);
        else skipped.push({ entry: entryOf(unit), ...why });
      }
      appendJournal(
        dir,
        ready.map((unit) => ({ op: 'restore', unit: unit.intent.unit, t: now() })),
        true,
      );
      const outcomes: OutcomeLine[] = [];
      for (const unit of ready) restoreUnit(dir, unit, options, now, { outcomes, restored, skipped });
      appendJournal(dir, outcomes, true);
    }
    return { restored, skipped };
  } finally {
    lock.release();
  }
}

/** The units a restore takes: every moved one, or the one `entry` names (its key, unit id or runner:key). */
function chosenUnits(
  units: readonly JournalUnit[],
  entry: string | undefined,
  runId: string,
  dir: string,
): JournalUnit[] {
  const listed = units.filter((unit) => unit.state !== 'not-moved');
  const chosen = listed.filter(
    (unit) =>
      entry === undefined ||
      unit.intent.key === entry ||
      unit.intent.unit === entry ||
      `${unit.intent.runner}:${unit.intent.key}` === entry,
  );
  if (entry !== undefined && chosen.length === 0) {
    throw new LockguardError('ERR_LOCKGUARD_USAGE', `The run "${runId}" withheld no entry "${entry}".`, {
      path: dir,
      hint: `lockguard quarantine list --run ${runId} shows its entries.`,
    });
  }
  return chosen;
}

interface RestoreTally {
  readonly outcomes: OutcomeLine[];
  readonly restored: QuarantinedEntry[];
  readonly skipped: RestoreResult['skipped'][number][];
}

/** Move one unit (its restore intent journaled) back into its cache; a failure is settled from where its files are. */
function restoreUnit(
  dir: string,
  unit: JournalUnit,
  options: RestoreOptions,
  now: () => number,
  tally: RestoreTally,
): void {
  const { outcomes, restored, skipped } = tally;
  const { intent } = unit;
  const home = join(dir, entryHome(intent.runner, intent.key));
  try {
    mkdirSync(intent.cacheDir, { recursive: true });
    for (const p of intent.paths) moveTree(home, p, intent.cacheDir, p, filesUnder(intent.files, p), options.rename);
    for (const p of intent.paths) pruneEmpty(dirname(join(home, p)), dir);
    const t = now();
    outcomes.push({ op: 'restored', unit: intent.unit, t });
    restored.push(entryOf({ ...unit, state: 'restored', restoredAt: t }));
  } catch (error) {
    // Back into quarantine what already reached the cache (settled from where the files are).
    const state = settleUnit(dir, intent, 'restore', options.places);
    const detail = error instanceof Error ? error.message : String(error);
    if (state === 'restored') {
      const t = now();
      outcomes.push({ op: 'restored', unit: intent.unit, t });
      restored.push(entryOf({ ...unit, state: 'restored', restoredAt: t }));
    } else {
      if (state === 'withheld') outcomes.push({ op: 'unrestored', unit: intent.unit, t: now(), why: detail });
      skipped.push({ entry: entryOf(unit), reason: 'error', detail });
    }
  }
}

/** A lockguard 0.1 manifest becomes a journal before the first restore writes to it (the manifest stays as it was). */
function upgradeLegacy(dir: string, units: readonly JournalUnit[]): void {
  const lines = units.flatMap((unit) => {
    const base = [unit.intent, { op: 'done' as const, unit: unit.intent.unit, t: unit.withheldAt ?? unit.intent.t }];
    return unit.state === 'restored'
      ? [
          ...base,
          { op: 'restore' as const, unit: unit.intent.unit, t: unit.restoredAt ?? 0 },
          { op: 'restored' as const, unit: unit.intent.unit, t: unit.restoredAt ?? 0 },
        ]
      : base;
  });
  appendJournal(dir, lines, true);
}

/** Remove now-empty folders from `from` up to (not including) `stop`; never removes anything non-empty. */
function pruneEmpty(from: string, stop: string): void {
  for (let dir = from; dir.startsWith(stop) && dir !== stop; dir = join(dir, '..')) {
    try {
      rmdirSync(dir);
    } catch {
      return;
    }
  }
}
