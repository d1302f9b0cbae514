// The shapes every runner adapter shares: which runner, where its local cache is, what one entry is.
//
// Owns: the vocabulary between the runner adapters, the withholding pass and `lockguard run`, the pass's
// options and results included (so an adapter's types never import the pass itself).
// Invariant: types only; nothing here touches the file system.

import type { LockguardError } from '../../core/errors.js';
import type { RecordedIdentity } from '../../ledger/guard-record.js';
import type {
  NotMoved,
  PassControl,
  QuarantinedEntry,
  QuarantineUnit,
  RenameFn,
} from '../../ledger/quarantine/index.js';

export type RunnerName = 'turbo' | 'nx' | 'pnpm-pipeline' | 'wireit' | 'moon' | 'lage' | 'none';
export const RUNNER_NAMES: readonly RunnerName[] = ['turbo', 'nx', 'pnpm-pipeline', 'wireit', 'moon', 'lage', 'none'];

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

// The withholding pass's shapes (withhold.ts runs it; an adapter's own `withhold` is handed it).

export interface WithholdOptions {
  /** The moment of the move (epoch ms): the earliest evidence, e.g. the lockfile's new ctime. */
  readonly movedAt: number;
  /** Just before the command was spawned, and just after it exited (epoch ms). */
  readonly runStartedAt: number;
  readonly runEndedAt: number;
  /** The lockguard run the quarantine folder is named after. */
  readonly runId: string;
  /** The workspace whose `.lockguard/` receives the quarantine; default: the cache's root. */
  readonly ledgerRoot?: string;
  /** Keys of tasks that started before the move and ended after it (from the runner's summary). */
  readonly runningAcrossMove?: readonly string[];
  /** Keys of this run's tasks, when the summary lists them: other keys are not this run's. */
  readonly ownKeys?: readonly string[];
  /** Key → task name, for the report. */
  readonly taskOf?: ReadonlyMap<string, string>;
  /** Key → task name from the entry's own files, for the report, where neither `taskOf` nor `spare` names it. */
  readonly nameOf?: (key: string) => string | undefined;
  /** Why an entry is withheld, in words naming what moved (default: the lockfile): saved after the move, or running across it. */
  readonly reasons?: { readonly after: string; readonly across: string };
  /** A candidate this keeps is kept: its project's slice did not move (affected.ts); its task names it. */
  readonly spare?: (key: string) => { readonly keep: boolean; readonly task?: string };
  readonly rename?: RenameFn;
  /** Stop requests and the test seam, between units (ledger/quarantine.ts). */
  readonly control?: PassControl;
}

export interface WithholdResult {
  readonly withheld: readonly QuarantinedEntry[];
  /** Entries this run wrote before the move (kept, correct). */
  readonly keptBeforeMove: number;
  /** Entries written after the move but kept: their projects' slices did not move (affected.ts). */
  readonly spared: readonly { readonly key: string; readonly task: string }[];
  /** Entries that could not be moved, with why (symlinks, races, permissions): nothing of them was lost. */
  readonly notMoved: readonly NotMoved[];
  /** The quarantine folder, when anything went there. */
  readonly quarantineDir: string | undefined;
  /** True when a stop request ended the pass before every unit was moved. */
  readonly interrupted?: boolean;
  /** The ledger or disk fault that ended the pass early (the entries it did not reach stay in the cache). */
  readonly fault?: LockguardError;
}

/** What the decision alone needs (no move: no run id, ledger, rename or stop control). */
export type WithholdPlanOptions = Omit<WithholdOptions, 'runId' | 'ledgerRoot' | 'rename' | 'control'>;

/** The decision, before anything moves: the units to move, what stays and why. */
export interface WithholdPlan {
  readonly units: QuarantineUnit[];
  readonly keptBeforeMove: number;
  readonly spared: { key: string; task: string }[];
  /** Symlinked entries: never followed, never moved (reported). */
  readonly links: NotMoved[];
}
