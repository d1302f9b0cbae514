// A guarded run's JSON report: what moved and when, what was done about it, how the command ended.
//
// Owns: the report's shape (versioned: version 2 guards a list of runner caches) and writing it to the run
// folder. Every field is declared here; `lockguard run` fills them, `status` reads them.
// Invariant: the report is data about paths and digests; it never carries file contents or env values.

import type { ChildEnd } from './child.js';
import { writeReport, type Policy, type RunHandle } from './ledger.js';
import type { MoveRecord } from './session.js';
import type { SliceMoveJson } from './slice-report.js';
import type { MovedFile } from './verdict.js';
import { isoTime } from '../core/iso-time.js';

/** One withheld cache entry (filled by the runner integrations). */
export interface WithheldEntry {
  readonly runner: string;
  readonly key: string;
  readonly task: string | null;
  readonly from: readonly string[];
  readonly to: string;
  readonly reason: string;
}

/** One runner cache the run guarded. */
interface GuardedCacheReport {
  readonly runner: string;
  readonly cacheDir: string;
  /** How the cache dir was chosen: `--cache-dir`, `TURBO_CACHE_DIR`, `default`, ... */
  readonly source: string;
  /** The command itself starts this runner (else the workspace's configuration put it on the list). */
  readonly started: boolean;
}

/** A task the runner's summary shows restoring or saving after the move. */
interface TaskAfterMoveReport {
  readonly task: string;
  readonly key: string;
  readonly action: 'restored' | 'saved';
  readonly at: number;
}

/** What one remote gate counted (integrations/remote-gate serves it; the report records it as is). */
export interface GateStats {
  readonly passed: { readonly restore: number; readonly save: number; readonly other: number };
  readonly refused: { readonly restore: number; readonly save: number };
  readonly refusedParts: number;
  /** Requests whose upstream failed (refused, reset, timed out) and were passed on as such. */
  readonly upstreamFailures: number;
  /** Decisions that threw: refused, and reported. */
  readonly decisionFailures: number;
  /** Requests outside the protocol's paths, answered 404 without reaching the upstream. */
  readonly notForwarded: number;
  /**
   * Requests without the gate's per-run path (another process on this machine, which was never given the
   * gate's URL): answered 404, never forwarded, never decided, so never counted as this run's.
   */
  readonly foreign: number;
  /** Keys of the refused entries, in order (restores and saves). */
  readonly refusedKeys: readonly { readonly kind: 'restore' | 'save'; readonly key: string }[];
}

/** The remote gates of a run: where each forwarded, what it passed and refused. */
interface RemoteGateReport {
  readonly gates: readonly {
    readonly runner: string;
    readonly upstream: string;
    readonly source: string;
    readonly stats: GateStats;
  }[];
  /** Totals over every gate: whole entries refused, blob uploads refused, restores refused. */
  readonly refused: { readonly uploads: number; readonly blobs: number; readonly restores: number };
}

export interface WithholdScopeReport {
  readonly kind: 'projects' | 'all';
  /** Why every save after the move was withheld (one per cache judged so), empty when all were judged per project. */
  readonly reasons: readonly string[];
  readonly kept: readonly { readonly runner: string; readonly key: string; readonly task: string }[];
}

export interface RunReport {
  readonly version: 2;
  readonly run: string;
  readonly root: string;
  readonly command: readonly string[];
  readonly policy: Policy;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly exit: ChildEnd;
  readonly exitCode: number;
  readonly moved: (Omit<MoveRecord, 'at'> & { readonly at: string }) | null;
  /** The runner the command starts (its summary is read first), else the first guarded one, else 'none'. */
  readonly runner: string;
  readonly caches: readonly GuardedCacheReport[];
  readonly withheld: readonly WithheldEntry[];
  /** Entries this run saved before the move: kept, they are correct. */
  readonly keptBeforeMove: number;
  /**
   * Which saves after the move were withheld: only those of projects whose slice moved (`kept`: the others,
   * kept in the cache), or all of them, with the reason (integrations/runners/affected.ts).
   */
  readonly withholdScope?: WithholdScopeReport;
  readonly tasksAfterMove: readonly TaskAfterMoveReport[];
  /** The remote-cache switch lines printed before the command, if any. */
  readonly remote: readonly string[];
  /** The remote gates of the run (`lockguard run` always fills it; `gates` is empty when none stood). */
  readonly remoteGate?: RemoteGateReport;
  /** Per moved lockfile, which projects' slices changed (ledger/slice-report.ts sliceMoveJson). */
  readonly slices: readonly SliceMoveJson[];
  /** Install markers the run's final check found changed: what an install did (never a move by itself). */
  readonly installed?: readonly MovedFile[];
  /** Which scope the guarded caches were judged on, in one line (`judged on inputs: the turbo cache (…)`). */
  readonly judged?: string;
  readonly notes: readonly string[];
}

/** What `lockguard run` hands buildReport: the report's fields less those the run record and the clock give. */
export type ReportInput = Omit<RunReport, 'version' | 'run' | 'root' | 'startedAt' | 'endedAt' | 'moved'> & {
  readonly run: RunHandle;
  readonly move: MoveRecord | undefined;
};

export function buildReport(input: ReportInput): RunReport {
  const { record } = input.run;
  return {
    version: 2,
    run: record.id,
    root: record.root,
    command: input.command,
    policy: input.policy,
    startedAt: isoTime(record.at),
    endedAt: isoTime(Date.now()),
    exit: input.exit,
    exitCode: input.exitCode,
    moved: input.move === undefined ? null : { ...input.move, at: isoTime(input.move.at) },
    runner: input.runner,
    caches: input.caches,
    withheld: input.withheld,
    keptBeforeMove: input.keptBeforeMove,
    ...(input.withholdScope === undefined ? {} : { withholdScope: input.withholdScope }),
    tasksAfterMove: input.tasksAfterMove,
    remote: input.remote,
    ...(input.remoteGate === undefined ? {} : { remoteGate: input.remoteGate }),
    slices: input.slices,
    ...(input.installed === undefined ? {} : { installed: input.installed }),
    ...(input.judged === undefined ? {} : { judged: input.judged }),
    notes: input.notes,
  };
}

export function saveReport(run: RunHandle, report: RunReport): void {
  writeReport(run.dir, report);
}
