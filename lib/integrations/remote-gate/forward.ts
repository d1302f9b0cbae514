// Forwarding one request to the upstream and its answer back, streamed both ways with backpressure.
//
// Owns: `forward(ctx, req, res, path, preflight)`: the upstream request (upstream.ts), its idle timeout,
// passing the answer back (status, headers, body; for a preflight the `Location` pointed back at the gate,
// or the gate's own answer where the upstream has none), and the failure paths: an upstream that fails or
// breaks resets the client's connection (counted, told as `upstream-failed`); a client that goes away
// aborts its upstream request.
// Invariants: no artifact is held whole in memory (`pipe`); an event carries the method, a shortened path
// and an error code (or the start of a message), never a header or a query.

import type * as http from 'node:http';
import { answerPreflight, resetClient, responseHeaders } from './answers.js';
import type { GateContext } from './gate-context.js';
import { gateLocation } from './preflight.js';
import { upstreamRequest } from './upstream.js';

const MAX_PATH_IN_EVENT = 200;
/** The most of an error's message an upstream-failed event keeps (an error code is kept instead where there is one). */
const UPSTREAM_ERROR_MAX = 120;
/** The methods a preflight may announce (anything else is a request the gate does not understand). */
export const PREFLIGHT_TARGETS: readonly string[] = ['GET', 'HEAD', 'PUT', 'POST'];

/** A request target's path (its query left out). */
export function pathOnly(target: string): string {
  const at = target.indexOf('?');
  return at === -1 ? target : target.slice(0, at);
}

/** A path short enough for an event. */
export function shortPath(path: string): string {
  return path.length <= MAX_PATH_IN_EVENT ? path : `${path.slice(0, MAX_PATH_IN_EVENT)}...`;
}

/** A path the protocol serves under some method (for a preflight, which names the method in a header). */
export function knownPath(ctx: GateContext, path: string): boolean {
  return PREFLIGHT_TARGETS.some((method) => ctx.adapter.classify(method, path) !== undefined);
}

/** The upstream's answer passed back (a preflight's `Location` pointed back at the gate). */
function passBack(
  ctx: GateContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  upRes: http.IncomingMessage,
  path: string,
  preflight: boolean,
): void {
  const status = upRes.statusCode ?? 502;
  const headers = responseHeaders(upRes.headers);
  if (preflight) {
    // An upstream without a preflight of its own: the gate answers it (else turbo drops its token).
    if (status < 200 || status > 299) {
      upRes.resume();
      answerPreflight(req, res);
      return;
    }
    const location =
      typeof headers['location'] === 'string'
        ? gateLocation(
            headers['location'],
            ctx.options.upstream,
            path,
            `http://127.0.0.1:${ctx.port}${ctx.prefix}`,
            (known) => knownPath(ctx, known),
          )
        : undefined;
    if (location === undefined) delete headers['location'];
    else headers['location'] = location;
  }
  res.writeHead(status, upRes.statusMessage, headers);
  upRes.pipe(res);
}

/**
 * Forward the request as the client sent it (`target`: its path and query after the gate's per-run path); pass
 * the answer back as the upstream sent it.
 */
export function forward(
  ctx: GateContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  target: string,
  preflight = false,
): void {
  const path = pathOnly(target);
  const up = upstreamRequest(ctx.options.upstream, ctx.agent, req.method ?? 'GET', target, req.headers);
  let failed = false;
  let clientGone = false;
  const fail = (error: Error): void => {
    if (failed || clientGone) return;
    failed = true;
    ctx.counts.upstreamFailures++;
    ctx.tell({
      type: 'upstream-failed',
      method: req.method ?? '',
      path: shortPath(path),
      error: (error as { code?: string }).code ?? error.message.slice(0, UPSTREAM_ERROR_MAX),
    });
    // Before the answer started, and after: the client's connection breaks, as the upstream's did.
    resetClient(req.socket);
  };
  up.setTimeout(ctx.idleMs, () => up.destroy(Object.assign(new Error('upstream idle timeout'), { code: 'ETIMEDOUT' })));
  up.on('error', fail);
  up.on('response', (upRes) => {
    upRes.on('error', fail);
    upRes.on('aborted', () => fail(Object.assign(new Error('upstream aborted the answer'), { code: 'ECONNRESET' })));
    passBack(ctx, req, res, upRes, path, preflight);
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
}
