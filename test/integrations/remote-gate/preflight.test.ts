// The preflight's Location rewrite: the same path and query on the gate for a Location on the upstream
// (absolute or relative, under its base path); dropped for anything the gate cannot follow.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gateLocation, ownPreflightHeaders } from '../../../lib/integrations/remote-gate/preflight.js';
import { upstreamOf } from '../../helpers/remote-gate-rig.js';

const GATE = 'http://127.0.0.1:4111';
const ASKED = '/v8/artifacts/abc';
const known = (path: string): boolean => /^\/v8\/artifacts\/[a-z0-9]+$/.test(path);

test('a Location on the upstream is pointed at the gate, path and query kept, the base path taken off', () => {
  const plain = upstreamOf('http://cache.example:8080');
  assert.equal(
    gateLocation('http://cache.example:8080/v8/artifacts/abc?slug=acme&sig=1', plain, ASKED, GATE, known),
    `${GATE}/v8/artifacts/abc?slug=acme&sig=1`,
  );
  assert.equal(
    gateLocation('/v8/artifacts/def?slug=acme', plain, ASKED, GATE, known),
    `${GATE}/v8/artifacts/def?slug=acme`,
    'relative to the upstream',
  );
  const based = upstreamOf('https://cache.example/api');
  assert.equal(
    gateLocation('https://cache.example/api/v8/artifacts/abc?teamId=t', based, ASKED, GATE, known),
    `${GATE}/v8/artifacts/abc?teamId=t`,
  );
  assert.equal(
    gateLocation('https://cache.example:443/api/v8/artifacts/abc', based, ASKED, GATE, known),
    `${GATE}/v8/artifacts/abc`,
    'the default port spelled out',
  );
  assert.equal(gateLocation('/api/v8/artifacts/abc', based, ASKED, GATE, known), `${GATE}/v8/artifacts/abc`);
  assert.equal(
    gateLocation('def?x=1', based, ASKED, GATE, known),
    `${GATE}/v8/artifacts/def?x=1`,
    'relative to the path asked',
  );
  assert.equal(
    gateLocation('v8/artifacts/abc', based, ASKED, GATE, known),
    undefined,
    'relative to the path asked: not a path the protocol serves',
  );
});

test('a Location the gate cannot follow is dropped (the client then comes back to the URL it asked)', () => {
  const based = upstreamOf('https://cache.example/api');
  for (const location of [
    'https://storage.example/api/v8/artifacts/abc?X-Amz-Signature=s',
    'http://cache.example/api/v8/artifacts/abc',
    'https://cache.example:8443/api/v8/artifacts/abc',
    'https://user:pass@cache.example/api/v8/artifacts/abc',
    'https://cache.example/other/v8/artifacts/abc',
    'https://cache.example/apiv8/artifacts/abc',
    'https://cache.example/api/v8/artifacts/../../admin',
    'https://cache.example/api/uploads/abc',
    '//storage.example/api/v8/artifacts/abc',
    'http://[::1',
  ]) {
    assert.equal(gateLocation(location, based, ASKED, GATE, known), undefined, location);
  }
});

test("the gate's own answer allows the headers asked for (header names only), and sends no Location", () => {
  const asked = 'Authorization, Content-Type, User-Agent, x-artifact-duration, x-artifact-tag';
  const headers = ownPreflightHeaders(asked);
  assert.equal(headers['access-control-allow-headers'], asked);
  assert.equal(headers['location'], undefined);
  assert.match(
    ownPreflightHeaders(['Authorization', 'User-Agent'])['access-control-allow-headers'] ?? '',
    /^Authorization, User-Agent$/,
  );
  assert.equal(
    ownPreflightHeaders('Authorization\u0000: x"<')['access-control-allow-headers'],
    'Authorization, Content-Type, User-Agent',
    'anything but names: the fixed list',
  );
  assert.equal(ownPreflightHeaders(undefined)['access-control-allow-headers'], '');
});
