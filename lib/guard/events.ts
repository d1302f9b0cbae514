// What a guarded run tells its caller while it works: typed events, never words.
//
// Owns: the `GuardEvent` union and the `GuardContext` every guard/ entry point takes (where it runs, its
// environment, and the sink its events go to). The CLI renders each event into its one line
// (cli/guard-words.ts); a library caller may log, count or ignore them.
// Invariants: guard/ never prints and never exits: what a user should see is an event here or a field of
// a returned outcome; an event carries values (runners, counts, errors, ids), and a decision never reads
// words back from one.

import type { RefuseGap } from '../integrations/package-managers/adapter.js';
import type { Env } from '../core/env.js';
import type { LockguardError } from '../core/errors.js';
import type { GuardedRunner, RunnerName, ScopedPass } from '../integrations/runners/index.js';
import type { Policy } from '../ledger/ledger.js';
import type { Evidence as DeadRunEvidence } from '../ledger/recovery.js';
import type { MoveRecord } from '../ledger/session.js';
import type { ForeignClaim } from '../ledger/trust.js';

/** Where a guard/ entry point runs and where its events go. */
export interface GuardContext {
  readonly cwd: string;
  readonly env: Env;
  readonly emit: (event: GuardEvent) => void;
}

/** What a best-effort record could not write (the run's verdict stands without it). */
export type RecordPart = 'child-pid' | 'exit-event' | 'withheld-event' | 'report';

/** A runner whose remote cache the gate could not stand in front of (it falls back to its up-front switch, if any). */
export interface RemoteFallback {
  readonly runner: RunnerName;
  /** Why the gate could not be used. */
  readonly why: string;
}

/** The up-front remote switch of one runner (integrations/runners/remote.ts), with the line it reads as. */
export interface RemoteSwitch {
  readonly runner: GuardedRunner;
  readonly line: string;
}

/** Under `--policy refuse`: what the workspace cannot refuse at the source (refuse-setup.ts). */
export type { RefuseGap };

export type GuardEvent =
  /** A signal arrived while lockguard works on the quarantine (the first waits, the second stops the pass). */
  | { readonly type: 'signal-held'; readonly signal: NodeJS.Signals; readonly count: number }
  /** A test seam paused (pass-control.ts). */
  | { readonly type: 'seam-paused'; readonly seam: 'after-child' }
  | { readonly type: 'seam-paused'; readonly seam: 'after-units'; readonly units: number }
  /** A live marker that names no guarded run of this workspace was removed. */
  | { readonly type: 'marker-removed'; readonly id: string; readonly problem: string }
  /** A dead run was finished (or taken as far as it could be): what it guarded, what was withheld. */
  | {
      readonly type: 'run-recovered';
      readonly run: string;
      readonly pid: number | undefined;
      readonly evidence: DeadRunEvidence;
      readonly policy: Policy;
      /** Why nothing was guarded (no record, or an unreadable one), when so. */
      readonly unguarded: string | undefined;
      readonly withheld: number;
      readonly passes: readonly ScopedPass[];
      readonly childRunning: number | undefined;
      readonly complete: boolean;
    }
  /** A lenient command could not finish a dead run now; the next command that can write the ledger does. */
  | { readonly type: 'recovery-deferred'; readonly error: LockguardError }
  /** Markers or locks in `live/` not made on this machine, left alone (ledger/trust.ts). */
  | { readonly type: 'foreign-claims'; readonly claims: readonly ForeignClaim[] }
  /** `--policy refuse` cannot refuse everything at the source here. */
  | { readonly type: 'refuse-gap'; readonly gap: RefuseGap }
  /** The up-front remote switches and the gate fallbacks, before the child starts. */
  | {
      readonly type: 'remote-plan';
      readonly switches: readonly RemoteSwitch[];
      readonly fallbacks: readonly RemoteFallback[];
    }
  /** The slice-file step wrote or removed files (its status lines), or could not write them all (a warning). */
  | { readonly type: 'slice-files'; readonly lines: readonly string[]; readonly warning: boolean }
  /** A check while the command runs first saw the move. */
  | {
      readonly type: 'move-detected';
      readonly move: Pick<MoveRecord, 'at' | 'evidence' | 'files'>;
      readonly policy: Policy;
      readonly guarded: number;
    }
  /** The command could not be started. */
  | { readonly type: 'child-not-started'; readonly command: string; readonly reason: string; readonly nested: boolean }
  /** A remote gate could not re-check the table for some requests and refused them. */
  | { readonly type: 'gate-undecided'; readonly runner: RunnerName; readonly requests: number }
  /** A best-effort record was not written. */
  | { readonly type: 'record-failed'; readonly part: RecordPart; readonly error: LockguardError };
