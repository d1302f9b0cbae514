// The rig of the in-process remote gate tests (test/integrations/remote-gate/server*.test.ts): the gate started
// in this process over an upstream (`gateFor`, its events collected), the spec server on loopback holding the
// planted TOKEN (`spec`, with the requests it logged), a raw upstream for faults (`rawServer`), and one client
// request with node:http (`request`).
//
// Invariants: loopback only; every gate and server is closed in `t.after`; a client request is never retried
// (a reset is the caller's error); TOKEN is the bearer every test plants, so a test can assert it never shows in
// the gate's events or stats.

import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { TestContext } from 'node:test';
import {
  parseUpstream,
  startGate,
  type Decision,
  type GateEvent,
  type GateProtocol,
  type Upstream,
} from '../../lib/integrations/remote-gate/index.js';
import { startSpecServer } from './spec-cache-server.js';
import { tempWorkspace } from './workspace.js';

export const TOKEN = 'lg-planted-token-0d9e';

export function upstreamOf(url: string): Upstream {
  const parsed = parseUpstream(url);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

export interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/** One request with node:http (so a reset is an error, not a retry). */
export function request(
  url: string,
  options: { method?: string; headers?: http.OutgoingHttpHeaders; body?: Buffer | Readable; timeoutMs?: number } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
        res.on('aborted', () => reject(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })));
      },
    );
    req.on('error', reject);
    if (options.timeoutMs !== undefined)
      req.setTimeout(options.timeoutMs, () =>
        req.destroy(Object.assign(new Error('client timeout'), { code: 'ETIMEDOUT' })),
      );
    if (options.body instanceof Readable) options.body.pipe(req);
    else req.end(options.body);
  });
}

export async function gateFor(
  t: TestContext,
  protocol: GateProtocol,
  upstreamUrl: string,
  decide: () => Decision = () => 'pass',
  idleTimeoutMs?: number,
) {
  const events: GateEvent[] = [];
  const gate = await startGate({
    protocol,
    upstream: upstreamOf(upstreamUrl),
    decide,
    onEvent: (event) => events.push(event),
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
  });
  t.after(() => gate.close());
  return { gate, events };
}

/** The spec server (spec-cache-server.ts) with TOKEN, and the requests it logged (none before the first). */
export async function spec(t: TestContext, protocol: 'nx-v1' | 'v8') {
  const dir = tempWorkspace(t);
  const log = `${dir}/requests.ndjson`;
  const server = await startSpecServer({ protocol, dir: `${dir}/store`, token: TOKEN, log });
  t.after(() => server.close());
  const requests = (): { method: string; path: string; status: number }[] => {
    try {
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { method: string; path: string; status: number });
    } catch {
      return [];
    }
  };
  return { server, requests };
}

/** A raw upstream for faults. */
export async function rawServer(
  t: TestContext,
  handler: http.RequestListener,
): Promise<{ url: string; closed: () => number }> {
  let closed = 0;
  const server = http.createServer((req, res) => {
    req.on('close', () => closed++);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, closed: () => closed };
}
