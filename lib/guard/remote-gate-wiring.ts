// A guarded run's remote gates: one per guarded runner whose remote cache the gate can stand in front
// of, open for the child's lifetime, deciding each restore and upload from the run's table re-checked at
// that instant (GuardSession.admits).
//
// Owns: choosing gate or fallback per runner under `--remote auto` (off/on keep their meaning and never
// open a gate; `--policy flag` reports only, so it never refuses and opens none), the child's env/argv
// that points each gated runner at its gate, the ledger events of refusals and failures, and the
// outcome (counts, the report's notes, the requests it could not decide).
// Invariants: a gate that cannot start is a fallback (the runner's switch), said in one line, never a
// silent ungated run; a decision that cannot be made refuses and is said loudly at the end (`undecided`,
// typed, rendered by the CLI); nothing here
// writes a header, a token or a query string anywhere (events carry method, path, key).

import type { Env } from '../core/env.js';
import { appendEvent, type Policy } from '../ledger/ledger.js';
import type { GuardSession } from '../ledger/session.js';
import {
  detectRemote,
  pointRunnerAt,
  type RemoteDetection,
  type RemoteMode,
  type RunnerName,
} from '../integrations/runners/index.js';
import type { Gate, GateEvent, GateStats } from '../integrations/remote-gate/index.js';
import { parseUpstream } from '../integrations/remote-gate/upstream-url.js';
import type { RemoteFallback } from './events.js';

export interface RemoteGateInput {
  readonly runners: readonly RunnerName[];
  readonly root: string;
  /** The command the run starts (a turbo `--api` in it is rewritten). */
  readonly command: readonly string[];
  readonly env: Env;
  readonly remote: RemoteMode;
  readonly policy: Policy;
  readonly session: GuardSession;
}

interface GatedRunner {
  readonly runner: RunnerName;
  readonly upstream: string;
  readonly source: string;
  readonly gate: Gate;
}

export interface RemoteGateOutcome {
  /** Per gated runner: where it forwarded and what it counted. */
  readonly gates: readonly {
    readonly runner: RunnerName;
    readonly upstream: string;
    readonly source: string;
    readonly stats: GateStats;
  }[];
  /** Whole entries refused, over every gate. */
  readonly refusedUploads: number;
  /**
   * The pipeline's blob uploads refused: pnpm 12.21 PUTs a task's blobs (in parallel) before its manifest
   * and abandons the task's upload when one is refused (measured), so no manifest follows them.
   */
  readonly refusedParts: number;
  readonly refusedRestores: number;
  /** Lines for the report. */
  readonly notes: readonly string[];
  /** Per gate that could not re-check the table for some requests (and refused them): said loudly after the run. */
  readonly undecided: readonly { readonly runner: RunnerName; readonly requests: number }[];
}

export interface RemoteGates {
  /** Env for the child: every gated runner pointed at its gate. */
  readonly env: Readonly<Record<string, string>>;
  /** The command, with a turbo `--api` pointed at its gate. */
  readonly argv: readonly string[];
  /** Runners whose remote is gated: the up-front switch must leave them alone. */
  readonly gated: ReadonlySet<RunnerName>;
  /** Each runner with a remote that could not be gated, and why (it falls back to its switch). */
  readonly fallbacks: readonly RemoteFallback[];
  /** Under `--remote auto`: the runners configured for a remote cache, gated or not (detected once per run). */
  readonly withRemote: ReadonlySet<RunnerName>;
  readonly active: readonly GatedRunner[];
  /** Close every gate (after the child exited) and say what they did. */
  close(): Promise<RemoteGateOutcome>;
}

function origin(url: string): string {
  const parsed = parseUpstream(url);
  return typeof parsed === 'string' ? '(unparsed)' : parsed.origin;
}

function record(session: GuardSession, runner: RunnerName, event: GateEvent): void {
  switch (event.type) {
    case 'refused':
      appendEvent(session.run, {
        type: 'remote-refused',
        runner,
        kind: event.request.kind,
        unit: event.request.unit,
        key: event.request.key,
        method: event.request.method,
        status: event.status,
        reason: event.reason,
      });
      return;
    case 'decision-failed':
      appendEvent(session.run, {
        type: 'remote-decision-failed',
        runner,
        kind: event.request.kind,
        key: event.request.key,
        error: event.error,
      });
      return;
    case 'upstream-failed':
      appendEvent(session.run, {
        type: 'remote-upstream-failed',
        runner,
        method: event.method,
        path: event.path,
        error: event.error,
      });
      return;
    case 'not-forwarded':
      appendEvent(session.run, { type: 'remote-not-forwarded', runner, method: event.method, path: event.path });
      return;
  }
}

/** Open a gate for every guarded runner that has a gateable remote (under `--remote auto`). */
export async function openRemoteGates(input: RemoteGateInput): Promise<RemoteGates> {
  const { session } = input;
  let env: Record<string, string> = {};
  let argv: readonly string[] = input.command;
  const gated = new Set<RunnerName>();
  const ungated = new Map<RunnerName, string>();
  const active: GatedRunner[] = [];
  const withRemote = new Set<RunnerName>();
  if (input.remote === 'auto') {
    for (const runner of input.runners) {
      const detection = detectRemote(runner, input.root, input.env, input.command);
      if (detection.state === 'none') continue;
      withRemote.add(runner);
      // `flag` withholds nothing, so it opens no gate either (its switch stays as the plan decides).
      if (input.policy === 'flag') continue;
      if (detection.state === 'ungateable') {
        ungated.set(runner, detection.why);
        continue;
      }
      const gate = await startRunnerGate(runner, detection, session);
      if (gate === undefined) continue;
      if (typeof gate === 'string') {
        ungated.set(runner, gate);
        continue;
      }
      const pointed = pointRunnerAt(detection, gate.url, argv);
      env = { ...env, ...pointed.env };
      argv = pointed.argv;
      gated.add(runner);
      active.push({ runner, upstream: detection.upstream, source: detection.source, gate });
      appendEvent(session.run, {
        type: 'remote-gate',
        runner,
        protocol: detection.protocol,
        upstream: origin(detection.upstream),
        source: detection.source,
        port: gate.port,
      });
    }
  }
  return {
    env,
    argv,
    gated,
    fallbacks: [...ungated].map(([runner, why]) => ({ runner, why })),
    withRemote,
    active,
    close: () => closeGates(active),
  };
}

/** One runner's gate, listening: undefined when its upstream does not parse, why when the gate cannot listen. */
async function startRunnerGate(
  runner: RunnerName,
  detection: Extract<RemoteDetection, { state: 'gateable' }>,
  session: GuardSession,
): Promise<Gate | string | undefined> {
  const upstream = parseUpstream(detection.upstream);
  if (typeof upstream === 'string') return undefined;
  const decide = (): 'pass' | 'refuse' => (session.admits() ? 'pass' : 'refuse');
  try {
    // The HTTP stack is loaded only for a run that has a remote to gate.
    const { startGate } = await import('../integrations/remote-gate/index.js');
    return await startGate({
      protocol: detection.protocol,
      upstream,
      decide,
      onEvent: (event) => record(session, runner, event),
    });
  } catch (error) {
    return `the gate could not listen on 127.0.0.1: ${(error as { code?: string }).code ?? 'error'}`;
  }
}

/** Close every gate (after the child exited) and say what they did: counts, a note each, the undecided. */
async function closeGates(active: readonly GatedRunner[]): Promise<RemoteGateOutcome> {
  await Promise.all(active.map((entry) => entry.gate.close()));
  const gates = active.map((entry) => ({
    runner: entry.runner,
    upstream: origin(entry.upstream),
    source: entry.source,
    stats: entry.gate.stats(),
  }));
  const notes: string[] = [];
  const undecided: { runner: RunnerName; requests: number }[] = [];
  for (const { runner, upstream, stats } of gates) {
    notes.push(
      `remote gate (${runner} → ${upstream}): passed ${stats.passed.restore} restores, ${stats.passed.save} uploads, ${stats.passed.other} other; refused ${stats.refused.restore} restores, ${stats.refused.save} uploads${stats.refusedParts > 0 ? ` (+${stats.refusedParts} blobs)` : ''}; upstream failures passed on: ${stats.upstreamFailures}; not forwarded: ${stats.notForwarded}${stats.foreign > 0 ? `; requests from other processes turned away (not this run's): ${stats.foreign}` : ''}`,
    );
    if (stats.decisionFailures > 0) undecided.push({ runner, requests: stats.decisionFailures });
  }
  return {
    gates,
    refusedUploads: gates.reduce((sum, gate) => sum + gate.stats.refused.save, 0),
    refusedParts: gates.reduce((sum, gate) => sum + gate.stats.refusedParts, 0),
    refusedRestores: gates.reduce((sum, gate) => sum + gate.stats.refused.restore, 0),
    notes,
    undecided,
  };
}
