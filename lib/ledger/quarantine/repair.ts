// Settling units a killed pass or restore left in flight: never split between cache and quarantine.
//
// Owns: `settleUnit` (one unit, from where its files are now) and `repairQuarantine` (every unit of a
// run's journal with an intent and no outcome; the outcome is appended).
// The rules, per path of the unit (its recorded tree is the truth; "ours" = bytes equal to the record, or a
// part of them left by an interrupted removal):
// - Stage copies (`.lockguard-stage-*`) are removed first: a stage is never an entry, and its source is
//   still in place (a source is removed only after its stage was verified and renamed).
// - Withholding: a path whose copy is in quarantine is withheld (a copy of ours left in the cache is
//   removed; a new file the runner wrote since is left alone). A unit with some paths in quarantine and
//   some still in the cache is finished: the rest moves too (the run had decided to withhold it). Nothing
//   in quarantine: not moved.
// - Restoring: every path in the cache: restored (leftovers in quarantine removed). Otherwise the restore is
//   undone: what reached the cache moves back to quarantine, so a half-restored entry is never replayed.
// Invariants: never deletes bytes that exist nowhere else: a copy is removed only when a complete, verified
// copy (equal to the record) stays on the other side; a file that is neither ours nor the record's is
// never touched; a link on the way is never crossed (such a unit stays in flight and is reported).
// - The trust rule (trust.ts): a unit is settled only when its cache dir is one of the trusted places the
//   caller hands in (the caches the workspace is configured for now), exactly; else it stays in flight.
// - In the cache, only regular files (bytes equal to the record's sha256) and the folders holding them are
//   removed: a link, a FIFO, a socket or a device carries no bytes to compare, so knowing its path proves
//   nothing, and a unit whose cache side holds one stays in flight.

import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { safeFolder } from '../ledger-fs.js';
import { appendJournal, readJournal, type IntentLine, type OutcomeLine, type UnitState } from './journal.js';
import { trustedCache, type TrustedPlaces } from '../trust.js';
import {
  crossedLink,
  filesUnder,
  isPartOf,
  moveTree,
  recordIfThere,
  stageOf,
  treeDifferences,
  type TreeFile,
} from './move.js';

export type Direction = 'withhold' | 'restore';

type Where = { q: 'full' | 'part' | 'none' | 'other'; c: 'full' | 'part' | 'none' | 'other' };

function treeMatch(recorded: readonly TreeFile[], now: readonly TreeFile[] | undefined): Where['q'] {
  if (now === undefined) return 'none';
  if (treeDifferences(recorded, now).length === 0) return 'full';
  return isPartOf(recorded, now) ? 'part' : 'other';
}

function remove(base: string, rel: string): void {
  rmSync(join(base, rel), { recursive: true, force: true });
}

/** Whether the cache side of a path holds only regular files and folders (what can be proven ours by its bytes). */
function provable(cache: string, rel: string): boolean {
  const now = recordIfThere(cache, rel);
  return now === undefined || now.every((file) => file.kind === 'file' || file.kind === 'dir');
}

/** The unit's home in quarantine reached without a link (or not there yet). */
function homeReachable(dir: string, intent: IntentLine): boolean {
  try {
    safeFolder(dir, ['entries', intent.runner, intent.key], false);
    return true;
  } catch {
    return false;
  }
}

/**
 * Bring one unit to a settled state from where its files are; returns the state it ends in ('moving' when
 * it could not be settled: a link on the way, a file that is neither side's, or a move that failed).
 */
export function settleUnit(dir: string, intent: IntentLine, direction: Direction, places: TrustedPlaces): UnitState {
  const home = join(dir, 'entries', intent.runner, intent.key);
  const trusted = trustedCache(places, intent.cacheDir, intent.runner);
  if (trusted === undefined || !homeReachable(dir, intent)) return 'moving';
  const cache = trusted.dir;
  const where = new Map<string, Where>();
  for (const path of intent.paths) {
    if (crossedLink(home, path) !== undefined || crossedLink(cache, path) !== undefined) return 'moving';
    if (!provable(cache, path)) return 'moving';
    for (const side of [home, cache]) rmSync(stageOf(join(side, path)), { recursive: true, force: true });
    const recorded = filesUnder(intent.files, path);
    where.set(path, {
      q: treeMatch(recorded, recordIfThere(home, path)),
      c: treeMatch(recorded, recordIfThere(cache, path)),
    });
  }
  try {
    return direction === 'withhold'
      ? settleWithhold(intent, home, cache, where)
      : settleRestore(intent, home, cache, where);
  } catch {
    return 'moving';
  }
}

function settleWithhold(intent: IntentLine, home: string, cache: string, where: Map<string, Where>): UnitState {
  const inQuarantine = [...where.values()].some((w) => w.q === 'full');
  if ([...where.values()].some((w) => w.q === 'part' || w.q === 'other')) return 'moving';
  if (!inQuarantine) return 'not-moved';
  for (const [path, w] of where) {
    if (w.q === 'full') {
      // Our copy left in the cache by an interrupted removal (or a rename that raced): the quarantine has it.
      if (w.c === 'full' || w.c === 'part') remove(cache, path);
    } else if (w.c === 'full') {
      safeFolder(dirname(dirname(dirname(home))), ['entries', intent.runner, intent.key], true);
      moveTree(cache, path, home, path, filesUnder(intent.files, path));
    }
    // q none and c none/other: gone from the cache, or replaced by the runner's own new save: nothing of ours.
  }
  return 'withheld';
}

function settleRestore(intent: IntentLine, home: string, cache: string, where: Map<string, Where>): UnitState {
  const values = [...where.values()];
  if (values.every((w) => w.c === 'full')) {
    for (const [path, w] of where) if (w.q === 'full' || w.q === 'part') remove(home, path);
    return 'restored';
  }
  // Not every path reached the cache: undo, so the entry is whole in quarantine again.
  for (const [path, w] of where) {
    if (w.q === 'full') {
      if (w.c === 'full' || w.c === 'part') remove(cache, path);
    } else if (w.c === 'full') {
      if (w.q === 'part') remove(home, path);
      safeFolder(dirname(dirname(dirname(home))), ['entries', intent.runner, intent.key], true);
      moveTree(cache, path, home, path, filesUnder(intent.files, path));
    } else if (w.q !== 'none' || w.c !== 'none') {
      return 'moving';
    }
  }
  return 'withheld';
}

export interface RepairResult {
  readonly settled: number;
  /** Units that could not be settled (they stay in flight; listed by `quarantine list`). */
  readonly stuck: readonly string[];
}

/** Settle every unit of the quarantine folder `dir` that has an intent and no outcome, inside `places`; append the outcomes. */
export function repairQuarantine(dir: string, places: TrustedPlaces): RepairResult {
  const reading = readJournal(dir);
  if (reading.source !== 'journal') return { settled: 0, stuck: [] };
  const outcomes: OutcomeLine[] = [];
  const stuck: string[] = [];
  for (const unit of reading.units) {
    if (unit.state !== 'moving' && unit.state !== 'restoring') continue;
    const direction: Direction = unit.state === 'moving' ? 'withhold' : 'restore';
    const state = settleUnit(dir, unit.intent, direction, places);
    const t = Date.now();
    if (state === 'moving') stuck.push(unit.intent.unit);
    else if (direction === 'withhold')
      outcomes.push({
        op: state === 'withheld' ? 'done' : 'undone',
        unit: unit.intent.unit,
        t,
        why: 'settled by repair after an interrupted pass',
      });
    else
      outcomes.push({
        op: state === 'restored' ? 'restored' : 'unrestored',
        unit: unit.intent.unit,
        t,
        why: 'settled by repair after an interrupted restore',
      });
  }
  appendJournal(dir, outcomes, true);
  return { settled: outcomes.length, stuck };
}
