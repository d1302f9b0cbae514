// Quarantine: where withheld cache entries go, and the journaled pass that puts them there.
//
// Owns: `<root>/.lockguard/quarantine/<run id>/` (a `journal.ndjson`, journal.ts, plus
// `entries/<runner>/<key>/<the entry's paths relative to its cache dir>`), the withholding pass (all of a
// unit's paths or none). The folder names and the lock live in places.ts, listing in list.ts, restoring in restore.ts, settling
// units a killed pass left in flight in repair.ts.
// Invariants:
// - Never deletes a withheld entry (a drop on request is drop.ts; a pass that moved nothing
//   removes its own empty quarantine folder): quarantine is a rename (copy to a stage name + verify + rename + remove the source, only
//   across file systems).
// - Write-ahead: each batch of units is recorded as intents and fsync'd before any of them moves; each
//   unit's outcome follows its move. A kill at any moment leaves every moved byte named in the journal, and
//   a unit is never left split between cache and quarantine (repair finishes or undoes it).
// - Only paths inside the cache dir named in the unit move, and only when no parent on the way is a
//   symlink and the path itself is not one (a link is never followed, never moved); each path's last
//   component starts with the unit's key (the runners' layouts), so a forged unit cannot name other files.
// - One pass at a time per run: the pass holds the run's quarantine lock (ledger-lock.ts); a pass that
//   takes over a dead holder's lock repairs first.
// - The pass yields to the event loop between units, so signals are seen there (interrupts.ts): a stop
//   request ends it at that safe point; what is left is recorded as not moved.
// Test seam: `PassControl.pauseAfterUnits`/`pause` (wired by the CLI to LOCKGUARD_TEST_PAUSE_AFTER_UNITS)
// makes the pass await `pause()` once after that many units, so a test can kill or signal it mid-pass.

import { lstatSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { errnoCode, isLockguardError, type LockguardError } from '../../core/errors.js';
import { fsFault } from '../../core/fs-fault.js';
import { safeFolder } from '../ledger-fs.js';
import { DROPPED_PREFIX, JOURNAL_FILE } from '../ledger-layout.js';
import { setAsideAndDelete } from '../set-aside.js';
import {
  appendJournal,
  readJournal,
  unitId,
  unitRecord,
  type IntentLine,
  type OutcomeLine,
  type UnitRecord,
} from './journal.js';
import { crossedLink, filesUnder, isSafeRelative, moveTree, recordTree, type RenameFn, type TreeFile } from './move.js';
import { entryHome, lockQuarantine, quarantineDir, quarantineFolder } from './places.js';
import { settleUnit } from './repair.js';
import { isoTime } from '../../core/iso-time.js';
import { machineStamp, trustedPlaces, type TrustedPlaces } from '../trust.js';

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

export interface QuarantinedEntry extends UnitRecord {
  readonly withheldAt: string;
  readonly restoredAt?: string;
}

export interface QuarantineManifest {
  readonly version: 1;
  readonly run: string;
  readonly root: string;
  readonly entries: readonly QuarantinedEntry[];
}

export interface NotMoved {
  readonly key: string;
  readonly reason: 'symlink' | 'outside-cache-dir' | 'missing' | 'error' | 'interrupted';
  readonly detail: string;
}

export interface QuarantineResult {
  readonly dir: string;
  readonly moved: readonly QuarantinedEntry[];
  readonly notMoved: readonly NotMoved[];
  /** True when a stop request ended the pass early (what is left is in `notMoved`, reason `interrupted`). */
  readonly interrupted?: boolean;
  /** A ledger or disk fault that ended the pass early (a full or read-only disk, no permission). */
  readonly fault?: LockguardError;
}

/** How a caller steers a pass: stop requests (signals) and the test seam. */
export interface PassControl {
  /** Asked between units: true stops the pass at this safe point. */
  readonly stopRequested?: () => boolean;
  /** Test seam: after this many units moved, await `pause()` once. */
  readonly pauseAfterUnits?: number;
  readonly pause?: () => Promise<void>;
}

export interface QuarantineOptions {
  readonly rename?: RenameFn;
  readonly now?: () => Date;
  readonly control?: PassControl;
}

/** Units recorded (and fsync'd) per batch of intents. */
const BATCH = 256;

export {
  entryHome,
  lockQuarantine,
  quarantineDir,
  quarantineFolder,
  quarantineLockName,
  quarantineRoot,
  RUN_ID,
} from './places.js';

function yieldToLoop(): Promise<void> {
  return new Promise((done) => setImmediate(done));
}

interface Prepared {
  readonly unit: QuarantineUnit;
  readonly intent: IntentLine;
}

/** Check a unit and record its present paths (one lstat per path); a NotMoved when it cannot (or need not) move. */
function prepare(unit: QuarantineUnit, now: number): Prepared | NotMoved {
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

/** A unit's home in quarantine, created (its runner's folder checked once per pass, `made`). */
function makeHome(dir: string, runner: string, key: string, made: Set<string>): string {
  if (!made.has(runner)) {
    safeFolder(dir, ['entries', runner], true);
    made.add(runner);
  }
  return safeFolder(join(dir, 'entries', runner), [key], true) ?? join(dir, entryHome(runner, key));
}

/**
 * What moving one unit did: `done` (in quarantine) or `undone` (whole in the cache), or `in-flight` when a
 * failed move could not be settled (split between cache and quarantine: the lock stays held, repair settles
 * it). `why` is words for the journal and the report only; decisions read `state`.
 */
interface MoveResult {
  readonly state: 'done' | 'undone' | 'in-flight';
  readonly why?: string;
  readonly fault?: LockguardError;
}

/** Move one prepared unit into quarantine; why not when it could not (the unit then stays whole in the cache, or in flight). */
function moveUnit(
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
    const fault =
      isLockguardError(error) && (error.code === 'ERR_LOCKGUARD_DISK' || error.code === 'ERR_LOCKGUARD_ACCESS')
        ? error
        : undefined;
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

/**
 * Move every unit into `<root>/.lockguard/quarantine/<runId>/`, journaled; units that cannot move are
 * reported, never half-moved. A stop request or a disk fault ends the pass at a safe point.
 */
export async function quarantine(
  root: string,
  runId: string,
  units: readonly QuarantineUnit[],
  options: QuarantineOptions = {},
): Promise<QuarantineResult> {
  const dir = quarantineDir(root, runId);
  const moved: QuarantinedEntry[] = [];
  const notMoved: NotMoved[] = [];
  if (units.length === 0) return { dir, moved, notMoved };
  let folder: string;
  try {
    folder = quarantineFolder(root, runId, true) ?? dir;
  } catch (error) {
    // A full or read-only disk before anything moved: every unit stays in the cache, counted as such.
    if (!isLockguardError(error) || (error.code !== 'ERR_LOCKGUARD_DISK' && error.code !== 'ERR_LOCKGUARD_ACCESS'))
      throw error;
    for (const unit of units)
      notMoved.push({ key: unit.key, reason: 'error', detail: `the pass stopped: ${error.message}` });
    return { dir, moved, notMoved, fault: error };
  }
  // The caller vouches for the caches its units name (resolved now); a dead pass's repair stays inside them.
  const places = trustedPlaces(
    root,
    units.map((unit) => ({ runner: unit.runner, dir: resolve(unit.cacheDir) })),
  );
  const lock = lockQuarantine(root, runId, places);
  const control = options.control;
  const now = (): number => (options.now?.() ?? new Date()).getTime();
  let count = 0;
  let paused = false;
  let interrupted = false;
  let fault: LockguardError | undefined;
  let keepLock = false;
  let next = 0;
  const made = new Set<string>();
  try {
    for (let start = 0; start < units.length && !interrupted && fault === undefined; start += BATCH) {
      next = Math.min(units.length, start + BATCH);
      const batch: Prepared[] = [];
      for (const unit of units.slice(start, start + BATCH)) {
        const prepared = prepare(unit, now());
        if ('intent' in prepared) batch.push(prepared);
        else notMoved.push(prepared);
      }
      if (batch.length === 0) continue;
      try {
        appendJournal(
          folder,
          batch.map((item) => item.intent),
          true,
        );
      } catch (error) {
        // No intent on disk: nothing of this batch may move.
        fault = fsFault(error, join(folder, JOURNAL_FILE), 'append to');
        for (const item of batch)
          notMoved.push({ key: item.unit.key, reason: 'error', detail: `the pass stopped: ${fault.message}` });
        break;
      }
      const outcomes: OutcomeLine[] = [];
      for (let i = 0; i < batch.length; i++) {
        const item = batch[i] as Prepared;
        if (interrupted || fault !== undefined || control?.stopRequested?.() === true) {
          interrupted = interrupted || fault === undefined;
          const why =
            fault === undefined
              ? 'the pass was stopped (a second signal) before this unit'
              : `the pass stopped: ${fault.message}`;
          outcomes.push({ op: 'undone', unit: item.intent.unit, t: now(), why });
          notMoved.push({ key: item.unit.key, reason: fault === undefined ? 'interrupted' : 'error', detail: why });
          continue;
        }
        const result = moveUnit(folder, item, options.rename, made, places);
        const t = now();
        outcomes.push({
          op: result.state === 'done' ? 'done' : 'undone',
          unit: item.intent.unit,
          t,
          ...(result.why === undefined ? {} : { why: result.why }),
        });
        if (result.state === 'done') {
          moved.push({ ...unitRecord(item.intent), withheldAt: isoTime(t) });
        } else {
          notMoved.push({ key: item.unit.key, reason: 'error', detail: result.why ?? 'not moved' });
          if (result.state === 'in-flight') keepLock = true;
        }
        if (result.fault !== undefined) fault = result.fault;
        count++;
        if (
          !paused &&
          control?.pauseAfterUnits !== undefined &&
          count >= control.pauseAfterUnits &&
          control.pause !== undefined
        ) {
          paused = true;
          appendJournal(folder, outcomes.splice(0), false);
          await control.pause();
        }
        await yieldToLoop();
      }
      try {
        appendJournal(folder, outcomes, true);
      } catch (error) {
        // The moves happened; their outcomes are not on disk. Keep the lock: the next command repairs.
        keepLock = true;
        fault = fault ?? fsFault(error, join(folder, JOURNAL_FILE), 'append to');
      }
    }
  } finally {
    // A pass that withheld nothing (every entry gone to a concurrent run, or never there) leaves no
    // quarantine behind: an empty one would keep its run from `lockguard prune` for nothing.
    if (!keepLock && moved.length === 0 && fault === undefined && !interrupted) dropIfEmpty(folder, runId);
    if (!keepLock) lock.release();
  }
  // Units of batches the pass never reached (stopped, or a fault): not moved, nothing recorded for them.
  for (const unit of units.slice(next)) {
    notMoved.push({
      key: unit.key,
      reason: fault === undefined ? 'interrupted' : 'error',
      detail:
        fault === undefined
          ? 'the pass was stopped (a second signal) before this unit'
          : `the pass stopped: ${fault.message}`,
    });
  }
  return {
    dir: folder,
    moved,
    notMoved,
    ...(interrupted ? { interrupted } : {}),
    ...(fault === undefined ? {} : { fault }),
  };
}

/** Remove a run's quarantine folder that holds nothing (no unit ever moved: only folders and the journal). */
function dropIfEmpty(folder: string, runId: string): void {
  try {
    if (!readJournal(folder).units.every((unit) => unit.state === 'not-moved')) return;
    const onlyFolders = (dir: string): boolean =>
      readdirSync(dir, { withFileTypes: true }).every((entry) =>
        entry.isDirectory()
          ? onlyFolders(join(dir, entry.name))
          : dir === folder && entry.name === JOURNAL_FILE && entry.isFile(),
      );
    if (!onlyFolders(folder)) return;
    setAsideAndDelete(dirname(folder), runId, DROPPED_PREFIX);
  } catch {
    // Left as it is: it holds nothing, and `quarantine drop` removes it.
  }
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
