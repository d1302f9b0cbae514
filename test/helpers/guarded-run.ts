// The withholding pass applied around a command exactly as `lockguard run` applies it, with the command
// passed in: today a direct runner call, later `lockguard run -- <runner>` (swap `run`, keep the asserts).
//
// Before: resolve the runner's cache and take `cacheState`. Run. After: the moment of the move is the
// lockfile's new ctime when its bytes changed; then the runner's summary and `withholdAfterRun`.

import type { SpawnSyncReturns } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import {
  cacheState,
  detectRunner,
  resolveCache,
  tasksAfterMove,
  withholdAfterRun,
  type RunnerCache,
  type SummaryReading,
  type WithholdResult,
} from '../../lib/integrations/runners/index.js';
import type { Scenario } from './runner-scenario.js';

export interface GuardedOutcome {
  readonly result: SpawnSyncReturns<string>;
  readonly cache: RunnerCache;
  readonly movedAt: number | undefined;
  readonly summary: SummaryReading | undefined;
  readonly withheld: WithholdResult | undefined;
}

export async function guardedRun(
  s: Scenario,
  run: () => SpawnSyncReturns<string>,
  runId: string,
): Promise<GuardedOutcome> {
  const argv = s.runnerArgv();
  const cache = resolveCache(detectRunner(argv), s.root, argv, s.env);
  if (cache === undefined) throw new Error(`no runner recognized in ${argv.join(' ')}`);
  const bytes = readFileSync(s.lockfile);
  const before = cacheState(cache);
  const runStartedAt = Date.now();
  const result = run();
  const runEndedAt = Date.now();
  const moved = !readFileSync(s.lockfile).equals(bytes);
  if (!moved) return { result, cache, movedAt: undefined, summary: undefined, withheld: undefined };
  const movedAt = statSync(s.lockfile).ctimeMs;
  const summary = tasksAfterMove(cache, { movedAt, runStartedAt });
  const withheld = await withholdAfterRun(cache, before, summary, { movedAt, runStartedAt, runEndedAt, runId }, s.env);
  return { result, cache, movedAt, summary, withheld };
}
