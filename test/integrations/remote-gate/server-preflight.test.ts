// turbo's preflight through the gate in process, against a raw upstream and the spec server on loopback: before
// the move, forwarded with the Location pointed back at the gate (a foreign one dropped, answered by the gate when
// the upstream has none); once moved, refused or answered without the upstream, and the planted token never in
// the events; nx's API has no preflight. The Location rewrite itself: preflight.test.ts; the rig:
// test/helpers/remote-gate-rig.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Decision } from '../../../lib/integrations/remote-gate/index.js';
import { gateFor, rawServer, request, spec, TOKEN } from '../../helpers/remote-gate-rig.js';

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
