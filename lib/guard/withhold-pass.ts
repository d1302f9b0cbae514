// The one withholding pass over a run's guarded caches: a live run's after its command, a dead run's when
// a later command finishes it, and every fault path of both.
//
// Owns: per guarded cache, in order: its runner's summary (tasks after the move), the withholding of its
// stale saves (integrations/runners withholdAfterRun), and what stopped the pass (`PassStop`: a stop
// request, or a ledger fault with its cause); the report's notes about each cache; the totals.
// Invariants:
// - A stop request (a second signal) or a ledger fault ends the pass at a safe point between entries:
//   the caches after it are not reached (counted, never guessed), and every stale entry the pass did not
//   move (the one a fault hit included) stays in the cache, counted in `staleLeft`, for the next command.
// - A problem of a runner's own cache (an unreadable folder, a corrupt summary) is a note, never a fault and
//   never a lost result; a fault is a LockguardError on a path inside the ledger (`.lockguard/`), or one
//   the quarantine pass itself reports. Anything else is a bug and is thrown.
// - `withhold: false` (policy flag) reads the summaries and moves nothing.
// - Decisions read typed fields only (reasons, codes, errnos), never the words of a note or a detail.

import type { Env } from '../core/env.js';
import { errnoCode, isLockguardError, type LockguardError } from '../core/errors.js';
import {
  tasksAfterMove,
  withholdAfterRun,
  type CacheState,
  type GuardedRunner,
  type RunnerCache,
  type ScopedWithholdResult,
  type SummaryReading,
  type WithholdScope,
} from '../integrations/runners/index.js';
import { ledgerPath } from '../ledger/ledger-layout.js';
import type { NotMoved, PassControl } from '../ledger/quarantine/index.js';

/** One cache the pass goes over: where it is and what it held just before the command started. */
export interface PassCache {
  readonly runner: GuardedRunner;
  readonly cache: RunnerCache;
  readonly before: CacheState;
  /** The command itself started this runner (its summary names the tasks); else the workspace configures it. */
  readonly started: boolean;
}

export interface PassOptions {
  /** False under `--policy flag`: summaries are read, nothing moves. */
  readonly withhold: boolean;
  /** From when saves are stale (the move, or for a dead run without one the moment it started). */
  readonly movedAt: number;
  readonly runStartedAt: number;
  readonly runEndedAt: number;
  readonly runId: string;
  /** Why each entry is withheld, naming what moved (default: the lockfile's words, withhold.ts). */
  readonly reasons?: { readonly after: string; readonly across: string };
  readonly control?: PassControl;
  /** Which saves after the move to withhold (affected.ts); without it, all of them. */
  readonly scope?: WithholdScope;
  /** The environment the runner ran with (default: this process's), for nx's task DB. */
  readonly env?: Env;
  /** At most this many `not withheld` notes per cache (a record kept small); default all. */
  readonly notesShown?: number;
}

/** What a ledger fault was, in a word the caller can render or branch on. */
export type FaultCause = 'read-only' | 'full' | 'access' | 'ledger';

/** Why a pass ended before it went over every cache: a stop request, or a fault and its cause. */
export type PassStop =
  | { readonly kind: 'signal' }
  | { readonly kind: 'fault'; readonly cause: FaultCause; readonly error: LockguardError };

export interface CachePass {
  readonly runner: GuardedRunner;
  readonly cacheDir: string;
  /** False when the pass stopped before this cache (nothing of it was read or moved). */
  readonly reached: boolean;
  readonly summary: SummaryReading | undefined;
  readonly withheld: ScopedWithholdResult | undefined;
  /** Stale entries of this cache the pass did not move because it stopped (they stay in the cache). */
  readonly left: number;
}

export interface PassOutcome {
  readonly caches: readonly CachePass[];
  /** Every entry withheld, across caches. */
  readonly withheldCount: number;
  readonly keptBeforeMove: number;
  /** Saves after the move kept because their projects' slices did not move, across caches. */
  readonly spared: number;
  /** The report's lines about the caches (summary problems, entries not withheld, runners not guarded). */
  readonly notes: readonly string[];
  /** Undefined when the pass went over every cache. */
  readonly stop: PassStop | undefined;
  /** Runner versions lockguard cannot withhold from (nx older than 20): why, and the stale entries left. */
  readonly unguarded: readonly { readonly runner: GuardedRunner; readonly why: string; readonly left: number }[];
  /** Stale entries a stopped or failed pass did not withhold (they stay in the cache until the next command). */
  readonly staleLeft: number;
  /** Guarded caches whose pass never started: their stale entries are uncounted. */
  readonly cachesNotReached: number;
}

/** The cause of a ledger fault, from its code and errno (never from its message). */
export function faultCause(error: LockguardError): FaultCause {
  if (error.code === 'ERR_LOCKGUARD_DISK') return errnoCode(error.cause) === 'EROFS' ? 'read-only' : 'full';
  if (error.code === 'ERR_LOCKGUARD_ACCESS') return 'access';
  return 'ledger';
}

function faultOf(error: LockguardError): PassStop {
  return { kind: 'fault', cause: faultCause(error), error };
}

function inLedger(path: string, root: string): boolean {
  const ledger = ledgerPath(root);
  return path === ledger || path.startsWith(`${ledger}/`);
}

/** A runner problem's words for a note (its message and fix); anything but a LockguardError is a bug. */
export function noteOf(error: unknown): string {
  if (isLockguardError(error)) return `${error.message}${error.hint === undefined ? '' : ` ${error.hint}`}`;
  throw error;
}

const NO_SUMMARY: SummaryReading = {
  source: undefined,
  tasks: [],
  runningAcrossMove: [],
  ownKeys: undefined,
  note: undefined,
};

/** Go over `caches` in order: each one's summary, then (unless `withhold` is false) its withholding. */
export async function withholdPass(caches: readonly PassCache[], options: PassOptions): Promise<PassOutcome> {
  const notes: string[] = [];
  const outcomes: CachePass[] = [];
  let stop: PassStop | undefined;
  for (const guarded of caches) {
    if (options.withhold && stop === undefined && options.control?.stopRequested?.() === true)
      stop = { kind: 'signal' };
    if (options.withhold && stop !== undefined) {
      // Stopped at a safe point: this cache's pass never started (the next lockguard command runs it).
      outcomes.push({
        runner: guarded.runner,
        cacheDir: guarded.cache.dir,
        reached: false,
        summary: undefined,
        withheld: undefined,
        left: 0,
      });
      continue;
    }
    outcomes.push(await passOne(guarded, options, notes, (found) => (stop = found)));
  }
  const reached = outcomes.filter((outcome) => outcome.withheld !== undefined);
  return {
    caches: outcomes,
    withheldCount: reached.reduce((sum, outcome) => sum + (outcome.withheld?.withheld.length ?? 0), 0),
    keptBeforeMove: reached.reduce((sum, outcome) => sum + (outcome.withheld?.keptBeforeMove ?? 0), 0),
    spared: reached.reduce((sum, outcome) => sum + (outcome.withheld?.spared.length ?? 0), 0),
    notes,
    stop,
    unguarded: outcomes.flatMap((outcome) =>
      outcome.withheld?.unguarded === undefined ? [] : [{ runner: outcome.runner, ...outcome.withheld.unguarded }],
    ),
    staleLeft: outcomes.reduce((sum, outcome) => sum + outcome.left, 0),
    cachesNotReached: outcomes.filter((outcome) => !outcome.reached).length,
  };
}

/** One cache's pass: its summary, its withholding (a stop or a fault said through `stopped`), its notes. */
async function passOne(
  guarded: PassCache,
  options: PassOptions,
  notes: string[],
  stopped: (stop: PassStop) => void,
): Promise<CachePass> {
  const summaryNotes: string[] = [];
  const summary = readSummary(guarded, options, notes, summaryNotes);
  const { withheld, fault } = await withholdOne(guarded, options, summary, notes);
  if (withheld?.interrupted === true) stopped({ kind: 'signal' });
  if (fault !== undefined) stopped(faultOf(fault));
  const left = passNotes(guarded, options, { summary, withheld, summaryNotes }, notes);
  return { runner: guarded.runner, cacheDir: guarded.cache.dir, reached: true, summary, withheld, left };
}

/** The runner's summary of the tasks after the move (its own note kept aside in `summaryNotes`; a failure is a note). */
function readSummary(
  guarded: PassCache,
  options: PassOptions,
  notes: string[],
  summaryNotes: string[],
): SummaryReading | undefined {
  try {
    const summary = tasksAfterMove(guarded.cache, { movedAt: options.movedAt, runStartedAt: options.runStartedAt });
    if (summary.note !== undefined) summaryNotes.push(`${guarded.runner} summary: ${summary.note}`);
    return summary;
  } catch (error) {
    notes.push(`${guarded.runner} summary: ${noteOf(error)}`);
    return undefined;
  }
}

/** The cache's withholding (unless `withhold` is false): what it did, and the ledger fault that stopped it, if one did. */
async function withholdOne(
  guarded: PassCache,
  options: PassOptions,
  summary: SummaryReading | undefined,
  notes: string[],
): Promise<{ withheld: ScopedWithholdResult | undefined; fault: LockguardError | undefined }> {
  let withheld: ScopedWithholdResult | undefined;
  try {
    if (options.withhold) {
      const { movedAt, runStartedAt, runEndedAt, runId, reasons, control, scope } = options;
      withheld = await withholdAfterRun(
        guarded.cache,
        guarded.before,
        summary ?? NO_SUMMARY,
        {
          movedAt,
          runStartedAt,
          runEndedAt,
          runId,
          ...(reasons === undefined ? {} : { reasons }),
          ...(control === undefined ? {} : { control }),
          ...(scope === undefined ? {} : { scope }),
        },
        ...(options.env === undefined ? [] : [options.env]),
      );
    }
    return { withheld, fault: withheld?.fault };
  } catch (error) {
    // The ledger could not take the entries (a link, a full or read-only disk, a lock): a fault, and the run
    // stays unfinished. A problem of the runner's own cache dir stays a note.
    if (isLockguardError(error) && error.path !== undefined && inLedger(error.path, guarded.cache.root))
      return { withheld, fault: error };
    notes.push(`${guarded.runner} withholding: ${noteOf(error)}`);
    return { withheld, fault: undefined };
  }
}

/** What one cache's pass read and did, for its notes. */
interface PassRead {
  readonly summary: SummaryReading | undefined;
  readonly withheld: ScopedWithholdResult | undefined;
  readonly summaryNotes: readonly string[];
}

/** The cache's notes (its summary's, what was not withheld, what is left); returns how many stale entries are left. */
function passNotes(
  guarded: PassCache,
  options: PassOptions,
  { summary, withheld, summaryNotes }: PassRead,
  notes: string[],
): number {
  // A runner the command did not start and that saved nothing in this run has nothing to say.
  const active =
    guarded.started ||
    (withheld !== undefined &&
      (withheld.withheld.length > 0 || withheld.keptBeforeMove > 0 || withheld.notMoved.length > 0)) ||
    summary?.source !== undefined;
  if (active) notes.push(...summaryNotes);
  // Under a fault, every entry the pass could not move (the one it failed on included) stays in the cache.
  const isLeft = (item: NotMoved): boolean =>
    item.reason === 'interrupted' || (withheld?.fault !== undefined && item.reason === 'error');
  const left = (withheld?.notMoved ?? []).filter(isLeft).length;
  for (const item of (withheld?.notMoved ?? []).filter((each) => !isLeft(each)).slice(0, options.notesShown))
    notes.push(`not withheld ${item.key}: ${item.detail}`);
  if (withheld?.unguarded !== undefined)
    notes.push(
      `${guarded.runner}: ${withheld.unguarded.why}; ${withheld.unguarded.left} stale entries left in "${guarded.cache.dir}" (nothing was moved)`,
    );
  if (left > 0)
    notes.push(
      `${guarded.runner}: ${left} stale entries not withheld yet (the pass was stopped); the next lockguard command in this workspace withholds them`,
    );
  return left;
}
