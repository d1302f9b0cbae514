// A guarded run's JSON report: what moved and when, what was done about it, how the command ended.
//
// Owns: the report's shape (versioned) and writing it to the run folder.
// Invariant: the report is data about paths and digests; it never carries file contents or env values.

import type { ChildEnd } from './child.js';
import { writeReport, type Policy, type RunHandle } from './ledger.js';
import type { MoveRecord } from './session.js';

/** One withheld cache entry (filled by the runner integrations). */
export interface WithheldEntry {
  readonly runner: string;
  readonly key: string;
  readonly task: string | null;
  readonly from: readonly string[];
  readonly to: string;
  readonly reason: string;
}

export interface RunReport {
  readonly version: 1;
  readonly run: string;
  readonly root: string;
  readonly command: readonly string[];
  readonly policy: Policy;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly exit: ChildEnd;
  readonly exitCode: number;
  readonly moved: (Omit<MoveRecord, 'at'> & { readonly at: string }) | null;
  readonly withheld: readonly WithheldEntry[];
  readonly notes: readonly string[];
  readonly [extra: string]: unknown;
}

export interface ReportInput {
  readonly run: RunHandle;
  readonly command: readonly string[];
  readonly policy: Policy;
  readonly exit: ChildEnd;
  readonly exitCode: number;
  readonly move: MoveRecord | undefined;
  readonly withheld?: readonly WithheldEntry[];
  readonly notes?: readonly string[];
  readonly extra?: Readonly<Record<string, unknown>>;
}

export function buildReport(input: ReportInput): RunReport {
  const { record } = input.run;
  return {
    version: 1,
    run: record.id,
    root: record.root,
    command: input.command,
    policy: input.policy,
    startedAt: new Date(record.at).toISOString(),
    endedAt: new Date().toISOString(),
    exit: input.exit,
    exitCode: input.exitCode,
    moved: input.move === undefined ? null : { ...input.move, at: new Date(input.move.at).toISOString() },
    withheld: input.withheld ?? [],
    notes: input.notes ?? [],
    ...input.extra,
  };
}

export function saveReport(run: RunHandle, report: RunReport): void {
  writeReport(run.dir, report);
}
