// The one upstream a gate forwards to: parsed once, joined with each request's path.
//
// Owns: validating the configured remote URL (http or https, a host, no credentials in the URL, no
// query or fragment), the request options for one forwarded request, and the hop-by-hop header rules.
// Invariants: the upstream's base path is kept (`https://host/api` + `/v8/artifacts/h`); headers go
// through as the client sent them except the hop-by-hop ones and `host`; nothing is added (no credential,
// no forwarding header). A URL that fails validation is never echoed whole (it may hold a secret).

import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

export interface Upstream {
  readonly protocol: 'http:' | 'https:';
  readonly hostname: string;
  readonly port: number;
  /** The base path without a trailing slash ('' for none). */
  readonly basePath: string;
  /** The `host` header the upstream expects (brackets for IPv6, the port when it is not the default). */
  readonly hostHeader: string;
  /** `scheme://host:port/base` for notes (never credentials or a query: the URL was refused if it had them). */
  readonly origin: string;
}

export type UpstreamProblem = 'not-a-url' | 'scheme' | 'credentials-in-url' | 'query-in-url';

/** Parse the remote the user configured; a problem is a value (the run falls back to the switch). */
export function parseUpstream(value: string): Upstream | UpstreamProblem {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not-a-url';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'scheme';
  if (url.username !== '' || url.password !== '') return 'credentials-in-url';
  if (url.search !== '' || url.hash !== '') return 'query-in-url';
  if (url.hostname === '') return 'not-a-url';
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const basePath = url.pathname.replace(/\/+$/, '');
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { protocol: url.protocol, hostname, port, basePath, hostHeader: url.host, origin: `${url.protocol}//${url.host}${basePath}` };
}

// RFC 9110 §7.6.1 connection-specific fields, plus `host` (set for the upstream).
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

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
export function upstreamRequest(upstream: Upstream, agent: http.Agent, method: string, pathAndQuery: string, headers: IncomingHttpHeaders): http.ClientRequest {
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
