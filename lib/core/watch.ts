// FingerprintWatch: has a fingerprinted file moved since the run read it?
//
// Owns: the answer for the rest of a run, as lib/README.md "The watch's promises" states it, and the run's
// one status line.
// Invariants:
// - Zero cost without a writer: before the first `wrote()`, `moved()` makes no syscall.
// - After `wrote()`: one stat per entry, following links. A file whose ctime is at or after `at` minus the
//   racy window, or whose identity changed, is read and compared with the bytes the read kept; a size
//   change of a raw entry is a move without reading; appearing or going is a move.
// - Re-learns only after the next `wrote()`; once moved, stays moved (every key taken folded the old bytes).
// - A type change is a move (a directory where the file was: DESIGN.md), read nothing.
// - Never blocks and never reports health it did not establish: FIFOs, sockets, devices and EACCES throw, on
//   every `moved()` until a check completes (a check that threw is no answer), after every other entry was
//   checked (their moves recorded).

import { join, resolve } from 'node:path';
import { fileDigest } from './digest.js';
import { LockguardError } from './errors.js';
import { normalizeBytes } from './entries.js';
import { probe, readEntry, realFileSystem, type FileSystem } from './file-probe.js';
import type { FingerprintEntry, WorkspaceFingerprints } from './fingerprints.js';

/**
 * How far before `at` a ctime cannot prove a file unchanged (coarse timestamps, clock granularity),
 * as git judges its index: such a file is re-read and its bytes compared.
 */
export const RACY_WINDOW_MS = 2000;

/** Anything with a `warn(line)`; `console` will do. */
export interface Logger {
  warn(line: string): void;
}

export type MoveKind = 'rewritten' | 'appeared' | 'went';

export interface Move {
  readonly path: string;
  readonly kind: MoveKind;
  /** The digest the run read, null when the file was absent. */
  readonly was: FingerprintEntry['digest'];
}

export interface WatchOptions {
  /** Injected file system, for tests that count syscalls. */
  readonly fs?: FileSystem;
}

export class FingerprintWatch {
  readonly #entries: readonly FingerprintEntry[];
  readonly #absolute: readonly string[];
  readonly #files: ReadonlyMap<string, Buffer>;
  readonly #racyFrom: number;
  readonly #fs: FileSystem;
  #pending = false;
  #said = false;
  readonly #moves = new Map<string, Move>();

  constructor(workspaceRoot: string, read: WorkspaceFingerprints, at: number, options: WatchOptions | null = {}) {
    if (
      typeof workspaceRoot !== 'string' ||
      workspaceRoot === '' ||
      !Array.isArray(read?.entries) ||
      !Number.isFinite(at)
    )
      throw new LockguardError(
        'ERR_LOCKGUARD_USAGE',
        'FingerprintWatch takes the workspace root, the table readWorkspaceFingerprints read there, and its `at`.',
        { hint: 'new FingerprintWatch(table.root, table, table.at)' },
      );
    // Absolute now: a relative root would be resolved against whatever the working folder is at each check.
    const root = resolve(workspaceRoot);
    this.#entries = read.entries;
    this.#absolute = read.entries.map((entry) => join(root, entry.path));
    this.#files = read.files;
    this.#racyFrom = at - RACY_WINDOW_MS;
    this.#fs = options?.fs ?? realFileSystem;
  }

  /** A writer may have run: the next `moved()` looks at the files again. */
  wrote(): void {
    this.#pending = true;
  }

  /** Workspace-relative paths that no longer hold what the run read, or undefined. */
  moved(): readonly string[] | undefined {
    if (this.#pending) {
      this.#check();
      // Only a check that completed answers: one that threw stays pending, so the next call throws again.
      this.#pending = false;
    }
    if (this.#moves.size === 0) return undefined;
    return this.#entries.filter((entry) => this.#moves.has(entry.path)).map((entry) => entry.path);
  }

  /** The moves found so far, in table order, with what the run had read. */
  moves(): readonly Move[] {
    return this.#entries.flatMap((entry) => this.#moves.get(entry.path) ?? []);
  }

  /**
   * The run's one status line, when something moved: written once (the card's "the run's one status line,
   * however many tasks it withholds"); later calls write nothing. `outcome` says what was done about it.
   */
  say(log: Logger, outcome = 'nothing keyed before it should be restored or saved from here on'): void {
    const moves = this.moves();
    if (moves.length === 0 || this.#said) return;
    this.#said = true;
    log.warn(statusLine(moves, outcome));
  }

  #check(): void {
    let failure: unknown;
    for (let i = 0; i < this.#entries.length; i++) {
      const entry = this.#entries[i];
      const absPath = this.#absolute[i];
      if (entry === undefined || absPath === undefined || this.#moves.has(entry.path)) continue;
      try {
        const kind = this.#moveKindOf(entry, absPath);
        if (kind !== undefined) this.#moves.set(entry.path, { path: entry.path, kind, was: entry.digest });
      } catch (error) {
        // The other entries are still checked (their moves recorded); the first failure is then thrown.
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  }

  #moveKindOf(entry: FingerprintEntry, absPath: string): MoveKind | undefined {
    const now = probe(this.#fs, absPath);
    if (entry.identity === null) return now.state === 'absent' ? undefined : 'appeared';
    if (now.state === 'absent') return 'went';
    if (now.state === 'directory') return 'rewritten';
    const was = entry.identity;
    const seen = now.identity;
    if (entry.normalize === undefined && seen.size !== was.size) return 'rewritten';
    const untouched =
      seen.ino === was.ino &&
      seen.dev === was.dev &&
      seen.ctimeMs === was.ctimeMs &&
      seen.size === was.size &&
      seen.ctimeMs < this.#racyFrom;
    if (untouched) return undefined;
    return this.#sameBytes(entry, absPath) ? undefined : 'rewritten';
  }

  #sameBytes(entry: FingerprintEntry, absPath: string): boolean {
    const result = readEntry(this.#fs, absPath, true);
    if (result.state === 'absent') return false;
    const kept = this.#files.get(entry.path);
    if (kept !== undefined) {
      if (kept.equals(result.bytes)) return true;
      if (entry.normalize === undefined) return false;
    }
    const hashed = entry.normalize === undefined ? result.bytes : normalizeBytes(entry.normalize, result.bytes);
    return fileDigest(hashed) === entry.digest;
  }
}

/** `[lockguard] a task rewrote pnpm-lock.yaml during the run, which every key folds: <outcome>` */
export function statusLine(moves: readonly Pick<Move, 'path' | 'kind'>[], outcome: string): string {
  const paths = moves.map((move) => move.path);
  return `[lockguard] a task ${movedVerb(moves, 'active')} ${listPaths(paths)} during the run, ${foldsClause(paths)}: ${outcome}`;
}

/**
 * What moved files are to the run's keys: "which every key folds", unless some are markers of a
 * node_modules above the workspace root (`../…`), which every project resolves from (the table's key never
 * folds it; gitignored slice files do, as they were when the run's keys were taken).
 */
export function foldsClause(paths: readonly string[]): string {
  const above = paths.filter((path) => path.startsWith('../')).length;
  if (above === 0) return 'which every key folds';
  if (above === paths.length) return 'a node_modules above the workspace root, which every project resolves from';
  return 'which every key folds or, above the workspace root, every project resolves from';
}

/** What happened to `moves`, as a verb: `rewrote`/`rewritten`, `created`, `removed`, `changed` (a mix). */
export function movedVerb(moves: readonly Pick<Move, 'kind'>[], voice: 'active' | 'passive'): string {
  const kinds = new Set(moves.map((move) => move.kind));
  if (kinds.size > 1) return 'changed';
  if (kinds.has('appeared')) return 'created';
  if (kinds.has('went')) return 'removed';
  return voice === 'active' ? 'rewrote' : 'rewritten';
}

/** `a`, `a and b`, `a, b and c`, `a, b and 3 more`. */
export function listPaths(paths: readonly string[]): string {
  if (paths.length <= 2) return paths.join(' and ');
  if (paths.length === 3) return `${paths[0]}, ${paths[1]} and ${paths[2]}`;
  return `${paths[0]}, ${paths[1]} and ${paths.length - 2} more`;
}
