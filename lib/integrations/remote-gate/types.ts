// The remote gate's vocabulary: which protocol, what a request is for, what the run decides about it.
//
// Owns: the shapes shared by the protocol adapters, the server and whoever wires the gate into a run.
// Invariant: types only. Nothing here carries a header value, a token or a query string: a request is
// described by its method, its path and the adapter's reading of it.

/** The cache protocols the gate serves: turbo's v8 artifacts API, nx's self-hosted API, pnpm 12.21's signed v8. */
export type GateProtocol = 'turbo-v8' | 'nx-v1' | 'pnpm-pipeline-v8';
export const GATE_PROTOCOLS: readonly GateProtocol[] = ['turbo-v8', 'nx-v1', 'pnpm-pipeline-v8'];

/** What a request does to the cache: fetch an entry (restore), file one (save), or anything else. */
type RequestKind = 'restore' | 'save' | 'other';

/** An adapter's reading of one request. */
export interface Classified {
  readonly kind: RequestKind;
  /** The cache key (turbo hash, nx hash, pipeline key or blob digest), or undefined for `other`. */
  readonly key: string | undefined;
  /**
   * `entry`: the request files or fetches a whole cache entry (counted in the status line).
   * `part`: a piece of one (the pipeline's content-addressed blobs), gated but not counted as an entry.
   */
  readonly unit: 'entry' | 'part';
}

/** What the decision callback is shown: never headers, never the query string. */
export interface GateRequest {
  readonly protocol: GateProtocol;
  readonly method: string;
  /** The path without its query string. */
  readonly path: string;
  readonly kind: Exclude<RequestKind, 'other'>;
  readonly key: string;
  readonly unit: 'entry' | 'part';
  /** When the request arrived (epoch ms). */
  readonly at: number;
}

export type Decision = 'pass' | 'refuse';

/** Asked before every restore and save is forwarded. A throw counts as refuse (and is reported). */
export type Decide = (request: GateRequest) => Decision;

/** What the gate tells its owner as it happens (for the run's ledger). Never a header or a query. */
export type GateEvent =
  | {
      readonly type: 'refused';
      readonly request: GateRequest;
      readonly status: number;
      readonly reason: 'moved' | 'decision-failed';
    }
  | { readonly type: 'decision-failed'; readonly request: GateRequest; readonly error: string }
  | { readonly type: 'upstream-failed'; readonly method: string; readonly path: string; readonly error: string }
  | { readonly type: 'not-forwarded'; readonly method: string; readonly path: string };

/** Counters a run reports. `refused.save` counts whole entries; `refusedParts` the pipeline's blobs. */
/** What one gate counted; declared with the run report, which records it (ledger/report.ts). */
export type { GateStats } from '../../ledger/report.js';
