// The gate: a loopback HTTP server that serves one cache protocol and forwards to the one upstream.
//
// Owns: `startGate`: listening (127.0.0.1, a port of its own, until `close()`), the gate's context
// (gate-context.ts: adapter, agent, counters), and closing. Each request is handle.ts's (whose it is, the
// decision, the refusal), forwarding is forward.ts's (streamed both ways with backpressure, `pipe`: no
// artifact is ever held whole in memory), the gate's own answers answers.ts's.
// Invariants (held across those modules):
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
// - Only requests under the gate's per-run path (its URL's, given to the runner lockguard starts) are this
//   run's: any other (another process on the machine) is answered 404, reaches nobody and counts only as
//   `foreign`, never as a restore or an upload this run passed or refused.

import { nodeCrypto } from '../../core/lazy-builtins.js';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { newCounters, statsOf, teller, type GateContext, type GateOptions } from './gate-context.js';
import { handle } from './handle.js';
import { protocolAdapter } from './protocols.js';
import { upstreamAgent } from './upstream.js';
import type { GateStats } from './types.js';

export type { GateOptions } from './gate-context.js';

export interface Gate {
  /** `http://127.0.0.1:<port>/lockguard-<random>`: what the runner is pointed at (the path is this run's). */
  readonly url: string;
  readonly port: number;
  stats(): GateStats;
  /** Stop listening and end every open connection (the run is over). Idempotent. */
  close(): Promise<void>;
}

/** An upstream request idle this long fails as ETIMEDOUT (default of `idleTimeoutMs`). */
const IDLE_TIMEOUT_MS = 300_000;

/** The server, tracking its sockets (so `close` can end them), listening on a loopback port of its own. */
async function listen(ctx: GateContext, sockets: Set<Socket>): Promise<http.Server> {
  const server = http.createServer((req, res) => handle(ctx, req, res));
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
  return server;
}

export async function startGate(options: GateOptions): Promise<Gate> {
  const agent = upstreamAgent(options.upstream, options.tls ?? {});
  const ctx: GateContext = {
    options,
    adapter: protocolAdapter(options.protocol),
    agent,
    idleMs: options.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
    counts: newCounters(),
    port: 0,
    prefix: `/lockguard-${nodeCrypto().randomBytes(16).toString('hex')}`,
    tell: teller(options.onEvent),
  };
  const sockets = new Set<Socket>();
  const server = await listen(ctx, sockets);
  ctx.port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${ctx.port}${ctx.prefix}`,
    port: ctx.port,
    stats: () => statsOf(ctx.counts),
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
