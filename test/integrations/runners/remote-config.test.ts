// Is a remote cache configured? Only then does `lockguard run --remote auto` need a plan and a switch.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { remoteConfigured } from '../../../lib/integrations/runners/remote-config.js';
import { tempWorkspace } from '../../helpers/workspace.js';

test('turbo: env tokens, the repo link, the user token; remoteCache.enabled false wins', (t) => {
  const bare = tempWorkspace(t, { 'turbo.json': '{}' });
  const home = tempWorkspace(t, {});
  const env = { HOME: home, XDG_CONFIG_HOME: `${home}/.config` };
  assert.equal(remoteConfigured('turbo', bare, env), false);
  assert.equal(remoteConfigured('turbo', bare, { ...env, TURBO_TOKEN: 'x' }), true);
  const linked = tempWorkspace(t, { 'turbo.json': '{}', '.turbo': { 'config.json': '{"teamId":"team_1"}' } });
  assert.equal(remoteConfigured('turbo', linked, env), true);
  const user = tempWorkspace(t, { '.config': { turborepo: { 'config.json': '{"token":"t"}' } } });
  assert.equal(remoteConfigured('turbo', bare, { HOME: user, XDG_CONFIG_HOME: `${user}/.config` }), true);
  const off = tempWorkspace(t, { 'turbo.json': '{"remoteCache":{"enabled":false}}' });
  assert.equal(remoteConfigured('turbo', off, { ...env, TURBO_TOKEN: 'x' }), false);
});

test('nx: cloud ids and tokens unless NX_NO_CLOUD, remote-cache packages, an unreadable nx.json counts', (t) => {
  const bare = tempWorkspace(t, { 'nx.json': '{"targetDefaults":{}}' });
  assert.equal(remoteConfigured('nx', bare, {}), false);
  assert.equal(remoteConfigured('nx', bare, { NX_CLOUD_ACCESS_TOKEN: 'x' }), true);
  assert.equal(remoteConfigured('nx', bare, { NX_CLOUD_ACCESS_TOKEN: 'x', NX_NO_CLOUD: 'true' }), false);
  const cloud = tempWorkspace(t, { 'nx.json': '{"nxCloudId":"abc"}' });
  assert.equal(remoteConfigured('nx', cloud, {}), true);
  const s3 = tempWorkspace(t, { 'nx.json': '{"plugins":["@nx/s3-cache"]}' });
  assert.equal(remoteConfigured('nx', s3, { NX_NO_CLOUD: 'true' }), true);
  const broken = tempWorkspace(t, { 'nx.json': '{not json' });
  assert.equal(remoteConfigured('nx', broken, {}), true);
  assert.equal(remoteConfigured('pnpm-pipeline', bare, { TURBO_TOKEN: 'x' }), false);
  assert.equal(remoteConfigured('none', bare, {}), false);
});
