// The one upstream a gate forwards to, as configured: the URL checked and parsed once.
//
// Owns: validating the configured remote URL (http or https, a host, no credentials in the URL, no query or
// fragment) into an `Upstream`. Kept apart from upstream.ts (the forwarding, node:http and node:https) so
// that detecting a remote (integrations/runners/remote-upstream.ts) loads no HTTP stack on a run that has none.
// Invariants: a URL that fails validation is never echoed whole (it may hold a secret); the base path is kept.

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
  return {
    protocol: url.protocol,
    hostname,
    port,
    basePath,
    hostHeader: url.host,
    origin: `${url.protocol}//${url.host}${basePath}`,
  };
}
