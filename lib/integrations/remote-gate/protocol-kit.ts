// What every cache protocol adapter shares: its interface, the key shape, the refusal bodies.
//
// Owns: `ProtocolAdapter` (the mapping (method, path) → restore | save | other and its key, and the
// refusal status per kind), `keyAfter` (a key under a path prefix), the v8 error body. Each runner's
// protocol is its adapter's (runners/<runner>/protocol.ts), measured with the real clients
// (test/e2e/remote-gate*.test.ts pin it; lib/README.md).
// Invariants: an adapter never looks at headers, bodies or the query string (the server reads a preflight's
// `Access-Control-Request-Method` and asks `classify` about that method); a path it does not know is
// `undefined` (the server answers 404 and never contacts the upstream); keys are plain tokens (no `/`, no
// dot segments, no percent-escapes).

import type { Classified, GateProtocol } from './types.js';

/** A plain key token: no `/`, no dot segments, no percent-escapes. */
const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

export interface ProtocolAdapter {
  readonly protocol: GateProtocol;
  /** The request's reading, or undefined when the path is not the protocol's. `path` has no query. */
  classify(method: string, path: string): Classified | undefined;
  /**
   * Whether the client may send a CORS-style preflight (`OPTIONS` naming the method it will send in
   * `Access-Control-Request-Method`): the server reads that one header and asks `classify` about the method.
   */
  readonly preflight: boolean;
  /** Status and body for a refused request of this kind. */
  refusal(kind: 'restore' | 'save'): { readonly status: number; readonly body: string; readonly type: string };
}

/** A request of the protocol that is neither a restore nor a save (status, events). */
export const OTHER: Classified = { kind: 'other', key: undefined, unit: 'entry' };

/** The key after `prefix` in `path`, when it is a plain key token. */
export function keyAfter(path: string, prefix: string): string | undefined {
  if (!path.startsWith(prefix)) return undefined;
  const key = path.slice(prefix.length);
  return KEY.test(key) && key !== '.' && key !== '..' ? key : undefined;
}

export const REFUSED_SAVE =
  'lockguard refused this upload: the lockfile moved during the run, so its key names the old lockfile';
export const REFUSED_RESTORE = 'lockguard refused this restore: the lockfile moved during the run';
/** The v8 API's error body (turbo parses a 4xx body as `{"error": {"code", "message"}}` and prints the message). */
export const v8Error = (code: string, message: string): { status: number; body: string; type: string } => ({
  status: code === 'not_found' ? 404 : 403,
  body: JSON.stringify({ error: { code, message } }),
  type: 'application/json',
});
