// refuseEnv: what a refusing run adds to its child's env, per package manager (the measured rows of the
// README's refuse matrix); and lockguard's yarn plugin file is found from the module tree and the bundle.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { refuseEnv, yarnPluginPath, YARN_PLUGIN_FILE } from '../../../lib/integrations/package-managers/refuse-env.js';

test('yarn: immutable installs and the plugin, appended to the user\'s own YARN_PLUGINS', () => {
  assert.deepEqual(refuseEnv('yarn', {}, { yarnPlugin: '/p/yarn-plugin.cjs' }), { YARN_ENABLE_IMMUTABLE_INSTALLS: 'true', YARN_PLUGINS: '/p/yarn-plugin.cjs' });
  assert.deepEqual(refuseEnv('yarn', { YARN_PLUGINS: '/mine.cjs' }, { yarnPlugin: '/p/yarn-plugin.cjs' }).YARN_PLUGINS, '/mine.cjs;/p/yarn-plugin.cjs');
  assert.deepEqual(refuseEnv('yarn', { YARN_PLUGINS: '/mine.cjs;/p/yarn-plugin.cjs' }, { yarnPlugin: '/p/yarn-plugin.cjs' }).YARN_PLUGINS, '/mine.cjs;/p/yarn-plugin.cjs', 'a nested run does not add it twice');
  assert.deepEqual(refuseEnv('yarn', {}, { yarnPlugin: undefined }), { YARN_ENABLE_IMMUTABLE_INSTALLS: 'true' }, 'no plugin file: immutability alone');
});

test('bun, npm and pnpm: nothing from the environment holds (pnpm refuses through its pnpmfile)', () => {
  for (const manager of ['bun', 'npm', 'pnpm'] as const) assert.deepEqual(refuseEnv(manager, {}), {});
});

test('the plugin file is found next to the CLI bundle and from the compiled module tree', () => {
  const dist = fileURLToPath(new URL('../../../', import.meta.url));
  assert.ok(existsSync(join(dist, YARN_PLUGIN_FILE)), 'npm run build writes dist/yarn-plugin.cjs');
  assert.equal(yarnPluginPath(join(dist, 'lockguard.cjs')), join(dist, YARN_PLUGIN_FILE));
  assert.equal(yarnPluginPath(join(dist, 'lib', 'integrations', 'package-managers', 'refuse-env.js')), join(dist, YARN_PLUGIN_FILE));
  assert.equal(yarnPluginPath('/nonexistent/a/b/c.js'), undefined);
});
