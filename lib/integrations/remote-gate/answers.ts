// The gate's own answers to a client: after its body, a preflight's, a broken connection, passed-on headers.
//
// Owns: `answerAfterBody` (read and discard the request body as it streams, then answer: the client sees a
// status, not a broken pipe), `answerPreflight` (the preflight's own answer, which sends the client back to
// the gate), `resetClient` (an RST where Node can send one, as a dead upstream would) and
// `responseHeaders` (the upstream's, minus hop-by-hop ones).
// Invariants: a body is never buffered; nothing is answered twice (a response already started or destroyed
// is left alone).

import type * as http from 'node:http';
import type { Socket } from 'node:net';
import { ownPreflightHeaders } from './preflight.js';
import { forwardHeaders } from './upstream.js';

/** Read and discard the request body, then `send`. */
function afterBody(req: http.IncomingMessage, res: http.ServerResponse, send: () => void): void {
  const once = (): void => {
    if (!res.headersSent && !res.destroyed) send();
  };
  req.on('error', () => undefined);
  if (req.readableEnded || req.complete) once();
  else {
    req.on('end', once);
    req.resume();
  }
}

/** A plain answer of the gate's own, once the request body is read. */
export function answerAfterBody(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  status: number,
  body: string,
  type = 'text/plain; charset=utf-8',
): void {
  afterBody(req, res, () => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
}

/** The preflight's own answer: the client comes back to the URL it asked (the gate's). */
export function answerPreflight(req: http.IncomingMessage, res: http.ServerResponse): void {
  afterBody(req, res, () => {
    res.writeHead(200, ownPreflightHeaders(req.headers['access-control-request-headers']));
    res.end();
  });
}

/** The response headers to pass back: the upstream's, minus hop-by-hop ones. */
export function responseHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out = forwardHeaders(headers);
  delete out['host'];
  return out;
}

/** Break the client's connection the way a dead upstream would: an RST where Node can send one. */
export function resetClient(socket: Socket | null): void {
  if (socket === null || socket.destroyed) return;
  const withReset = socket as Socket & { resetAndDestroy?: () => void };
  if (typeof withReset.resetAndDestroy === 'function') withReset.resetAndDestroy();
  else socket.destroy();
}
