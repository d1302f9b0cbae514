// The gate: a loopback HTTP server that serves one cache protocol and forwards to the one upstream.
//
// Owns: listening (127.0.0.1, a port of its own, until `close()`), asking the decision callback before
// every restore and save, refusing with the adapter's calm answer, and streaming everything else both
// ways with backpressure (`pipe`): no artifact is ever held whole in memory.
// Invariants:
// - Before a decision says `refuse`, every protocol request reaches the upstream as the client sent it
//   (method, path after the upstream's base path, query, headers minus hop-by-hop ones, body) and its
//   answer reaches the client as the upstream sent it (status, headers, body).
// - A decision that throws refuses (never a silent pass) and is reported as `decision-failed`.
// - A path that is not the protocol's, or a request not addressed to the gate itself (absolute-form,
//   a foreign `Host`), is answered 404 and never reaches the upstream.
// - An upstream failure is passed on as the client would have met it: a status is a status (5xx stays
//   5xx), a connection that fails or breaks resets the client's connection. The gate has no timeout
//   shorter than the clients' own (see `idleTimeoutMs`); a client that goes away aborts its upstream request.
// - A refused upload's body is read and discarded as it streams (never buffered), then answered, so the
//   client sees a status and not a broken pipe.
// - A preflight (`OPTIONS`, turbo's; preflight.ts) never sends the client anywhere but the gate: before the
//   move it is forwarded and the upstream's `Location` is pointed back at the gate (or dropped), and where
//   the upstream has no preflight (not 2xx) the gate answers it; once the request it announces would be
//   refused, the gate answers it without asking the upstream, and refuses the request when it comes.
// - After the move, a request on the protocol's paths that the gate does not understand (a preflight
//   announcing a method the protocol has no reading for) is refused, never forwarded; before it, it passes.
// - Nothing here records a header value or a query string: events and stats carry method, path, key.

import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type https from 'node:https';
import { gateLocation, ownPreflightHeaders } from './preflight.js';
import { protocolAdapter } from './protocols.js';
import { forwardHeaders, upstreamAgent, upstreamRequest, type Upstream } from './upstream.js';
import type { Decide, Decision, GateEvent, GateProtocol, GateRequest, GateStats } from './types.js';

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

export interface Gate {
  /** `http://127.0.0.1:<port>`: what the runner is pointed at. */
  readonly url: string;
  readonly port: number;
  stats(): GateStats;
  /** Stop listening and end every open connection (the run is over). Idempotent. */
  close(): Promise<void>;
}

const MAX_PATH_IN_EVENT = 200;
/** The most of an error's message an event keeps, for an upstream failure and for a decision that threw (an error code is kept instead where there is one). */
const UPSTREAM_ERROR_MAX = 120;
const DECISION_ERROR_MAX = 200;
/** An upstream request idle this long fails as ETIMEDOUT (default of `idleTimeoutMs`). */
const IDLE_TIMEOUT_MS = 300_000;
/** The methods a preflight may announce (anything else is a request the gate does not understand). */
const PREFLIGHT_TARGETS: readonly string[] = ['GET', 'HEAD', 'PUT', 'POST'];

function pathOnly(raw: string): string {
  const at = raw.indexOf('?');
  return at === -1 ? raw : raw.slice(0, at);
}

function shortPath(path: string): string {
  return path.length <= MAX_PATH_IN_EVENT ? path : `${path.slice(0, MAX_PATH_IN_EVENT)}...`;
}

/** The response headers to pass back: the upstream's, minus hop-by-hop ones. */
function responseHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out = forwardHeaders(headers);
  delete out['host'];
  return out;
}

/** Break the client's connection the way a dead upstream would: an RST where Node can send one. */
function resetClient(socket: Socket | null): void {
  if (socket === null || socket.destroyed) return;
  const withReset = socket as Socket & { resetAndDestroy?: () => void };
  if (typeof withReset.resetAndDestroy === 'function') withReset.resetAndDestroy();
  else socket.destroy();
}

export async function startGate(options: GateOptions): Promise<Gate> {
  const adapter = protocolAdapter(options.protocol);
  const agent = upstreamAgent(options.upstream, options.tls ?? {});
  const idleMs = options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  const sockets = new Set<Socket>();
  const passed = { restore: 0, save: 0, other: 0 };
  const refused = { restore: 0, save: 0 };
  const refusedKeys: { kind: 'restore' | 'save'; key: string }[] = [];
  let refusedParts = 0;
  let upstreamFailures = 0;
  let decisionFailures = 0;
  let notForwarded = 0;
  let port = 0;

  const tell = (event: GateEvent): void => {
    try {
      options.onEvent?.(event);
    } catch {
      // The owner's bookkeeping must not break a transfer.
    }
  };

  /** Read and discard the request body, then `send`: the client sees a status, not a broken pipe. */
  const afterBody = (req: http.IncomingMessage, res: http.ServerResponse, send: () => void): void => {
    const once = (): void => {
      if (!res.headersSent && !res.destroyed) send();
    };
    req.on('error', () => undefined);
    if (req.readableEnded || req.complete) once();
    else {
      req.on('end', once);
      req.resume();
    }
  };

  const answerAfterBody = (req: http.IncomingMessage, res: http.ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void =>
    afterBody(req, res, () => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });

  /** The preflight's own answer: the client comes back to the URL it asked (the gate's). */
  const answerPreflight = (req: http.IncomingMessage, res: http.ServerResponse): void =>
    afterBody(req, res, () => {
      res.writeHead(200, ownPreflightHeaders(req.headers['access-control-request-headers']));
      res.end();
    });

  const forward = (req: http.IncomingMessage, res: http.ServerResponse, path: string, preflight = false): void => {
    const up = upstreamRequest(options.upstream, agent, req.method ?? 'GET', req.url ?? '/', req.headers);
    let failed = false;
    let clientGone = false;
    const fail = (error: Error): void => {
      if (failed || clientGone) return;
      failed = true;
      upstreamFailures++;
      tell({ type: 'upstream-failed', method: req.method ?? '', path: shortPath(path), error: (error as { code?: string }).code ?? error.message.slice(0, UPSTREAM_ERROR_MAX) });
      // Before the answer started, and after: the client's connection breaks, as the upstream's did.
      resetClient(req.socket);
    };
    up.setTimeout(idleMs, () => up.destroy(Object.assign(new Error('upstream idle timeout'), { code: 'ETIMEDOUT' })));
    up.on('error', fail);
    up.on('response', (upRes) => {
      upRes.on('error', fail);
      upRes.on('aborted', () => fail(Object.assign(new Error('upstream aborted the answer'), { code: 'ECONNRESET' })));
      const status = upRes.statusCode ?? 502;
      const headers = responseHeaders(upRes.headers);
      if (preflight) {
        // An upstream without a preflight of its own: the gate answers it (else turbo drops its token).
        if (status < 200 || status > 299) {
          upRes.resume();
          answerPreflight(req, res);
          return;
        }
        const location = typeof headers['location'] === 'string' ? gateLocation(headers['location'], options.upstream, path, `http://127.0.0.1:${port}`, known) : undefined;
        if (location === undefined) delete headers['location'];
        else headers['location'] = location;
      }
      res.writeHead(status, upRes.statusMessage, headers);
      upRes.pipe(res);
    });
    // The client went away (timeout, Ctrl-C, reset): drop its upstream request too.
    const clientLeft = (): void => {
      clientGone = true;
      up.destroy();
    };
    res.on('close', () => {
      if (!res.writableFinished) clientLeft();
    });
    req.on('aborted', clientLeft);
    req.on('error', clientLeft);
    req.pipe(up);
  };

  /** A path the protocol serves under some method (for a preflight, which names the method in a header). */
  const known = (path: string): boolean => PREFLIGHT_TARGETS.some((method) => adapter.classify(method, path) !== undefined);

  const notForward = (req: http.IncomingMessage, res: http.ServerResponse, method: string, path: string, status: number, body: string, type?: string): void => {
    notForwarded++;
    tell({ type: 'not-forwarded', method, path: shortPath(path) });
    answerAfterBody(req, res, status, body, type);
  };

  /** Asked about a request the gate will not count (a preflight): a throw refuses, silently (the request that follows is decided and counted). */
  const admits = (request: GateRequest): boolean => {
    try {
      return options.decide(request) === 'pass';
    } catch {
      return false;
    }
  };

  const handlePreflight = (req: http.IncomingMessage, res: http.ServerResponse, path: string): void => {
    const announced = String(req.headers['access-control-request-method'] ?? '').toUpperCase();
    const target = PREFLIGHT_TARGETS.includes(announced) ? adapter.classify(announced, path) : undefined;
    const key = target?.key ?? 'preflight';
    // What is not understood is judged as an upload would be: it passes only while uploads pass.
    const request: GateRequest = { protocol: options.protocol, method: 'OPTIONS', path, kind: target?.kind === 'restore' ? 'restore' : 'save', key, unit: target?.unit ?? 'entry', at: Date.now() };
    if (target?.kind === 'other' || admits(request)) {
      passed.other++;
      forward(req, res, path, true);
    } else if (target === undefined) {
      const { status, body, type } = adapter.refusal('save');
      notForward(req, res, 'OPTIONS', path, status, body, type);
    } else {
      // Once the request it announces would be refused: the upstream is not asked, and turbo comes back.
      answerPreflight(req, res);
    }
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const method = req.method ?? '';
    const raw = req.url ?? '';
    const path = pathOnly(raw);
    const host = (req.headers['host'] ?? '').toLowerCase();
    const ours = host === `127.0.0.1:${port}` || host === `localhost:${port}`;
    if (method === 'OPTIONS' && adapter.preflight && ours && raw.startsWith('/') && known(path)) {
      handlePreflight(req, res, path);
      return;
    }
    const classified = raw.startsWith('/') && ours ? adapter.classify(method, path) : undefined;
    if (classified === undefined) {
      notForward(req, res, method, raw.startsWith('/') ? path : '(absolute-form)', 404, 'Not a cache path lockguard forwards.\n');
      return;
    }
    if (classified.kind === 'other' || classified.key === undefined) {
      passed.other++;
      forward(req, res, path);
      return;
    }
    const request: GateRequest = { protocol: options.protocol, method, path, kind: classified.kind, key: classified.key, unit: classified.unit, at: Date.now() };
    let decision: Decision;
    let reason: 'moved' | 'decision-failed' = 'moved';
    try {
      decision = options.decide(request);
      if (decision !== 'pass' && decision !== 'refuse') throw new Error(`decision was ${String(decision)}`);
    } catch (error) {
      decision = 'refuse';
      reason = 'decision-failed';
      decisionFailures++;
      tell({ type: 'decision-failed', request, error: error instanceof Error ? `${error.name}: ${(error as { code?: string }).code ?? error.message.slice(0, DECISION_ERROR_MAX)}` : 'non-error thrown' });
    }
    if (decision === 'pass') {
      passed[classified.kind]++;
      forward(req, res, path);
      return;
    }
    const { status, body, type } = adapter.refusal(classified.kind);
    if (classified.unit === 'part') refusedParts++;
    else {
      refused[classified.kind]++;
      refusedKeys.push({ kind: classified.kind, key: classified.key });
    }
    tell({ type: 'refused', request, status, reason });
    answerAfterBody(req, res, status, body, type);
  };

  const server = http.createServer(handle);
  // A large upload may take longer than Node's default 5-minute whole-request limit.
  server.requestTimeout = 0;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => {
    if (!socket.destroyed) socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stats: () => ({
      passed: { ...passed },
      refused: { ...refused },
      refusedParts,
      upstreamFailures,
      decisionFailures,
      notForwarded,
      refusedKeys: [...refusedKeys],
    }),
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        agent.destroy();
      });
      return closing;
    },
  };
}
