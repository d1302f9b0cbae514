// The runner-cache side of `lockguard run`: before the child (remote plan, cache listing) and after it
// (the runner's summary, the withholding pass), composed from lib/integrations/runners.
//
// Invariants: nothing outside the runner's cache dir moves; nothing is withheld under `flag` or when the
// table did not move; a runner problem (unreadable cache dir, corrupt summary) becomes a note in the
// report, never a lost run result.

import { isLockguardError } from '../core/errors.js';
import {
  cacheState,
  remoteCachePlan,
  resolveCache,
  tasksAfterMove,
  withholdAfterRun,
  type CacheState,
  type RemoteMode,
  type RunnerCache,
  type RunnerName,
  type SummaryReading,
  type TaskAfterMove,
  type WithholdResult,
} from '../integrations/runners/index.js';
import type { Policy } from '../run/ledger.js';
import type { PassControl } from '../run/quarantine.js';
import type { MoveRecord } from '../run/session.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface RunnerPrepared {
  readonly runner: RunnerName;
  readonly cache: RunnerCache | undefined;
  readonly before: CacheState | undefined;
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly notes: string[];
  /** Lines to print before the child starts (the remote-cache switch). */
  readonly announce: readonly string[];
}

export interface RunnerOutcome {
  readonly withheld: WithholdResult | undefined;
  readonly summary: SummaryReading | undefined;
  readonly tasksAfterMove: readonly TaskAfterMove[];
  readonly notes: readonly string[];
}

function noteOf(error: unknown): string {
  if (isLockguardError(error)) return `${error.message}${error.hint === undefined ? '' : ` ${error.hint}`}`;
  throw error;
}

export function prepareRunner(runner: RunnerName, root: string, command: readonly string[], env: Env, remote: RemoteMode, mayContainWriter: boolean): RunnerPrepared {
  const notes: string[] = [];
  let cache: RunnerCache | undefined;
  let before: CacheState | undefined;
  try {
    cache = resolveCache(runner, root, command, env);
    before = cache === undefined ? undefined : cacheState(cache);
  } catch (error) {
    notes.push(`runner cache: ${noteOf(error)}`);
  }
  const plan = remoteCachePlan(runner, remote, mayContainWriter, { argv: command, env });
  return { runner, cache, before, argv: [...command, ...plan.argv], env: plan.env, notes, announce: plan.note === undefined ? [] : [plan.note] };
}

export async function afterRunner(prepared: RunnerPrepared, policy: Policy, move: MoveRecord | undefined, runId: string, window: { runStartedAt: number; runEndedAt: number }, control?: PassControl): Promise<RunnerOutcome> {
  const notes = [...prepared.notes];
  const { cache, before } = prepared;
  if (move === undefined || cache === undefined || before === undefined) return { withheld: undefined, summary: undefined, tasksAfterMove: [], notes };
  let summary: SummaryReading | undefined;
  let withheld: WithholdResult | undefined;
  try {
    summary = tasksAfterMove(cache, { movedAt: move.at, runStartedAt: window.runStartedAt });
    if (summary.note !== undefined) notes.push(`runner summary: ${summary.note}`);
    if (policy !== 'flag') withheld = await withholdAfterRun(cache, before, summary, { movedAt: move.at, runId, ...window, ...(control === undefined ? {} : { control }) });
  } catch (error) {
    notes.push(`withholding: ${noteOf(error)}`);
  }
  for (const item of withheld?.notMoved ?? []) notes.push(`not withheld ${item.key}: ${item.detail}`);
  return { withheld, summary, tasksAfterMove: summary?.tasks ?? [], notes };
}
