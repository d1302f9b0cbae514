// Quarantine: where withheld cache entries go, and the journaled pass that puts them there.
//
// Owns: `<root>/.lockguard/quarantine/<run id>/` (a `journal.ndjson`, journal.ts, plus
// `entries/<runner>/<key>/<the entry's paths relative to its cache dir>`), the withholding pass (all of a
// unit's paths or none): `quarantine`, and the `Pass` holding one pass's state (what moved, what did not,
// whether it stopped, a fault, whether the lock stays held) as it goes batch by batch. One unit's check and
// move live in unit.ts, the folder names and the lock in places.ts, listing in list.ts, restoring in
// restore.ts, settling units a killed pass left in flight in repair.ts.
// Invariants:
// - Never deletes a withheld entry (a drop on request is drop.ts; a pass that moved nothing
//   removes its own empty quarantine folder): quarantine is a rename (copy to a stage name + verify + rename + remove the source, only
//   across file systems).
// - Write-ahead: each batch of units is recorded as intents and fsync'd before any of them moves; each
//   unit's outcome follows its move. A kill at any moment leaves every moved byte named in the journal, and
//   a unit is never left split between cache and quarantine (repair finishes or undoes it).
// - Only paths inside the cache dir named in the unit move (unit.ts checks them).
// - One pass at a time per run: the pass holds the run's quarantine lock (ledger-lock.ts); a pass that
//   takes over a dead holder's lock repairs first. A unit left in flight, or outcomes not on disk, keep the
//   lock held (decided on typed states, never on words), so the next command repairs.
// - The pass yields to the event loop between units, so signals are seen there (interrupts.ts): a stop
//   request ends it at that safe point; what is left is recorded as not moved.
// Test seam: `PassControl.pauseAfterUnits`/`pause` (wired by the CLI to LOCKGUARD_TEST_PAUSE_AFTER_UNITS)
// makes the pass await `pause()` once after that many units, so a test can kill or signal it mid-pass.

import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { LockguardError } from '../../core/errors.js';
import { fsFault } from '../../core/fs-fault.js';
import { isoTime } from '../../core/iso-time.js';
import { DROPPED_PREFIX, JOURNAL_FILE } from '../ledger-layout.js';
import type { LedgerLock } from '../ledger-lock.js';
import { setAsideAndDelete } from '../set-aside.js';
import { trustedPlaces, type TrustedPlaces } from '../trust.js';
import { appendJournal, readJournal, unitRecord, type OutcomeLine, type UnitRecord } from './journal.js';
import type { RenameFn } from './move.js';
import { lockQuarantine, quarantineDir, quarantineFolder } from './places.js';
import { isDiskFault, moveUnit, prepare, type NotMoved, type Prepared, type QuarantineUnit } from './unit.js';

export type { NotMoved, QuarantineUnit } from './unit.js';

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
  quarantineFolder,
  quarantineLockName,
  quarantineRoot,
  RUN_ID,
} from './places.js';

function yieldToLoop(): Promise<void> {
  return new Promise((done) => setImmediate(done));
}

/** A unit the pass did not move because it stopped: by a fault (`error`), else by a stop request. */
function stopNote(key: string, fault: LockguardError | undefined): NotMoved {
  return fault === undefined
    ? { key, reason: 'interrupted', detail: 'the pass was stopped (a second signal) before this unit' }
    : { key, reason: 'error', detail: `the pass stopped: ${fault.message}` };
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
  if (units.length === 0) return { dir, moved: [], notMoved: [] };
  let folder: string;
  try {
    folder = quarantineFolder(root, runId, true) ?? dir;
  } catch (error) {
    // A full or read-only disk before anything moved: every unit stays in the cache, counted as such.
    if (!isDiskFault(error)) throw error;
    return { dir, moved: [], notMoved: units.map((unit) => stopNote(unit.key, error)), fault: error };
  }
  // The caller vouches for the caches its units name (resolved now); a dead pass's repair stays inside them.
  const places = trustedPlaces(
    root,
    units.map((unit) => ({ runner: unit.runner, dir: resolve(unit.cacheDir) })),
  );
  const lock = lockQuarantine(root, runId, places);
  return new Pass(folder, runId, units, options, places).run(lock);
}

/** One pass over a run's units, batch by batch: its state, and each section of the pass as a method. */
class Pass {
  private readonly folder: string;
  private readonly runId: string;
  private readonly units: readonly QuarantineUnit[];
  private readonly options: QuarantineOptions;
  private readonly places: TrustedPlaces;
  private readonly moved: QuarantinedEntry[] = [];
  private readonly notMoved: NotMoved[] = [];
  /** The runners whose folder in quarantine is checked (once per pass). */
  private readonly made = new Set<string>();
  /** Units the pass tried to move (for the test seam). */
  private count = 0;
  private paused = false;
  private interrupted = false;
  private fault: LockguardError | undefined;
  /** A unit left in flight, or outcomes not on disk: the lock stays held and the next command repairs. */
  private keepLock = false;
  /** The first unit of the batches not reached yet. */
  private next = 0;

  constructor(
    folder: string,
    runId: string,
    units: readonly QuarantineUnit[],
    options: QuarantineOptions,
    places: TrustedPlaces,
  ) {
    this.folder = folder;
    this.runId = runId;
    this.units = units;
    this.options = options;
    this.places = places;
  }

  /** Every batch in order under the run's `lock` (released unless kept), until a stop or a fault; then the rest. */
  async run(lock: LedgerLock): Promise<QuarantineResult> {
    try {
      for (let start = 0; start < this.units.length && !this.stopped(); start += BATCH) {
        this.next = Math.min(this.units.length, start + BATCH);
        const batch = this.prepareBatch(this.units.slice(start, start + BATCH));
        if (batch.length === 0) continue;
        if (!this.announce(batch)) break;
        await this.moveBatch(batch);
      }
    } finally {
      // A pass that withheld nothing (every entry gone to a concurrent run, or never there) leaves no
      // quarantine behind: an empty one would keep its run from `lockguard prune` for nothing.
      if (!this.keepLock && this.moved.length === 0 && !this.stopped()) dropIfEmpty(this.folder, this.runId);
      if (!this.keepLock) lock.release();
    }
    // Units of batches the pass never reached (stopped, or a fault): not moved, nothing recorded for them.
    for (const unit of this.units.slice(this.next)) this.notMoved.push(stopNote(unit.key, this.fault));
    return {
      dir: this.folder,
      moved: this.moved,
      notMoved: this.notMoved,
      ...(this.interrupted ? { interrupted: true } : {}),
      ...(this.fault === undefined ? {} : { fault: this.fault }),
    };
  }

  private stopped(): boolean {
    return this.interrupted || this.fault !== undefined;
  }

  private now(): number {
    return (this.options.now?.() ?? new Date()).getTime();
  }

  /** The batch's units checked and recorded; those that cannot (or need not) move are noted now. */
  private prepareBatch(units: readonly QuarantineUnit[]): Prepared[] {
    const batch: Prepared[] = [];
    for (const unit of units) {
      const prepared = prepare(unit, this.now());
      if ('intent' in prepared) batch.push(prepared);
      else this.notMoved.push(prepared);
    }
    return batch;
  }

  /** The batch's intents on disk (fsync'd) before any of it moves; false (a fault) when they cannot be. */
  private announce(batch: readonly Prepared[]): boolean {
    try {
      appendJournal(
        this.folder,
        batch.map((item) => item.intent),
        true,
      );
      return true;
    } catch (error) {
      // No intent on disk: nothing of this batch may move.
      const fault = fsFault(error, join(this.folder, JOURNAL_FILE), 'append to');
      this.fault = fault;
      for (const item of batch) this.notMoved.push(stopNote(item.unit.key, fault));
      return false;
    }
  }

  /** Each unit of the batch moved (or, once the pass stops, recorded as not moved), then the outcomes on disk. */
  private async moveBatch(batch: readonly Prepared[]): Promise<void> {
    const outcomes: OutcomeLine[] = [];
    for (const item of batch) {
      if (this.stopped() || this.options.control?.stopRequested?.() === true) {
        this.interrupted = this.interrupted || this.fault === undefined;
        const note = stopNote(item.unit.key, this.fault);
        outcomes.push({ op: 'undone', unit: item.intent.unit, t: this.now(), why: note.detail });
        this.notMoved.push(note);
        continue;
      }
      this.moveOne(item, outcomes);
      await this.pauseOnce(outcomes);
      await yieldToLoop();
    }
    try {
      appendJournal(this.folder, outcomes, true);
    } catch (error) {
      // The moves happened; their outcomes are not on disk. Keep the lock: the next command repairs.
      this.keepLock = true;
      this.fault = this.fault ?? fsFault(error, join(this.folder, JOURNAL_FILE), 'append to');
    }
  }

  /** Move one unit, its outcome added to `outcomes`; a unit left in flight keeps the lock, a fault stops the pass. */
  private moveOne(item: Prepared, outcomes: OutcomeLine[]): void {
    const result = moveUnit(this.folder, item, this.options.rename, this.made, this.places);
    const t = this.now();
    outcomes.push({
      op: result.state === 'done' ? 'done' : 'undone',
      unit: item.intent.unit,
      t,
      ...(result.why === undefined ? {} : { why: result.why }),
    });
    if (result.state === 'done') this.moved.push({ ...unitRecord(item.intent), withheldAt: isoTime(t) });
    else this.notMoved.push({ key: item.unit.key, reason: 'error', detail: result.why ?? 'not moved' });
    if (result.state === 'in-flight') this.keepLock = true;
    if (result.fault !== undefined) this.fault = result.fault;
    this.count++;
  }

  /** The test seam: once `pauseAfterUnits` units are done, their outcomes on disk, await `pause()`. */
  private async pauseOnce(outcomes: OutcomeLine[]): Promise<void> {
    const control = this.options.control;
    if (this.paused || control?.pause === undefined || control.pauseAfterUnits === undefined) return;
    if (this.count < control.pauseAfterUnits) return;
    this.paused = true;
    appendJournal(this.folder, outcomes.splice(0), false);
    await control.pause();
  }
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
