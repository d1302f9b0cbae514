// The one upstream a gate forwards to: parsed once (upstream-url.ts), joined with each request's path.
//
// Owns: the request options for one forwarded request, the keep-alive agent, and the hop-by-hop header rules.
// Invariants: the upstream's base path is kept (`https://host/api` + `/v8/artifacts/h`); headers go
// through as the client sent them except the hop-by-hop ones and `host`; nothing is added (no credential,
// no forwarding header). A URL that fails validation is never echoed whole (it may hold a secret).

import * as http from 'node:http';
import * as https from 'node:https';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Upstream } from './upstream-url.js';

export { parseUpstream, type Upstream } from './upstream-url.js';

// RFC 9110 §7.6.1 connection-specific fields, plus `host` (set for the upstream).
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/** The client's headers minus hop-by-hop ones (and whatever its `Connection` header names). */
export function forwardHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = new Set(
    String(headers['connection'] ?? '')
      .split(',')
      .map((word) => word.trim().toLowerCase())
      .filter((word) => word !== ''),
  );
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** One forwarded request to the upstream (`pathAndQuery` as the client sent it after the gate's origin). */
export function upstreamRequest(
  upstream: Upstream,
  agent: http.Agent,
  method: string,
  pathAndQuery: string,
  headers: IncomingHttpHeaders,
): http.ClientRequest {
  const options: http.RequestOptions = {
    protocol: upstream.protocol,
    hostname: upstream.hostname,
    port: upstream.port,
    method,
    path: `${upstream.basePath}${pathAndQuery}`,
    headers: { ...forwardHeaders(headers), host: upstream.hostHeader },
    agent,
  };
  return upstream.protocol === 'https:' ? https.request(options) : http.request(options);
}

/** A keep-alive agent for the upstream (many small artifacts: reuse connections). */
export function upstreamAgent(upstream: Upstream, extra: https.AgentOptions = {}): http.Agent {
  const options = { keepAlive: true, maxSockets: 64, ...extra };
  return upstream.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}
