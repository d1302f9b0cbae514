// One unit of the withholding pass (pass.ts): checked, its present paths recorded, moved whole or not at all.
//
// Owns: what a unit is (`QuarantineUnit`) and why one did not move (`NotMoved`); checking a unit's names and
// paths, recording its intent (one lstat per path), and moving it into its home in quarantine.
// Invariants:
// - Only paths inside the cache dir named in the unit move, and only when no parent on the way is a
//   symlink and the path itself is not one (a link is never followed, never moved); each path's last
//   component starts with the unit's key (the runners' layouts), so a forged unit cannot name other files.
// - A unit is never left split: a failed move puts back what moved, and what cannot be put back is settled
//   from where its files are (repair.ts); one that cannot be settled is `in-flight` (the pass keeps the lock).
// - Decisions read typed fields (`MoveResult.state`, `NotMoved.reason`); `why` and `detail` are words only.

import { lstatSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { errnoCode, isLockguardError, type LockguardError } from '../../core/errors.js';
import { fsFault } from '../../core/fs-fault.js';
import { safeFolder } from '../ledger-fs.js';
import { machineStamp, type TrustedPlaces } from '../trust.js';
import { unitId, type IntentLine } from './journal.js';
import { crossedLink, filesUnder, isSafeRelative, moveTree, recordTree, type RenameFn, type TreeFile } from './move.js';
import { entryHome } from './places.js';
import { settleUnit } from './repair.js';

/** One cache entry to withhold: every path of it moves, or none does. */
export interface QuarantineUnit {
  readonly runner: string;
  /** The runner's key (hash) for the entry; names its folder in quarantine. */
  readonly key: string;
  readonly cacheDir: string;
  /** Paths relative to `cacheDir` that make up the entry. */
  readonly paths: readonly string[];
  /** Why it is withheld, one short line for the report. */
  readonly reason: string;
  readonly task?: string;
}

export interface NotMoved {
  readonly key: string;
  readonly reason: 'symlink' | 'outside-cache-dir' | 'missing' | 'error' | 'interrupted';
  readonly detail: string;
}

/** A unit checked and recorded: its intent line, written before it moves. */
export interface Prepared {
  readonly unit: QuarantineUnit;
  readonly intent: IntentLine;
}

/**
 * What moving one unit did: `done` (in quarantine) or `undone` (whole in the cache), or `in-flight` when a
 * failed move could not be settled (split between cache and quarantine: the lock stays held, repair settles
 * it). `why` is words for the journal and the report only; decisions read `state`.
 */
export interface MoveResult {
  readonly state: 'done' | 'undone' | 'in-flight';
  readonly why?: string;
  readonly fault?: LockguardError;
}

/** A full or read-only disk, or no permission: a fault that ends the pass (anything else of a move is the unit's). */
export function isDiskFault(error: unknown): error is LockguardError {
  return isLockguardError(error) && (error.code === 'ERR_LOCKGUARD_DISK' || error.code === 'ERR_LOCKGUARD_ACCESS');
}

/** Check a unit and record its present paths (one lstat per path); a NotMoved when it cannot (or need not) move. */
export function prepare(unit: QuarantineUnit, now: number): Prepared | NotMoved {
  const problem = checkUnit(unit);
  if (problem !== undefined) return problem;
  const cacheDir = resolve(unit.cacheDir);
  const present: string[] = [];
  const files: TreeFile[] = [];
  try {
    for (const path of unit.paths) {
      const stats = lstatSync(join(cacheDir, path), { throwIfNoEntry: false });
      if (stats === undefined) continue;
      if (stats.isSymbolicLink())
        return {
          key: unit.key,
          reason: 'symlink',
          detail: `"${join(cacheDir, path)}" is a symlink; never followed, never moved`,
        };
      present.push(path);
      recordTree(cacheDir, path, files, stats);
    }
  } catch (error) {
    return {
      key: unit.key,
      reason: errnoCode(error) === 'ENOENT' ? 'missing' : 'error',
      detail: `cannot read it (${errnoCode(error) ?? 'error'})`,
    };
  }
  if (present.length === 0) return { key: unit.key, reason: 'missing', detail: 'the entry is gone from the cache' };
  const size = files.reduce((sum, file) => sum + file.size, 0);
  const intent: IntentLine = {
    op: 'intent',
    unit: unitId(unit.runner, unit.key),
    t: now,
    runner: unit.runner,
    key: unit.key,
    ...(unit.task === undefined ? {} : { task: unit.task }),
    cacheDir,
    paths: present,
    files,
    size,
    reason: unit.reason,
    ...machineStamp(),
  };
  return { unit, intent };
}

function checkUnit(unit: QuarantineUnit): NotMoved | undefined {
  if (!/^[\w.-]+$/.test(unit.key) || !/^[\w.-]+$/.test(unit.runner))
    return { key: unit.key, reason: 'outside-cache-dir', detail: 'the key is not a plain name' };
  for (const path of unit.paths) {
    if (!isSafeRelative(path))
      return { key: unit.key, reason: 'outside-cache-dir', detail: `"${path}" is not inside the cache dir` };
    const link = crossedLink(unit.cacheDir, path);
    if (link !== undefined)
      return { key: unit.key, reason: 'symlink', detail: `"${link}" is a symlink or not a folder; not followed` };
    if (!basename(path).startsWith(unit.key))
      return { key: unit.key, reason: 'outside-cache-dir', detail: `"${path}" is not a file of the entry ${unit.key}` };
  }
  return undefined;
}

/** A unit's home in quarantine, created (its runner's folder checked once per pass, `made`). */
function makeHome(dir: string, runner: string, key: string, made: Set<string>): string {
  if (!made.has(runner)) {
    safeFolder(dir, ['entries', runner], true);
    made.add(runner);
  }
  return safeFolder(join(dir, 'entries', runner), [key], true) ?? join(dir, entryHome(runner, key));
}

/** Move one prepared unit into quarantine; why not when it could not (the unit then stays whole in the cache, or in flight). */
export function moveUnit(
  dir: string,
  prepared: Prepared,
  rename: RenameFn | undefined,
  made: Set<string>,
  places: TrustedPlaces,
): MoveResult {
  const { intent } = prepared;
  const home = join(dir, entryHome(intent.runner, intent.key));
  const done: string[] = [];
  try {
    makeHome(dir, intent.runner, intent.key, made);
    for (const path of intent.paths) {
      moveTree(intent.cacheDir, path, home, path, filesUnder(intent.files, path), rename);
      done.push(path);
    }
    return { state: 'done' };
  } catch (error) {
    // Put back what already moved, so the unit stays whole in the cache; what cannot be put back is
    // settled from where its files are (finished into quarantine, or left in flight for repair).
    for (const path of done.reverse()) {
      try {
        moveTree(home, path, intent.cacheDir, path, filesUnder(intent.files, path), rename);
      } catch {
        break;
      }
    }
    const settled = settleUnit(dir, intent, 'withhold', places);
    const fault = isDiskFault(error) ? error : undefined;
    const why = error instanceof Error ? error.message : String(error);
    if (settled === 'withheld') return { state: 'done', ...(fault === undefined ? {} : { fault }) };
    if (settled === 'not-moved') return { state: 'undone', why, ...(fault === undefined ? {} : { fault }) };
    return {
      state: 'in-flight',
      why: `in flight: ${why}`,
      fault: fault ?? (isLockguardError(error) ? error : fsFault(error, intent.cacheDir, 'move a cache entry from')),
    };
  }
}
