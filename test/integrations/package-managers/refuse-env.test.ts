// refuseEnv: what a refusing run adds to its child's env, per package manager (the measured rows of the
// refuse matrices in lib/integrations/pnpmfile/README.md and lib/integrations/yarn-plugin/README.md); and
// lockguard's yarn plugin file is found from the module tree and the bundle.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { refuseEnv, yarnPluginPath, YARN_PLUGIN_FILE } from '../../../lib/integrations/package-managers/refuse-env.js';

test("yarn: immutable installs and the plugin, appended to the user's own YARN_PLUGINS", () => {
  assert.deepEqual(refuseEnv('yarn', {}, { yarnPlugin: '/p/yarn-plugin.cjs' }), {
    YARN_ENABLE_IMMUTABLE_INSTALLS: 'true',
    YARN_PLUGINS: '/p/yarn-plugin.cjs',
  });
  assert.deepEqual(
    refuseEnv('yarn', { YARN_PLUGINS: '/mine.cjs' }, { yarnPlugin: '/p/yarn-plugin.cjs' }).YARN_PLUGINS,
    '/mine.cjs;/p/yarn-plugin.cjs',
  );
  assert.deepEqual(
    refuseEnv('yarn', { YARN_PLUGINS: '/mine.cjs;/p/yarn-plugin.cjs' }, { yarnPlugin: '/p/yarn-plugin.cjs' })
      .YARN_PLUGINS,
    '/mine.cjs;/p/yarn-plugin.cjs',
    'a nested run does not add it twice',
  );
  assert.deepEqual(
    refuseEnv('yarn', {}, { yarnPlugin: undefined }),
    { YARN_ENABLE_IMMUTABLE_INSTALLS: 'true' },
    'no plugin file: immutability alone',
  );
});

test('bun and npm: nothing from the environment holds; pnpm: frozen lockfile and verify-deps=error, both spellings', () => {
  for (const manager of ['bun', 'npm'] as const) assert.deepEqual(refuseEnv(manager, {}), {});
  assert.deepEqual(refuseEnv('pnpm'), {
    pnpm_config_frozen_lockfile: 'true',
    pnpm_config_verify_deps_before_run: 'error',
    npm_config_frozen_lockfile: 'true',
    npm_config_verify_deps_before_run: 'error',
  });
});

test('the plugin file is found next to the CLI bundle and from the compiled module tree', () => {
  const dist = fileURLToPath(new URL('../../../', import.meta.url));
  assert.ok(existsSync(join(dist, YARN_PLUGIN_FILE)), 'npm run build writes dist/yarn-plugin.cjs');
  assert.equal(yarnPluginPath(join(dist, 'lockguard.cjs')), join(dist, YARN_PLUGIN_FILE));
  assert.equal(
    yarnPluginPath(join(dist, 'lib', 'integrations', 'package-managers', 'refuse-env.js')),
    join(dist, YARN_PLUGIN_FILE),
  );
  assert.equal(yarnPluginPath('/nonexistent/a/b/c.js'), undefined);
});
