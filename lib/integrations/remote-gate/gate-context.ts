// One gate's shared state: its options, protocol adapter, upstream agent, counters and event sink.
//
// Owns: `GateContext` (what the request handlers, handle.ts and forward.ts, share), its counters and the
// stats snapshot a run reports, and `tell` (an owner's throw never breaks a transfer).
// Invariants: counters only grow; a stats snapshot is a copy; nothing here holds a header or a query.

import type * as http from 'node:http';
import type * as https from 'node:https';
import type { ProtocolAdapter } from './protocol-kit.js';
import type { Upstream } from './upstream.js';
import type { Decide, GateEvent, GateProtocol, GateStats } from './types.js';

export interface GateOptions {
  readonly protocol: GateProtocol;
  readonly upstream: Upstream;
  readonly decide: Decide;
  /** Told of refusals and failures as they happen; a throw here is swallowed (it must not break a transfer). */
  readonly onEvent?: (event: GateEvent) => void;
  /**
   * Inactivity limit on one forwarded request (no byte either way), default 5 minutes: longer than the
   * clients' own (turbo's remote timeout is 30 s, its upload timeout 60 s), so a client's timeout always
   * fires first and the client decides; this only frees sockets of a client that has no timeout.
   */
  readonly idleTimeoutMs?: number;
  /** Extra TLS options for an https upstream (e.g. a test CA); never credentials. */
  readonly tls?: https.AgentOptions;
}

/** What one gate counts as it serves. */
export interface GateCounters {
  readonly passed: { restore: number; save: number; other: number };
  readonly refused: { restore: number; save: number };
  readonly refusedKeys: { kind: 'restore' | 'save'; key: string }[];
  refusedParts: number;
  upstreamFailures: number;
  decisionFailures: number;
  notForwarded: number;
  foreign: number;
}

export interface GateContext {
  readonly options: GateOptions;
  readonly adapter: ProtocolAdapter;
  readonly agent: http.Agent;
  /** The inactivity limit on one forwarded request. */
  readonly idleMs: number;
  readonly counts: GateCounters;
  /** The gate's own port (0 until it listens). */
  port: number;
  /**
   * The per-run path every request to the gate starts with (`/lockguard-<32 hex>`, random): only the runner
   * lockguard started is given it, so a request without it is another process's and is not this run's.
   */
  readonly prefix: string;
  /** Tell the owner (a throw is swallowed). */
  tell(event: GateEvent): void;
}

/** Fresh counters. */
export function newCounters(): GateCounters {
  return {
    passed: { restore: 0, save: 0, other: 0 },
    refused: { restore: 0, save: 0 },
    refusedKeys: [],
    refusedParts: 0,
    upstreamFailures: 0,
    decisionFailures: 0,
    notForwarded: 0,
    foreign: 0,
  };
}

/** A copy of the counters, as the run's report records them. */
export function statsOf(counts: GateCounters): GateStats {
  return {
    passed: { ...counts.passed },
    refused: { ...counts.refused },
    refusedParts: counts.refusedParts,
    upstreamFailures: counts.upstreamFailures,
    decisionFailures: counts.decisionFailures,
    notForwarded: counts.notForwarded,
    foreign: counts.foreign,
    refusedKeys: [...counts.refusedKeys],
  };
}

/** The owner's event sink, made safe: its bookkeeping must not break a transfer. */
export function teller(onEvent: GateOptions['onEvent']): (event: GateEvent) => void {
  return (event) => {
    try {
      onEvent?.(event);
    } catch {
      // The owner's bookkeeping must not break a transfer.
    }
  };
}
