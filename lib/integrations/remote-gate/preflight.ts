// turbo's preflight (`TURBO_PREFLIGHT=true`, turbo.json `remoteCache.preflight`): what the gate answers to
// `OPTIONS /v8/artifacts/:hash` so that the GET or PUT that follows comes back to the gate.
//
// Owns: the rewrite of an upstream's `Location` to the gate's own URL, and the answer the gate gives itself.
// Measured with the real turbo 2.11.11 (test/e2e/remote-gate-preflight.test.ts): turbo ignores the
// preflight's status; it sends its request to the answer's `Location`, or to the URL it asked when there is
// none, and sends its `Authorization` header only when `Access-Control-Allow-Headers` names it. So refusing
// a preflight refuses nothing: what matters is that no answer sends turbo anywhere but the gate.
// turborepo-remote-cache 2.12.0 has no OPTIONS route (404): without an answer of its own turbo drops its
// token and every upload fails with 400, so where the upstream has no preflight the gate answers it.
// Invariants: pure (no I/O); a `Location` the gate cannot follow (another origin, outside the upstream's
// base path, a path the protocol does not know) is dropped, never passed on; nothing here records a value.

import type { Upstream } from './upstream-url.js';

/** The most of `Access-Control-Request-Headers` echoed back; header names only (tokens, commas, spaces). */
const MAX_ALLOW_HEADERS = 512;
const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~, -]*$/;

/**
 * The `Location` to hand the client for an upstream's `location` (relative to `asked`, the path the
 * preflight asked, without the base path): the same path and query on the gate (`gateUrl`), or undefined
 * (drop it: the client then uses the URL it asked, the gate's) when it points anywhere else.
 * `known(path)` says whether the protocol serves that path (query excluded).
 */
export function gateLocation(
  location: string,
  upstream: Upstream,
  asked: string,
  gateUrl: string,
  known: (path: string) => boolean,
): string | undefined {
  let url: URL;
  try {
    url = new URL(location, `${upstream.origin}${asked}`);
  } catch {
    return undefined;
  }
  if (
    url.protocol !== upstream.protocol ||
    url.host !== upstream.hostHeader ||
    url.username !== '' ||
    url.password !== ''
  )
    return undefined;
  const base = upstream.basePath;
  if (base !== '' && !url.pathname.startsWith(`${base}/`)) return undefined;
  const path = url.pathname.slice(base.length);
  if (!known(path)) return undefined;
  return `${gateUrl}${path}${url.search}`;
}

/** The headers of the gate's own preflight answer: no `Location` (turbo comes back to the URL it asked). */
export function ownPreflightHeaders(requested: string | string[] | undefined): Record<string, string> {
  const list = (Array.isArray(requested) ? requested.join(', ') : (requested ?? '')).slice(0, MAX_ALLOW_HEADERS);
  return {
    'access-control-allow-methods': 'GET, HEAD, PUT, POST, OPTIONS',
    'access-control-allow-headers': HEADER_LIST.test(list) ? list : 'Authorization, Content-Type, User-Agent',
    'content-length': '0',
  };
}
