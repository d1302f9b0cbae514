// A guarded run's life in the ledger: start (record + live marker + signals), re-checks on evidence,
// and the final, authoritative check after the command ends.
//
// Owns: the run's FingerprintWatch, the moment of the move (earliest evidence: a hook report or a file
// event that led to it, or the moved file's ctime), the `moved` events, and ending the live marker.
// Invariants: every verdict comes from the table re-checked through the watch; once moved, stays moved;
// the live marker stays until `close()` records the run finished (after the final check and the withholding
// pass): a guard that dies before leaves a dead marker, and the next lockguard command finishes the run
// (run/recovery.ts). stop() and close() are idempotent.

import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkspaceFingerprints } from '../core/fingerprints.js';
import { FingerprintWatch } from '../core/watch.js';
import { watchSignals, type Signals, type SignalSource } from './fs-signals.js';
import { appendEvent, createRun, scanEvents, type Policy, type RunHandle } from './ledger.js';
import { fsFault } from '../core/fs-fault.js';
import { ledgerFolder } from './ledger-fs.js';
import { LEDGER } from './ledger-layout.js';
import { registerLive, unregisterLive, processStart } from './live.js';
import { currentDigest, type MovedFile } from './verdict.js';

/** `gate`: the remote gate re-checked the table before forwarding a restore or an upload. */
export type Evidence = SignalSource | 'exit' | 'gate';

export interface MoveRecord {
  /** Earliest evidence of the move, epoch ms. */
  readonly at: number;
  readonly evidence: Evidence;
  readonly files: readonly MovedFile[];
}

export class GuardSession {
  readonly run: RunHandle;
  readonly table: WorkspaceFingerprints;
  readonly watch: FingerprintWatch;
  #signals: Signals | undefined;
  #move: MoveRecord | undefined;
  #stopped = false;
  #closed = false;
  /** Install markers an early check found absent, and when: a move only if the final check agrees. */
  readonly #tentative = new Map<string, number>();

  constructor(table: WorkspaceFingerprints, policy: Policy, command: readonly string[]) {
    this.table = table;
    this.run = createRun({ kind: 'run', table, policy, command });
    this.watch = new FingerprintWatch(table.root, table, table.at);
    try {
      const live = ledgerFolder(table.root, [LEDGER.live], true) ?? table.root;
      try {
        registerLive(table.root, { dir: this.run.dir, id: this.run.record.id, pid: process.pid, pidStart: processStart(process.pid), policy });
      } catch (error) {
        throw fsFault(error, live, 'write the live marker in');
      }
    } catch (error) {
      // No marker, no run: a run that cannot be found later must not be left as if it had started.
      rmSync(this.run.dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Begin listening for early evidence (file events, hook reports). */
  listen(): void {
    this.#signals = watchSignals(
      this.table.root,
      this.table.entries.map((entry) => entry.path),
      this.run.dir,
      (source, at) => {
        this.#safeCheck(source, at);
      },
    );
  }

  /** The move, once found. */
  get move(): MoveRecord | undefined {
    return this.#move;
  }

  /** The final check: after the command exited. Throws what the table read cannot establish. */
  finish(): MoveRecord | undefined {
    this.stop();
    this.check('exit', Date.now());
    return this.#move;
  }

  /** Stop listening (the live marker stays until close()). */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#signals?.stop();
  }

  /**
   * The run is finished: its final check and withholding pass are recorded. Appends the `finished` event,
   * then drops the live marker. Returns false when the event could not be written (a full or read-only
   * disk): the marker then stays, and the next lockguard command finishes the run again (idempotent).
   */
  close(): boolean {
    if (this.#closed) return true;
    this.stop();
    try {
      appendEvent(this.run, { type: 'finished', by: 'run' });
    } catch {
      return false;
    }
    this.#closed = true;
    unregisterLive(this.table.root, this.run.record.id);
    return true;
  }

  /**
   * Re-check the table. Early checks (on a signal) use a fresh watch each time and commit what they find,
   * except an install marker that is merely absent: installs such as `npm ci` delete node_modules and
   * write it back, and a marker gone for a moment is not yet a move (no tree built from other bytes). It is
   * remembered, and counts if the final check still finds it gone or different. The final check (on exit)
   * is the run's own watch, and everything it finds counts. Once the run recorded a move it stays moved.
   */
  check(evidence: Evidence, at: number): void {
    const watch = evidence === 'exit' ? this.watch : new FingerprintWatch(this.table.root, this.table, this.table.at);
    watch.wrote();
    if (watch.moved() === undefined) return;
    const known = new Set(this.#move?.files.map((file) => file.path));
    const markers = new Set(this.table.entries.filter((entry) => entry.kind === 'install-marker').map((entry) => entry.path));
    const found = watch.moves().filter((move) => !known.has(move.path));
    const tentative = evidence === 'exit' ? [] : found.filter((move) => move.kind === 'went' && markers.has(move.path));
    for (const move of tentative) if (!this.#tentative.has(move.path)) this.#tentative.set(move.path, at);
    const fresh = found.filter((move) => !tentative.includes(move)).map((move) => ({ path: move.path, kind: move.kind, was: move.was, now: currentDigest(this.table.root, move, this.run.record) }));
    if (fresh.length === 0) return;
    const since = Math.min(at, ...fresh.map((file) => this.#tentative.get(file.path) ?? Infinity));
    // The moment is the first move's; later checks only add the files that moved since.
    this.#move = this.#move === undefined ? { at: this.#moment(since, fresh), evidence, files: fresh } : { ...this.#move, files: [...this.#move.files, ...fresh] };
    appendEvent(this.run, { type: 'moved', evidence, movedAt: this.#move.at, files: fresh });
  }

  #safeCheck(evidence: Evidence, at: number): void {
    try {
      this.check(evidence, at);
    } catch {
      // Early checks are best effort; the final check after exit throws what it cannot establish.
    }
  }

  /**
   * The earliest evidence: the first write (the moved files' ctimes, or the signal's time), pulled back to
   * the latest hook report at or before it: that package-manager command began the install, and a task
   * that finished while it was linking packages may have built against a half-new tree.
   */
  #moment(signalAt: number, files: readonly MovedFile[]): number {
    const write = Math.min(signalAt, ...files.map((file) => this.#ctimeOf(file.path)));
    let start = write;
    let latest = -Infinity;
    scanEvents(
      this.run.dir,
      (event) => {
        if (event.t <= write && event.t > latest) latest = event.t;
      },
      ['hook'],
    );
    if (Number.isFinite(latest)) start = latest;
    return Math.max(start, this.table.at);
  }

  #ctimeOf(path: string): number {
    try {
      return statSync(join(this.table.root, path)).ctimeMs;
    } catch {
      return Infinity;
    }
  }
}
