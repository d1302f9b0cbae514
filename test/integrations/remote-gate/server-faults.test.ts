// The gate in process against fault servers on loopback (and the spec server): upstream faults passed on (a
// refused connection and a reset mid-body reset the client, a 5xx stays a 5xx), a slow upstream (the client's
// timeout or the gate's own inactivity limit decides, nothing hangs), clients that go away mid-upload (nothing
// stored), and a 200 MB artifact streamed both ways without the gate holding it. The rig:
// test/helpers/remote-gate-rig.ts.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { artifactBody } from '../../helpers/cache-servers.js';
import { gateFor, rawServer, request, spec, TOKEN } from '../../helpers/remote-gate-rig.js';

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
