// The gate in process, against the spec server and raw upstreams on loopback: forwarding as the client sent it,
// refusals per protocol, paths it never forwards, and a planted token that never reaches events or stats; first,
// the spec server's own status codes (what the other tests stand on). Upstream faults, slow upstreams, clients
// that go away and the 200 MB stream: server-faults.test.ts; turbo's preflight: server-preflight.test.ts; the
// rig they share: test/helpers/remote-gate-rig.ts.

import assert from 'node:assert/strict';
import http from 'node:http';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { startSpecServer } from '../../helpers/spec-cache-server.js';
import { gateFor, rawServer, request, spec, TOKEN } from '../../helpers/remote-gate-rig.js';
import { tempWorkspace } from '../../helpers/workspace.js';

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

test("another process's requests (without the gate's per-run path) are 404, reach nobody and are never counted as this run's", async (t) => {
  for (const [protocol, prefix] of [
    ['turbo-v8', '/v8/artifacts/'],
    ['nx-v1', '/v1/cache/'],
  ] as const) {
    const { server, requests } = await spec(t, protocol === 'nx-v1' ? 'nx-v1' : 'v8');
    let decisions = 0;
    const { gate, events } = await gateFor(t, protocol, server.url, () => {
      decisions++;
      return 'refuse';
    });
    const url = new URL(gate.url);
    assert.match(url.pathname, /^\/lockguard-[0-9a-f]{32}$/, 'the URL the runner is given holds the per-run path');
    const origin = `http://127.0.0.1:${gate.port}`;
    const auth = { authorization: `Bearer ${TOKEN}` };
    // Another process on the machine knows the port (it is listening) but not the path.
    for (const path of [`${prefix}42`, `/lockguard-${'0'.repeat(32)}${prefix}42`, `${url.pathname}x${prefix}42`]) {
      const put = await request(`${origin}${path}`, { method: 'PUT', headers: auth, body: Buffer.from('x') });
      assert.equal(put.status, 404, path);
    }
    assert.equal((await request(`${origin}${prefix}42`, { headers: auth })).status, 404);
    assert.deepEqual(requests(), [], `${protocol}: nothing reached the upstream`);
    assert.equal(decisions, 0, 'no foreign request was decided');
    const stats = gate.stats();
    assert.deepEqual(
      [stats.refused, stats.refusedParts, stats.passed],
      [{ restore: 0, save: 0 }, 0, { restore: 0, save: 0, other: 0 }],
    );
    assert.equal(stats.foreign, 4);
    assert.deepEqual(events, []);
    // The run's own runner, with the path: decided and counted.
    const own = await request(`${gate.url}${prefix}43`, { method: 'PUT', headers: auth, body: Buffer.from('x') });
    assert.equal(own.status, protocol === 'nx-v1' ? 409 : 403);
    assert.equal(gate.stats().refused.save, 1);
  }
});
