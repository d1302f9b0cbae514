// Which remote each runner would reach, and whether the gate can stand in front of it.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { detectRemote, TURBO_DEFAULT_API } from '../../../lib/integrations/runners/remote-config.js';
import { pointRunnerAt } from '../../../lib/integrations/runners/remote-point.js';
import { tempWorkspace } from '../../helpers/workspace.js';

test('turbo: flags > env > .turbo/config.json > user config > turbo.json > the Vercel default; remoteCache.enabled false wins', (t) => {
  const bare = tempWorkspace(t, { 'turbo.json': '{}' });
  const home = tempWorkspace(t, {});
  const env = { HOME: home, XDG_CONFIG_HOME: `${home}/.config` };
  assert.deepEqual(detectRemote('turbo', bare, env), { state: 'none', runner: 'turbo' });
  assert.notEqual(detectRemote('turbo', bare, { ...env, TURBO_TOKEN: 'x' }).state, 'none');
  assert.deepEqual(detectRemote('turbo', bare, { ...env, TURBO_TOKEN: 'x', TURBO_TEAM: 't' }), {
    state: 'gateable',
    runner: 'turbo',
    protocol: 'turbo-v8',
    upstream: TURBO_DEFAULT_API,
    source: "turbo's default remote (Vercel)",
  });
  const linked = tempWorkspace(t, {
    'turbo.json': '{"remoteCache":{"apiUrl":"http://json.example"}}',
    '.turbo': { 'config.json': '{"teamId":"team_1","apiUrl":"http://local.example:3000"}' },
  });
  assert.equal(
    detectRemote('turbo', linked, env).state === 'gateable' &&
      (detectRemote('turbo', linked, env) as { upstream: string }).upstream,
    'http://local.example:3000',
  );
  assert.equal(
    (detectRemote('turbo', linked, { ...env, TURBO_API: 'http://env.example' }) as { upstream: string }).upstream,
    'http://env.example',
  );
  const flagged = detectRemote('turbo', linked, { ...env, TURBO_API: 'http://env.example' }, [
    'turbo',
    'run',
    'build',
    '--api=http://flag.example',
  ]);
  assert.deepEqual(flagged, {
    state: 'gateable',
    runner: 'turbo',
    protocol: 'turbo-v8',
    upstream: 'http://flag.example',
    source: '--api',
    apiFlag: true,
  });
  const jsonOnly = tempWorkspace(t, {
    'turbo.json': '{"remoteCache":{"apiUrl":"http://json.example","teamSlug":"t"}}',
  });
  assert.equal((detectRemote('turbo', jsonOnly, env) as { upstream: string }).upstream, 'http://json.example');
  const user = tempWorkspace(t, {
    '.config': { turborepo: { 'config.json': '{"token":"t","apiUrl":"http://user.example"}' } },
  });
  assert.equal(
    (detectRemote('turbo', bare, { HOME: user, XDG_CONFIG_HOME: `${user}/.config` }) as { upstream: string }).upstream,
    'http://user.example',
  );
  const off = tempWorkspace(t, { 'turbo.json': '{"remoteCache":{"enabled":false}}' });
  assert.equal(detectRemote('turbo', off, { ...env, TURBO_TOKEN: 'x' }).state, 'none');
});

test('turbo: an upstream the gate cannot reach is ungateable, and no value is echoed', (t) => {
  const root = tempWorkspace(t, { 'turbo.json': '{}' });
  const base = { HOME: root, TURBO_TOKEN: 'secret-token-value', TURBO_TEAM: 't' };
  const proxied = detectRemote('turbo', root, {
    ...base,
    TURBO_API: 'https://cache.example',
    HTTPS_PROXY: 'http://proxy:3128',
  });
  assert.equal(proxied.state, 'ungateable');
  assert.equal(
    detectRemote('turbo', root, {
      ...base,
      TURBO_API: 'https://cache.example',
      HTTPS_PROXY: 'http://proxy:3128',
      NO_PROXY: '.example',
    }).state,
    'gateable',
  );
  const creds = detectRemote('turbo', root, { ...base, TURBO_API: 'https://user:pw-secret@cache.example' });
  assert.equal(creds.state, 'ungateable');
  assert.ok(!JSON.stringify(creds).includes('pw-secret') && !JSON.stringify(creds).includes('secret-token-value'));
  assert.equal(detectRemote('turbo', root, { ...base, TURBO_API: 'ftp://cache.example' }).state, 'ungateable');
  const broken = tempWorkspace(t, { 'turbo.json': '{}', '.turbo': { 'config.json': '{nope' } });
  assert.equal(
    detectRemote('turbo', broken, { HOME: root }).state,
    'ungateable',
    'an unreadable link errs towards configured',
  );
});

test('nx: Nx Cloud and installed cache plugins are ungateable; the self-hosted server is gateable; skip means none', (t) => {
  const bare = tempWorkspace(t, { 'nx.json': '{"targetDefaults":{}}' });
  assert.equal(detectRemote('nx', bare, {}).state, 'none');
  assert.deepEqual(detectRemote('nx', bare, { NX_SELF_HOSTED_REMOTE_CACHE_SERVER: 'http://127.0.0.1:1/base' }), {
    state: 'gateable',
    runner: 'nx',
    protocol: 'nx-v1',
    upstream: 'http://127.0.0.1:1/base',
    source: 'NX_SELF_HOSTED_REMOTE_CACHE_SERVER',
  });
  assert.equal(
    detectRemote('nx', bare, { NX_SELF_HOSTED_REMOTE_CACHE_SERVER: 'http://x', NX_SKIP_REMOTE_CACHE: 'true' }).state,
    'none',
  );
  assert.equal(
    detectRemote('nx', bare, { NX_CLOUD_ACCESS_TOKEN: 'x', NX_SELF_HOSTED_REMOTE_CACHE_SERVER: 'http://x' }).state,
    'ungateable',
    'cloud wins',
  );
  assert.equal(detectRemote('nx', bare, { NX_CLOUD_ACCESS_TOKEN: 'x', NX_NO_CLOUD: 'true' }).state, 'none');
  const cloud = tempWorkspace(t, { 'nx.json': '{"nxCloudId":"abc"}' });
  assert.equal(detectRemote('nx', cloud, {}).state, 'ungateable');
  assert.equal(
    detectRemote('nx', tempWorkspace(t, { 'nx.json': '{"nxCloudId":"abc","neverConnectToCloud":true}' }), {}).state,
    'none',
  );
  const plugin = tempWorkspace(t, {
    'nx.json': '{}',
    'package.json': '{"name":"r"}',
    node_modules: {
      '@nx': { 's3-cache': { 'package.json': '{"name":"@nx/s3-cache","main":"index.js"}', 'index.js': '' } },
    },
  });
  const withPlugin = detectRemote('nx', plugin, { NX_SELF_HOSTED_REMOTE_CACHE_SERVER: 'http://x' });
  assert.equal(withPlugin.state, 'ungateable');
  assert.match((withPlugin as { why: string }).why, /@nx\/s3-cache/);
  const legacy = tempWorkspace(t, {
    'nx.json': '{"tasksRunnerOptions":{"default":{"runner":"nx-remotecache-custom"}}}',
  });
  assert.equal(detectRemote('nx', legacy, {}).state, 'ungateable');
  assert.equal(detectRemote('nx', tempWorkspace(t, { 'nx.json': '{not json' }), {}).state, 'ungateable');
});

test('pnpm pipeline: PNPM_REMOTE_CACHE_URL with trusted keys; gateable only without a credential for it', (t) => {
  const keyed = { PNPM_REMOTE_CACHE_URL: 'http://cache.example:8080/base', PNPM_REMOTE_CACHE_TRUSTED_KEYS: '{}' };
  const plain = tempWorkspace(t, {});
  assert.equal(
    detectRemote('pnpm-pipeline', plain, { PNPM_REMOTE_CACHE_URL: 'http://cache.example:8080/base', HOME: plain })
      .state,
    'none',
    'no trusted keys: pnpm keeps its remote off',
  );
  const found = detectRemote('pnpm-pipeline', plain, { ...keyed, HOME: plain });
  assert.equal(found.state, 'gateable');
  if (found.state !== 'gateable') return;
  assert.deepEqual(pointRunnerAt(found, 'http://127.0.0.1:4321', ['pnpm', 'pipeline']).env, {
    PNPM_REMOTE_CACHE_URL: 'http://127.0.0.1:4321',
  });
  // A token for the remote's address (project .npmrc, a parent path; or env): pnpm would not send it to the gate.
  const withToken = tempWorkspace(t, { '.npmrc': '//cache.example:8080/:_authToken=tok-from-npmrc\n' });
  const refused = detectRemote('pnpm-pipeline', withToken, { ...keyed, HOME: plain });
  assert.equal(refused.state, 'ungateable');
  assert.ok(!JSON.stringify(refused).includes('tok-from-npmrc'));
  assert.equal(
    detectRemote('pnpm-pipeline', plain, {
      ...keyed,
      HOME: plain,
      'pnpm_config_//cache.example:8080/base/:_authToken': 'x',
    }).state,
    'ungateable',
  );
  const userRc = tempWorkspace(t, { '.npmrc': '//cache.example/:_authToken=${TOKEN}\n' });
  assert.equal(
    detectRemote('pnpm-pipeline', plain, { ...keyed, PNPM_REMOTE_CACHE_URL: 'http://cache.example/base', HOME: userRc })
      .state,
    'ungateable',
    "the user's .npmrc, an env reference counts",
  );
  assert.equal(detectRemote('none', plain, {}).state, 'none');
});

test('pointing: turbo keeps token and team, rewrites its own --api; nx gets its server variable', (t) => {
  const root = tempWorkspace(t, { 'turbo.json': '{}' });
  const argv = ['turbo', 'run', 'build', '--api', 'http://a.example', '--', '--api', 'keep'];
  const turbo = detectRemote('turbo', root, { TURBO_TOKEN: 'x', HOME: root }, argv);
  assert.equal(turbo.state, 'gateable');
  if (turbo.state !== 'gateable') return;
  const pointed = pointRunnerAt(turbo, 'http://127.0.0.1:5', argv);
  assert.deepEqual(pointed.env, { TURBO_API: 'http://127.0.0.1:5' });
  assert.deepEqual(pointed.argv, ['turbo', 'run', 'build', '--api', 'http://127.0.0.1:5', '--', '--api', 'keep']);
  const nx = detectRemote('nx', tempWorkspace(t, { 'nx.json': '{}' }), {
    NX_SELF_HOSTED_REMOTE_CACHE_SERVER: 'http://n.example',
  });
  if (nx.state !== 'gateable') throw new Error('expected gateable');
  assert.deepEqual(pointRunnerAt(nx, 'http://127.0.0.1:6', ['nx']).env, {
    NX_SELF_HOSTED_REMOTE_CACHE_SERVER: 'http://127.0.0.1:6',
  });
});

test('nx cache plugins: found in an ancestor node_modules too; an @nx scope of other packages is none', (t) => {
  const server = { NX_SELF_HOSTED_REMOTE_CACHE_SERVER: 'http://127.0.0.1:1' };
  // A workspace whose @nx scope holds only nx's own packages: the server stays gateable.
  const others = tempWorkspace(t, {
    'nx.json': '{}',
    'package.json': '{"name":"r"}',
    node_modules: {
      '@nx': { js: { 'package.json': '{"name":"@nx/js"}' }, devkit: { 'package.json': '{"name":"@nx/devkit"}' } },
    },
  });
  assert.equal(detectRemote('nx', others, server).state, 'gateable');
  // A plugin installed one folder up (a hoisted monorepo root): nx resolves it, so it is ungateable.
  const outer = tempWorkspace(t, {
    node_modules: {
      '@nx': {
        'powerpack-gcs-cache': {
          'package.json': '{"name":"@nx/powerpack-gcs-cache","main":"index.js"}',
          'index.js': '',
        },
      },
    },
    app: { 'nx.json': '{}', 'package.json': '{"name":"app"}' },
  });
  const found = detectRemote('nx', join(outer, 'app'), server);
  assert.equal(found.state, 'ungateable');
  assert.match((found as { why: string }).why, /@nx\/powerpack-gcs-cache/);
  // A folder named like a plugin that does not resolve (no package.json, no index): not a plugin.
  const hollow = tempWorkspace(t, {
    'nx.json': '{}',
    'package.json': '{"name":"r"}',
    node_modules: { '@nx': { 's3-cache': {} } },
  });
  assert.equal(detectRemote('nx', hollow, server).state, 'gateable');
});
