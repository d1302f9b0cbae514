// The shapes every runner adapter shares: which runner, where its local cache is, what one entry is.
//
// Owns: the vocabulary between the runner adapters, the withholding pass and `lockguard run`.
// Invariant: types only; nothing here touches the file system.

import type { RecordedIdentity } from '../../run/guard-record.js';

export type RunnerName = 'turbo' | 'nx' | 'pnpm-pipeline' | 'none';
export const RUNNER_NAMES: readonly RunnerName[] = ['turbo', 'nx', 'pnpm-pipeline', 'none'];

/** A runner's local cache as the runner itself resolves it. */
export interface RunnerCache {
  readonly runner: Exclude<RunnerName, 'none'>;
  /** The workspace root the runner keys on. */
  readonly root: string;
  /** Absolute path of the cache dir (it may not exist yet). */
  readonly dir: string;
  /** How `dir` was chosen, for the report: `--cache-dir`, `TURBO_CACHE_DIR`, `turbo.json cacheDir`, `default`, ... */
  readonly source: string;
  /** True when other checkouts may write into the same dir (nx's per-user `~/.nx/<id>/cache`). */
  readonly shared?: boolean;
  /** Where the runner writes its run summaries, when it has a place for them. */
  readonly summaries?: string;
}

/** One cache entry as listed: its key and the path that stands for it (`unitPaths` gives all of its paths). */
export interface CacheUnit {
  /** The runner's key for the entry (turbo/nx hash, pipeline task key). */
  readonly key: string;
  /** The path (relative to the cache dir) whose stat says when the entry was written (its mtime) and whether it changed. */
  readonly primary: string;
}

/** Stat identity of an entry's primary path: inode, size, mtime, ctime (as the guard record keeps it). */
export type UnitIdentity = RecordedIdentity;

/** The cheap listing taken before the command: entry keys and the stat identity of each primary path. */
export interface CacheState {
  readonly dir: string;
  readonly exists: boolean;
  readonly takenAt: number;
  readonly entries: ReadonlyMap<string, UnitIdentity | 'link'>;
}

/** A task the runner's summary shows restoring or saving after the move: its output was keyed on the old lockfile. */
export interface TaskAfterMove {
  readonly task: string;
  readonly key: string;
  readonly action: 'restored' | 'saved';
  /** When it started (restored) or ended (saved), epoch ms. */
  readonly at: number;
}

/** One task of the runner's graph, as its summary lists it: for per-project withholding (affected.ts). */
export interface TaskNode {
  readonly task: string;
  /** The task's package folder, relative to the workspace root ('' for the root). */
  readonly directory: string;
  /** The task ids it depends on directly. */
  readonly dependsOn: readonly string[];
}

/** What the runner's own summary of this run says. */
export interface SummaryReading {
  /** The summary file read, or undefined when none was found for this run. */
  readonly source: string | undefined;
  readonly tasks: readonly TaskAfterMove[];
  /** Keys of tasks that started before the move and ended after it. */
  readonly runningAcrossMove: readonly string[];
  /** Keys of every task of this run, when the summary lists them (limits withholding to this run's own entries). */
  readonly ownKeys: readonly string[] | undefined;
  /**
   * When the first task started (epoch ms), when the summary says. The runner keyed its tasks before it:
   * a move earlier than this (e.g. `pnpm pipeline`'s own frozen install on a fresh machine) folded into
   * every key and is no stale-key move.
   */
  readonly firstTaskAt?: number;
  /** Key → the task's place in the graph, when the summary lists every task's folder and dependencies (turbo). */
  readonly graph?: ReadonlyMap<string, TaskNode>;
  /** A human line when the summary was missing, stale or unreadable. */
  readonly note: string | undefined;
}

export type RemoteMode = 'auto' | 'off' | 'on';
export const REMOTE_MODES: readonly RemoteMode[] = ['auto', 'off', 'on'];

/** What to apply to the child before it starts, so nothing stale can be uploaded. */
export interface RemotePlan {
  /** Extra argv to append after the runner's own arguments (usually empty: env is preferred). */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** One line for the user, or undefined when nothing was changed and nothing needs saying. */
  readonly note: string | undefined;
}
