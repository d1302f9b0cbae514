// A guarded run's life in the ledger: start (record + live marker + signals), re-checks on evidence,
// and the final, authoritative check after the command ends.
//
// Owns: the run's FingerprintWatch, the moment of the move (earliest evidence: a hook report or a file
// event that led to it, or the moved file's ctime), the `moved` and `installed` events, and ending the live
// marker.
// Invariants: every verdict comes from the table re-checked through the watch; a move is a change to what
// the run's keys fold (the judged scope: a runner's keys fold the inputs, so an install that leaves every
// input as it was, such as a first or frozen install on a fresh clone, is reported as `installed`, never a
// move; the install markers it rewrote still date a move that comes with it); once moved, stays moved;
// an early check commits a move only once the file has held still for SETTLE_MS (a file caught mid-write,
// such as npm's truncate-then-write of its hidden lockfile, is a suspect, not a move); the live marker stays until `close()` records the run finished (after the final check and the withholding
// pass): a guard that dies before leaves a dead marker, and the next lockguard command finishes the run
// (ledger/recovery.ts). stop() and close() are idempotent.

import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inScope, type Scope } from '../core/entries.js';
import { readWorkspaceFingerprints, type WorkspaceFingerprints } from '../core/fingerprints.js';
import { checkInstall } from '../core/install-check.js';
import { FingerprintWatch, type Move } from '../core/watch.js';
import { watchSignals, type Signals, type SignalSource } from './fs-signals.js';
import { appendEvent, createRun, scanEvents, type Policy, type RunHandle } from './ledger.js';
import { fsFault } from '../core/fs-fault.js';
import { isLockguardError } from '../core/errors.js';
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
  /**
   * Set when no judged entry moved but the install tree changed and no longer holds what the lockfile says
   * (`npm install --no-save`, a marker deleted): outputs were built from a tree the keys do not name.
   */
  readonly tree?: { readonly lockfile: string; readonly detail: string };
}

/**
 * How long a file an early check found different must hold still (same size, ctime and inode) before the
 * difference counts: a writer that truncates and then writes (npm's hidden lockfile, `package-lock.json`)
 * shows an empty or partial file for a moment, and that moment is not a move.
 */
export const SETTLE_MS = 100;

interface Suspect {
  /** When it was first seen different, and by what evidence: the move's moment if it is confirmed. */
  readonly at: number;
  readonly evidence: Evidence;
  /** The file's stat signature when last seen, and since when it has held it. */
  readonly signature: string;
  readonly since: number;
}

export interface SessionOptions {
  /** The scope a move is judged on (default: the table's own). Entries outside it are reported, never moves. */
  readonly judged?: Scope;
}

export class GuardSession {
  readonly run: RunHandle;
  readonly table: WorkspaceFingerprints;
  readonly watch: FingerprintWatch;
  /** The scope a move is judged on: the table's entries outside it (install markers) only say what an install did. */
  readonly judged: Scope;
  #signals: Signals | undefined;
  #move: MoveRecord | undefined;
  /** What the final check found changed outside the judged scope (an install that left every input as it was). */
  #installed: readonly MovedFile[] = [];
  /** Called once, when a check during the command first records the move. */
  #onDetect: ((move: MoveRecord) => void) | undefined;
  /** Entries outside the judged scope an early check saw changed, by their stat signature then. */
  readonly #installSeen = new Map<string, string>();
  readonly #judgedPaths: ReadonlySet<string>;
  #stopped = false;
  #closed = false;
  /** Install markers an early check found absent, and when: a move only if the final check agrees. */
  readonly #tentative = new Map<string, number>();
  /** Files an early check found different that have not yet held still for SETTLE_MS. */
  readonly #suspects = new Map<string, Suspect>();
  #confirm: NodeJS.Timeout | undefined;

  constructor(table: WorkspaceFingerprints, policy: Policy, command: readonly string[], options: SessionOptions = {}) {
    this.table = table;
    this.judged = options.judged ?? table.scope;
    this.#judgedPaths = new Set(
      table.entries.filter((entry) => inScope(entry.kind, this.judged)).map((entry) => entry.path),
    );
    this.run = createRun({ kind: 'run', table, policy, command, judged: this.judged });
    this.watch = new FingerprintWatch(table.root, table, table.at);
    try {
      const live = ledgerFolder(table.root, [LEDGER.live], true) ?? table.root;
      try {
        registerLive(table.root, {
          dir: this.run.dir,
          id: this.run.record.id,
          pid: process.pid,
          pidStart: processStart(process.pid),
          policy,
        });
      } catch (error) {
        throw fsFault(error, live, 'write the live marker in');
      }
    } catch (error) {
      // No marker, no run: a run that cannot be found later must not be left as if it had started.
      rmSync(this.run.dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Call `listener` once, when a check during the command first records the move (not the final check). */
  onDetect(listener: (move: MoveRecord) => void): void {
    this.#onDetect = listener;
  }

  /** What the final check found changed outside the judged scope (install markers), with old/new digests. */
  get installed(): readonly MovedFile[] {
    return this.#installed;
  }

  /** Begin listening for early evidence (file events, hook reports) on the entries a move is judged on. */
  listen(): void {
    this.#signals = watchSignals(this.table.root, [...this.#judgedPaths], this.run.dir, (source, at) => {
      this.#safeCheck(source, at);
    });
  }

  /** The move, once found. */
  get move(): MoveRecord | undefined {
    return this.#move;
  }

  /**
   * A remote gate's decision for one request, from the table re-checked at this instant: false once the
   * run moved, and false while a file seen different has not held still yet (it may be mid-write: the
   * request is refused, and the run counts as moved only if the difference stays).
   */
  admits(): boolean {
    // Once moved, stays moved: no need to look again.
    if (this.#move !== undefined) return false;
    this.check('gate', Date.now());
    return this.#move === undefined && this.#suspects.size === 0;
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
    if (this.#confirm !== undefined) clearTimeout(this.#confirm);
    this.#confirm = undefined;
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
   * Re-check the table. Early checks (on a signal) use a fresh watch each time, and what they find counts
   * only once it holds still: a file caught mid-write (empty, or half its bytes) is a suspect, re-checked
   * SETTLE_MS later, and a move if it still differs with the same size, ctime and inode; the moment is when
   * it was first seen. An install marker that is merely absent is remembered and counts only if the final
   * check still finds it gone or different: installs such as `npm ci` delete node_modules and write it back,
   * and a marker gone for a moment is no tree built from other bytes. The final check (on exit) is the run's
   * own watch, and everything it finds counts. Once the run recorded a move it stays moved.
   */
  check(evidence: Evidence, at: number): void {
    const final = evidence === 'exit';
    const watch = final ? this.watch : new FingerprintWatch(this.table.root, this.table, this.table.at);
    watch.wrote();
    const known = new Set(this.#move?.files.map((file) => file.path));
    const all = watch.moved() === undefined ? [] : watch.moves();
    const found = all.filter((move) => this.#judgedPaths.has(move.path) && !known.has(move.path));
    // Outside the judged scope (install markers): what an install did, and evidence of when, never a move.
    const install = all.filter((move) => !this.#judgedPaths.has(move.path));
    if (final) {
      // Only install markers changed: harmless when the tree holds what the (unchanged) lockfile says.
      const tree =
        found.length === 0 && this.#move === undefined && install.length > 0 ? this.#treeProblem() : undefined;
      if (tree === undefined) {
        this.#commit(evidence, at, found, install);
        this.#recordInstalled(install);
      } else {
        this.#commit(evidence, at, install, [], tree);
      }
      return;
    }
    for (const move of install)
      if (!this.#installSeen.has(move.path)) this.#installSeen.set(move.path, this.#signatureOf(move.path));
    const markers = new Set(
      this.table.entries
        .filter((entry) => entry.kind === 'install-marker' || entry.kind === 'ancestor-marker')
        .map((entry) => entry.path),
    );
    const now = Date.now();
    const settled: Move[] = [];
    const still = new Set<string>();
    for (const move of found) {
      if (move.kind === 'went' && markers.has(move.path)) {
        if (!this.#tentative.has(move.path)) this.#tentative.set(move.path, at);
        continue;
      }
      still.add(move.path);
      const signature = this.#signatureOf(move.path);
      const seen = this.#suspects.get(move.path);
      if (seen !== undefined && seen.signature === signature && now - seen.since >= SETTLE_MS) {
        settled.push(move);
        continue;
      }
      const since = seen !== undefined && seen.signature === signature ? seen.since : now;
      this.#suspects.set(move.path, { at: seen?.at ?? at, evidence: seen?.evidence ?? evidence, signature, since });
    }
    // A suspect that holds the read's bytes again was caught mid-write: it never moved.
    for (const path of this.#suspects.keys()) if (!still.has(path)) this.#suspects.delete(path);
    const first = this.#move === undefined;
    if (settled.length > 0)
      this.#commit(this.#suspects.get(settled[0]?.path ?? '')?.evidence ?? evidence, at, settled, install);
    if (first && this.#move !== undefined) this.#detected(this.#move);
    this.#scheduleConfirm();
  }

  /**
   * Record `found` as the run's move (or add to it), with the earliest evidence any check had of each file.
   * `install`: entries outside the judged scope changed in the same check; those an earlier check had not
   * already seen so (a first install before the move) were written by this install and date it too.
   */
  #commit(
    evidence: Evidence,
    at: number,
    found: readonly Move[],
    install: readonly Move[],
    tree?: MoveRecord['tree'],
  ): void {
    const fresh = found.map((move) => ({
      path: move.path,
      kind: move.kind,
      was: move.was,
      now: currentDigest(this.table.root, move, this.run.record),
    }));
    if (fresh.length === 0) return;
    const since = Math.min(
      at,
      ...fresh.map((file) =>
        Math.min(this.#tentative.get(file.path) ?? Infinity, this.#suspects.get(file.path)?.at ?? Infinity),
      ),
    );
    for (const move of found) this.#suspects.delete(move.path);
    const sameInstall = install
      .filter((move) => this.#installSeen.get(move.path) !== this.#signatureOf(move.path))
      .map((move) => move.path);
    // The moment is the first move's; later checks only add the files that moved since.
    this.#move =
      this.#move === undefined
        ? {
            at: this.#moment(since, [...fresh.map((file) => file.path), ...sameInstall]),
            evidence,
            files: fresh,
            ...(tree === undefined ? {} : { tree }),
          }
        : { ...this.#move, files: [...this.#move.files, ...fresh] };
    appendEvent(this.run, {
      type: 'moved',
      evidence,
      movedAt: this.#move.at,
      files: fresh,
      ...(tree === undefined ? {} : { tree }),
    });
  }

  /** After an install that changed only markers: why the tree no longer holds the lockfile, or undefined (it does). */
  #treeProblem(): MoveRecord['tree'] {
    const now = readWorkspaceFingerprints(this.table.root, { scope: 'full', manager: this.table.manager });
    const verdict = checkInstall(now);
    return verdict.ok ? undefined : { lockfile: verdict.lockfile, detail: verdict.detail };
  }

  /** The final check's install-only changes: kept for the report and recorded as an `installed` event. */
  #recordInstalled(install: readonly Move[]): void {
    if (install.length === 0) return;
    this.#installed = install.map((move) => ({
      path: move.path,
      kind: move.kind,
      was: move.was,
      now: currentDigest(this.table.root, move, this.run.record),
    }));
    try {
      appendEvent(this.run, { type: 'installed', files: this.#installed });
    } catch (error) {
      // Only says what an install did (the report has it too): a full or read-only ledger never hides the verdict.
      if (!isLockguardError(error)) throw error;
    }
  }

  #detected(move: MoveRecord): void {
    try {
      this.#onDetect?.(move);
    } catch {
      // Saying it early is a courtesy; the final line after the command is the verdict.
    }
  }

  /** While suspects remain and the session listens, look again once they could have held still. */
  #scheduleConfirm(): void {
    if (this.#stopped || this.#suspects.size === 0 || this.#confirm !== undefined) return;
    const [first] = this.#suspects.values();
    this.#confirm = setTimeout(() => {
      this.#confirm = undefined;
      // Each suspect keeps its own first sighting; a file first seen different now is dated now.
      this.#safeCheck(first?.evidence ?? 'fs-event', Date.now());
    }, SETTLE_MS);
    this.#confirm.unref();
  }

  /** Size, ctime and inode, following links (as the watch does); `absent` when there is nothing. */
  #signatureOf(path: string): string {
    try {
      const stat = statSync(join(this.table.root, path));
      return `${stat.size}:${stat.ctimeMs}:${stat.ino}:${stat.dev}`;
    } catch {
      return 'absent';
    }
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
  #moment(signalAt: number, paths: readonly string[]): number {
    const write = Math.min(signalAt, ...paths.map((path) => this.#ctimeOf(path)));
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
