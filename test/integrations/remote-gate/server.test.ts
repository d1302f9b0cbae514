// The gate in process, against the spec server and fault servers on loopback: forwarding as the client
// sent it, refusals per protocol, paths it never forwards, upstream faults passed on, clients that go
// away, a 200 MB artifact streamed both ways, a planted token that never reaches events or stats, and turbo's
// preflight (the Location pointed back at the gate; refused, or answered without the upstream, once moved).

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { test, type TestContext } from 'node:test';
import {
  parseUpstream,
  startGate,
  type Decision,
  type GateEvent,
  type GateProtocol,
  type Upstream,
} from '../../../lib/integrations/remote-gate/index.js';
import { artifactBody } from '../../helpers/cache-servers.js';
import { startSpecServer } from '../../helpers/spec-cache-server.js';
import { tempWorkspace } from '../../helpers/workspace.js';

const TOKEN = 'lg-planted-token-0d9e';

function upstreamOf(url: string): Upstream {
  const parsed = parseUpstream(url);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/** One request with node:http (so a reset is an error, not a retry). */
function request(
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

async function gateFor(
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

async function spec(t: TestContext, protocol: 'nx-v1' | 'v8') {
  const dir = tempWorkspace(t);
  const log = `${dir}/requests.ndjson`;
  const server = await startSpecServer({ protocol, dir: `${dir}/store`, token: TOKEN, log });
  t.after(() => server.close());
  const requests = (): { method: string; path: string; status: number }[] => {
    try {
      return require_text(log)
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { method: string; path: string; status: number });
    } catch {
      return [];
    }
  };
  return { server, requests };
}

import { readFileSync } from 'node:fs';
const require_text = (path: string): string => readFileSync(path, 'utf8');

/** A raw upstream for faults. */
async function rawServer(
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

test("spec server: the status codes of nx's OpenAPI spec (and the v8 routes)", async (t) => {
  const { server } = await spec(t, 'nx-v1');
  const auth = { authorization: `Bearer ${TOKEN}` };
  const url = `${server.url}/v1/cache/123`;
  assert.equal((await request(url)).status, 401, 'GET without the token');
  assert.equal((await request(url, { headers: auth })).status, 404, 'GET of an absent record');
  assert.equal(
    (
      await request(url, {
        method: 'PUT',
        headers: { ...auth, 'transfer-encoding': 'chunked' },
        body: Readable.from([Buffer.from('x')]),
      })
    ).status,
    400,
    'PUT without Content-Length',
  );
  assert.equal(
    (await request(url, { method: 'PUT', headers: auth, body: Buffer.from('tar') })).status,
    200,
    'PUT stored',
  );
  assert.equal(
    (await request(url, { method: 'PUT', headers: auth, body: Buffer.from('tar') })).status,
    409,
    'PUT over an existing record',
  );
  const got = await request(url, { headers: auth });
  assert.equal(got.status, 200);
  assert.equal(got.body.toString(), 'tar');
  assert.equal(got.headers['content-type'], 'application/octet-stream');
  const readOnly = await startSpecServer({
    protocol: 'nx-v1',
    dir: `${tempWorkspace(t)}/s`,
    token: TOKEN,
    readOnlyToken: 'ro',
  });
  t.after(() => readOnly.close());
  assert.equal(
    (
      await request(`${readOnly.url}/v1/cache/9`, {
        method: 'PUT',
        headers: { authorization: 'Bearer ro' },
        body: Buffer.from('x'),
      })
    ).status,
    403,
    'read-only token',
  );
  const v8 = await spec(t, 'v8');
  assert.equal(
    (await request(`${v8.server.url}/v8/artifacts/abc`, { method: 'PUT', headers: auth, body: Buffer.from('y') }))
      .status,
    202,
  );
  assert.equal((await request(`${v8.server.url}/v8/artifacts/abc`, { headers: auth })).body.toString(), 'y');
});

test('forwards as sent: auth, query, x-artifact headers both ways, status, base path', async (t) => {
  const seen: { url: string; auth: string | undefined; tag: string | undefined }[] = [];
  const upstream = await rawServer(t, (req, res) => {
    seen.push({
      url: req.url ?? '',
      auth: req.headers['authorization'],
      tag: req.headers['x-artifact-tag'] as string | undefined,
    });
    req.resume();
    req.on('end', () => {
      res.writeHead(req.method === 'PUT' ? 202 : 200, { 'x-artifact-tag': 'sig-back', 'x-artifact-duration': '42' });
      res.end(req.method === 'PUT' ? '{"urls":[]}' : 'artifact-bytes');
    });
  });
  const { gate } = await gateFor(t, 'turbo-v8', `${upstream.url}/api`);
  const put = await request(`${gate.url}/v8/artifacts/abc123?slug=acme&teamId=team_1`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'x-artifact-tag': 'sig-out',
      'content-type': 'application/octet-stream',
    },
    body: Buffer.from('tarball'),
  });
  assert.equal(put.status, 202);
  const get = await request(`${gate.url}/v8/artifacts/abc123?slug=acme`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(get.status, 200);
  assert.equal(get.body.toString(), 'artifact-bytes');
  assert.equal(get.headers['x-artifact-tag'], 'sig-back');
  assert.equal(get.headers['x-artifact-duration'], '42');
  assert.deepEqual(seen[0], {
    url: '/api/v8/artifacts/abc123?slug=acme&teamId=team_1',
    auth: `Bearer ${TOKEN}`,
    tag: 'sig-out',
  });
  assert.equal(seen[1]?.url, '/api/v8/artifacts/abc123?slug=acme');
  assert.deepEqual(gate.stats().passed, { restore: 1, save: 1, other: 0 });
});

test('refusals: turbo PUT 403, nx PUT 409, GETs 404; the body is drained, the upstream never asked', async (t) => {
  for (const [protocol, prefix, putStatus] of [
    ['turbo-v8', '/v8/artifacts/', 403],
    ['nx-v1', '/v1/cache/', 409],
    ['pnpm-pipeline-v8', '/v8/artifacts/', 403],
  ] as const) {
    const { server, requests } = await spec(t, protocol === 'nx-v1' ? 'nx-v1' : 'v8');
    const { gate, events } = await gateFor(t, protocol, server.url, () => 'refuse');
    const body = Buffer.alloc(3 * 1024 * 1024, 7);
    const put = await request(`${gate.url}${prefix}42?slug=s3cret-slug`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-length': body.length },
      body,
    });
    assert.equal(put.status, putStatus, protocol);
    assert.equal(
      (await request(`${gate.url}${prefix}42`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
      404,
      protocol,
    );
    assert.deepEqual(requests(), [], `${protocol}: the upstream saw nothing`);
    assert.equal(gate.stats().refused.save + gate.stats().refusedParts, 1);
    assert.equal(gate.stats().refused.restore, 1);
    const recorded = JSON.stringify([events, gate.stats()]);
    assert.ok(!recorded.includes(TOKEN) && !recorded.includes('s3cret-slug'), 'no token or query in events and stats');
  }
});

test("a decision that throws refuses and is reported; a path not the protocol's, a foreign Host or an absolute-form target is 404 and never forwarded", async (t) => {
  const { server, requests } = await spec(t, 'nx-v1');
  const { gate, events } = await gateFor(t, 'nx-v1', server.url, () => {
    throw new Error('EACCES on pnpm-lock.yaml');
  });
  const put = await request(`${gate.url}/v1/cache/7`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}` },
    body: Buffer.from('x'),
  });
  assert.equal(put.status, 409);
  assert.equal(gate.stats().decisionFailures, 1);
  assert.ok(events.some((event) => event.type === 'decision-failed'));
  for (const path of ['/v2/user', '/v1/cache/../../etc/passwd', '/v1/cache/%2e%2e', '/v1/cache/', '/v8/artifacts/1']) {
    assert.equal(
      (await request(`${gate.url}${path}?token=${TOKEN}`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
      404,
      path,
    );
  }
  assert.equal(
    (
      await request(`${gate.url}/v1/cache/8`, {
        headers: { host: 'evil.example:80', authorization: `Bearer ${TOKEN}` },
      })
    ).status,
    404,
    'foreign Host',
  );
  const absolute = await new Promise<number>((resolve, reject) => {
    http
      .request({ host: '127.0.0.1', port: gate.port, path: `${server.url}/v1/cache/8`, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject)
      .end();
  });
  assert.equal(absolute, 404, 'absolute-form target');
  assert.deepEqual(requests(), [], 'nothing reached the upstream');
  assert.ok(!JSON.stringify(events).includes(TOKEN), 'query strings are not recorded');
});

test('upstream faults pass through: refused connection and reset mid-body reset the client, 5xx stays 5xx', async (t) => {
  {
    // Refused: nothing listens there.
    const dead = await rawServer(t, () => undefined);
    const port = new URL(dead.url).port;
    const { gate } = await gateFor(t, 'turbo-v8', 'http://127.0.0.1:9');
    await assert.rejects(
      request(`${gate.url}/v8/artifacts/abc?slug=x`),
      (error: { code?: string }) => error.code === 'ECONNRESET' || error.code === 'EPIPE',
    );
    assert.equal(gate.stats().upstreamFailures, 1);
    assert.ok(port !== '9');
  }
  {
    const failing = await rawServer(t, (req, res) => {
      req.resume();
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('busy');
    });
    const { gate } = await gateFor(t, 'nx-v1', failing.url);
    const reply = await request(`${gate.url}/v1/cache/5`, { method: 'PUT', body: Buffer.from('x') });
    assert.equal(reply.status, 503);
    assert.equal(reply.body.toString(), 'busy');
  }
  {
    const resetting = await rawServer(t, (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-length': 1_000_000 });
      res.write(Buffer.alloc(64 * 1024));
      setTimeout(() => req.socket.destroy(), 50);
    });
    const { gate } = await gateFor(t, 'turbo-v8', resetting.url);
    await assert.rejects(request(`${gate.url}/v8/artifacts/abc`));
    assert.equal(gate.stats().upstreamFailures, 1);
  }
});

test("a slow upstream: the client's timeout decides, the gate drops the upstream request and nothing hangs", async (t) => {
  const slow = await rawServer(t, (req) => {
    req.resume();
  });
  const { gate } = await gateFor(t, 'nx-v1', slow.url);
  await assert.rejects(
    request(`${gate.url}/v1/cache/1`, { timeoutMs: 300 }),
    (error: { code?: string }) => error.code === 'ETIMEDOUT',
  );
  // The gate's own inactivity limit frees a client that has no timeout (client sees a reset).
  const { gate: strict } = await gateFor(t, 'nx-v1', slow.url, () => 'pass', 200);
  await assert.rejects(request(`${strict.url}/v1/cache/2`));
  await gate.close();
  await strict.close();
});

test('a client that disconnects mid-upload: the upstream request is aborted and nothing is stored', async (t) => {
  const { server } = await spec(t, 'nx-v1');
  const { gate } = await gateFor(t, 'nx-v1', server.url);
  let sent = 0;
  const body = new Readable({
    read() {
      sent += 65536;
      this.push(Buffer.alloc(65536));
    },
  });
  const req = http.request(`${gate.url}/v1/cache/99`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-length': 50 * 1024 * 1024 },
    agent: false,
  });
  req.on('error', () => undefined);
  body.pipe(req);
  while (sent < 4 * 1024 * 1024) await new Promise((resolve) => setTimeout(resolve, 10));
  body.unpipe(req);
  body.destroy();
  req.destroy();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const get = await request(`${gate.url}/v1/cache/99`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(get.status, 404, 'the half upload was not stored');
  // Same for a refused upload: the drain ends quietly.
  const { gate: refusing } = await gateFor(t, 'nx-v1', server.url, () => 'refuse');
  const half = http.request(`${refusing.url}/v1/cache/98`, {
    method: 'PUT',
    headers: { 'content-length': 10 * 1024 * 1024 },
    agent: false,
  });
  half.on('error', () => undefined);
  half.write(Buffer.alloc(1024 * 1024));
  await new Promise((resolve) => setTimeout(resolve, 50));
  half.destroy();
  assert.equal((await request(`${refusing.url}/v1/cache/98`)).status, 404);
});

test('a 200 MB artifact streams through both ways, byte for byte, without the gate holding it', async (t) => {
  const { server } = await spec(t, 'v8');
  const { gate } = await gateFor(t, 'turbo-v8', server.url);
  const size = 200 * 1024 * 1024;
  const sent = createHash('sha256');
  const body = artifactBody(size, (piece) => sent.update(piece));
  const before = process.memoryUsage().rss;
  const put = await request(`${gate.url}/v8/artifacts/big?slug=x`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-length': size },
    body,
  });
  assert.equal(put.status, 202);
  const got = createHash('sha256');
  let received = 0;
  await new Promise<void>((resolve, reject) => {
    http
      .get(
        `${gate.url}/v8/artifacts/big?slug=x`,
        { headers: { authorization: `Bearer ${TOKEN}` }, agent: false },
        (res) => {
          res.on('data', (piece: Buffer) => {
            received += piece.length;
            got.update(piece);
          });
          res.on('end', resolve);
          res.on('error', reject);
        },
      )
      .on('error', reject);
  });
  assert.equal(received, size);
  assert.equal(got.digest('hex'), sent.digest('hex'));
  // Generous (this process also runs the client and the server): a buffered copy would be 200 MB or more.
  assert.ok(
    process.memoryUsage().rss - before < 150 * 1024 * 1024,
    `rss grew by ${Math.round((process.memoryUsage().rss - before) / 1048576)} MB`,
  );
});

test("turbo's preflight before the move: forwarded, the upstream's Location pointed back at the gate (a foreign one dropped); an upstream without one is answered by the gate", async (t) => {
  const seen: string[] = [];
  let location = '';
  let status = 200;
  const upstream = await rawServer(t, (req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers['access-control-request-method'] ?? ''}`);
    req.resume();
    req.on('end', () => {
      res.writeHead(status, {
        ...(location === '' ? {} : { location }),
        'access-control-allow-headers': 'Authorization, Content-Type',
      });
      res.end();
    });
  });
  const { gate } = await gateFor(t, 'turbo-v8', `${upstream.url}/api`);
  const preflight = (path: string, method = 'PUT') =>
    request(`${gate.url}${path}`, {
      method: 'OPTIONS',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'access-control-request-method': method,
        'access-control-request-headers': 'Authorization, Content-Type, User-Agent',
      },
    });
  location = `${upstream.url}/api/v8/artifacts/abc?slug=acme&sig=9`;
  let answer = await preflight('/v8/artifacts/abc?slug=acme');
  assert.equal(answer.status, 200);
  assert.equal(
    answer.headers['location'],
    `${gate.url}/v8/artifacts/abc?slug=acme&sig=9`,
    'the same path and query, on the gate',
  );
  assert.equal(
    answer.headers['access-control-allow-headers'],
    'Authorization, Content-Type',
    "the upstream's own answer otherwise",
  );
  location = 'https://storage.example/bucket/abc?X-Amz-Signature=1';
  answer = await preflight('/v8/artifacts/abc?slug=acme', 'GET');
  assert.equal(answer.headers['location'], undefined, 'a foreign Location is dropped: turbo comes back to the gate');
  location = '';
  status = 404;
  answer = await preflight('/v8/artifacts/abc');
  assert.equal(answer.status, 200, 'the gate answers for an upstream that has no preflight');
  assert.equal(answer.headers['access-control-allow-headers'], 'Authorization, Content-Type, User-Agent');
  assert.equal(answer.headers['location'], undefined);
  // A preflight announcing a method the protocol has no reading for passes before the move, as before.
  status = 200;
  answer = await preflight('/v8/artifacts/abc', 'DELETE');
  assert.equal(answer.status, 200);
  assert.deepEqual(seen, [
    'OPTIONS /api/v8/artifacts/abc?slug=acme PUT',
    'OPTIONS /api/v8/artifacts/abc?slug=acme GET',
    'OPTIONS /api/v8/artifacts/abc PUT',
    'OPTIONS /api/v8/artifacts/abc DELETE',
  ]);
  assert.equal(gate.stats().passed.other, 4);
});

test('after the move: a preflight is answered by the gate (the upstream never asked) and the upload it announces refused; one the gate does not understand is refused; nx has no preflight', async (t) => {
  const { server, requests } = await spec(t, 'v8');
  let decision: Decision = 'pass';
  const { gate, events } = await gateFor(t, 'turbo-v8', server.url, () => decision);
  const auth = { authorization: `Bearer ${TOKEN}` };
  decision = 'refuse';
  const preflight = await request(`${gate.url}/v8/artifacts/abc?slug=acme`, {
    method: 'OPTIONS',
    headers: {
      ...auth,
      'access-control-request-method': 'PUT',
      'access-control-request-headers': 'Authorization, Content-Type',
    },
  });
  assert.equal(preflight.status, 200);
  assert.equal(preflight.headers['location'], undefined, 'no Location: turbo PUTs to the gate');
  assert.equal(preflight.headers['access-control-allow-headers'], 'Authorization, Content-Type');
  const put = await request(`${gate.url}/v8/artifacts/abc?slug=acme`, {
    method: 'PUT',
    headers: auth,
    body: Buffer.from('stale'),
  });
  assert.equal(put.status, 403);
  for (const announced of ['DELETE', 'PATCH', '']) {
    const unknown = await request(`${gate.url}/v8/artifacts/abc`, {
      method: 'OPTIONS',
      headers: { ...auth, ...(announced === '' ? {} : { 'access-control-request-method': announced }) },
    });
    assert.equal(unknown.status, 403, `OPTIONS announcing ${announced || 'nothing'}`);
  }
  // The events POST is understood (no artifact): it still passes after the move.
  const eventsPreflight = await request(`${gate.url}/v8/artifacts/events`, {
    method: 'OPTIONS',
    headers: { ...auth, 'access-control-request-method': 'POST' },
  });
  assert.equal(eventsPreflight.status, 200);
  assert.deepEqual(
    requests().map((entry) => `${entry.method} ${entry.path}`),
    ['OPTIONS /v8/artifacts/events'],
    'only the understood, artifact-free request reached the upstream',
  );
  assert.equal(gate.stats().refused.save, 1);
  assert.equal(gate.stats().notForwarded, 3);
  assert.ok(!JSON.stringify(events).includes(TOKEN));
  // nx's API has no preflight: an OPTIONS is a path it does not serve, never forwarded.
  const nx = await spec(t, 'nx-v1');
  const nxGate = await gateFor(t, 'nx-v1', nx.server.url);
  assert.equal(
    (
      await request(`${nxGate.gate.url}/v1/cache/7`, {
        method: 'OPTIONS',
        headers: { ...auth, 'access-control-request-method': 'PUT' },
      })
    ).status,
    404,
  );
  assert.deepEqual(nx.requests(), []);
});
