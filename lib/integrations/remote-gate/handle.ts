// One request at the gate: whose it is, what the run decides about it, and the answer.
//
// Owns: `handle(ctx, req, res)`: a request not addressed to the gate itself (absolute-form, a foreign
// `Host`) or off the protocol's paths is answered 404 and never forwarded; `other` requests pass; a restore
// or save is decided (a decision that throws refuses and is told as `decision-failed`) and passed, or
// refused with the adapter's calm answer (counted: entries and the pipeline's parts apart). A preflight
// (turbo's `OPTIONS`) is judged by the request it announces, as an upload when it announces something the
// protocol has no reading for.
// Invariants: nothing here reads a header but `Host` and a preflight's `Access-Control-Request-Method`;
// events carry method, path and key only.

import type * as http from 'node:http';
import { answerAfterBody, answerPreflight } from './answers.js';
import { forward, knownPath, pathOnly, PREFLIGHT_TARGETS, shortPath } from './forward.js';
import type { GateContext } from './gate-context.js';
import type { Classified, Decision, GateRequest } from './types.js';

/** The most of a thrown decision's message an event keeps (its code instead where there is one). */
const DECISION_ERROR_MAX = 200;

/** Answer without forwarding (counted, told as `not-forwarded`). */
function notForward(
  ctx: GateContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  method: string,
  path: string,
  status: number,
  body: string,
  type?: string,
): void {
  ctx.counts.notForwarded++;
  ctx.tell({ type: 'not-forwarded', method, path: shortPath(path) });
  answerAfterBody(req, res, status, body, type);
}

/** Asked about a request the gate will not count (a preflight): a throw refuses, silently (the request that follows is decided and counted). */
function admits(ctx: GateContext, request: GateRequest): boolean {
  try {
    return ctx.options.decide(request) === 'pass';
  } catch {
    return false;
  }
}

function handlePreflight(ctx: GateContext, req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
  const path = pathOnly(raw);
  const announced = String(req.headers['access-control-request-method'] ?? '').toUpperCase();
  const target = PREFLIGHT_TARGETS.includes(announced) ? ctx.adapter.classify(announced, path) : undefined;
  const key = target?.key ?? 'preflight';
  // What is not understood is judged as an upload would be: it passes only while uploads pass.
  const request: GateRequest = {
    protocol: ctx.options.protocol,
    method: 'OPTIONS',
    path,
    kind: target?.kind === 'restore' ? 'restore' : 'save',
    key,
    unit: target?.unit ?? 'entry',
    at: Date.now(),
  };
  if (target?.kind === 'other' || admits(ctx, request)) {
    ctx.counts.passed.other++;
    forward(ctx, req, res, raw, true);
  } else if (target === undefined) {
    const { status, body, type } = ctx.adapter.refusal('save');
    notForward(ctx, req, res, 'OPTIONS', path, status, body, type);
  } else {
    // Once the request it announces would be refused: the upstream is not asked, and turbo comes back.
    answerPreflight(req, res);
  }
}

/** The run's decision on a restore or save; a throw (or a value that is no decision) refuses, and is told. */
function decideOn(ctx: GateContext, request: GateRequest): { decision: Decision; reason: 'moved' | 'decision-failed' } {
  try {
    const decision = ctx.options.decide(request);
    if (decision !== 'pass' && decision !== 'refuse') throw new Error(`decision was ${String(decision)}`);
    return { decision, reason: 'moved' };
  } catch (error) {
    ctx.counts.decisionFailures++;
    ctx.tell({
      type: 'decision-failed',
      request,
      error:
        error instanceof Error
          ? `${error.name}: ${(error as { code?: string }).code ?? error.message.slice(0, DECISION_ERROR_MAX)}`
          : 'non-error thrown',
    });
    return { decision: 'refuse', reason: 'decision-failed' };
  }
}

/** A restore or save: decided, then forwarded or refused with the adapter's calm answer. */
function handleKeyed(
  ctx: GateContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  method: string,
  raw: string,
  classified: Classified & { kind: 'restore' | 'save'; key: string },
): void {
  const path = pathOnly(raw);
  const request: GateRequest = {
    protocol: ctx.options.protocol,
    method,
    path,
    kind: classified.kind,
    key: classified.key,
    unit: classified.unit,
    at: Date.now(),
  };
  const { decision, reason } = decideOn(ctx, request);
  if (decision === 'pass') {
    ctx.counts.passed[classified.kind]++;
    forward(ctx, req, res, raw);
    return;
  }
  const { status, body, type } = ctx.adapter.refusal(classified.kind);
  if (classified.unit === 'part') ctx.counts.refusedParts++;
  else {
    ctx.counts.refused[classified.kind]++;
    ctx.counts.refusedKeys.push({ kind: classified.kind, key: classified.key });
  }
  ctx.tell({ type: 'refused', request, status, reason });
  answerAfterBody(req, res, status, body, type);
}

/** Serve one request. */
export function handle(ctx: GateContext, req: http.IncomingMessage, res: http.ServerResponse): void {
  const method = req.method ?? '';
  const url = req.url ?? '';
  if (!url.startsWith(`${ctx.prefix}/`)) {
    // Not this run's runner: it was never given the gate's path. Not decided, not forwarded, not counted as ours.
    ctx.counts.foreign++;
    answerAfterBody(req, res, 404, 'Not a cache path lockguard forwards.\n');
    return;
  }
  const raw = url.slice(ctx.prefix.length);
  const path = pathOnly(raw);
  const host = (req.headers['host'] ?? '').toLowerCase();
  const ours = host === `127.0.0.1:${ctx.port}` || host === `localhost:${ctx.port}`;
  if (method === 'OPTIONS' && ctx.adapter.preflight && ours && raw.startsWith('/') && knownPath(ctx, path)) {
    handlePreflight(ctx, req, res, raw);
    return;
  }
  const classified = raw.startsWith('/') && ours ? ctx.adapter.classify(method, path) : undefined;
  if (classified === undefined) {
    notForward(
      ctx,
      req,
      res,
      method,
      raw.startsWith('/') ? path : '(absolute-form)',
      404,
      'Not a cache path lockguard forwards.\n',
    );
    return;
  }
  if (classified.kind === 'other' || classified.key === undefined) {
    ctx.counts.passed.other++;
    forward(ctx, req, res, raw);
    return;
  }
  handleKeyed(ctx, req, res, method, raw, { ...classified, kind: classified.kind, key: classified.key });
}
