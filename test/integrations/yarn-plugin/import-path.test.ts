// The `yarn plugin import` line init and doctor print: lockguard's own plugin file, relative to the workspace
// when inside it (PnP: the unplugged folder), absolute outside, an unplug first when it sits in a zip.
// The real yarn 4.18.1 runs the printed line in test/e2e/yarn-plugin-pnp.test.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { yarnPluginImportLine } from '../../../lib/integrations/yarn-plugin/import-path.js';

test('yarnPluginImportLine: unplugged and node_modules paths relative, outside absolute, a zip says unplug', () => {
  const unplugged = '/w/.yarn/unplugged/lockguard-npm-0.1.0-abc/node_modules/lockguard/dist/yarn-plugin.cjs';
  assert.equal(
    yarnPluginImportLine('/w', unplugged),
    'yarn plugin import ./.yarn/unplugged/lockguard-npm-0.1.0-abc/node_modules/lockguard/dist/yarn-plugin.cjs',
  );
  assert.equal(
    yarnPluginImportLine('/w', '/w/node_modules/lockguard/dist/yarn-plugin.cjs'),
    'yarn plugin import ./node_modules/lockguard/dist/yarn-plugin.cjs',
  );
  assert.equal(
    yarnPluginImportLine('/w', '/home/u/.npm/_npx/1/node_modules/lockguard/dist/yarn-plugin.cjs'),
    'yarn plugin import /home/u/.npm/_npx/1/node_modules/lockguard/dist/yarn-plugin.cjs',
  );
  assert.equal(
    yarnPluginImportLine('/w', '/my files/lockguard/dist/yarn-plugin.cjs'),
    'yarn plugin import "/my files/lockguard/dist/yarn-plugin.cjs"',
  );
  const zipped = yarnPluginImportLine(
    '/w',
    '/w/.yarn/cache/lockguard-npm-0.1.0-abc.zip/node_modules/lockguard/dist/yarn-plugin.cjs',
  );
  assert.match(zipped, /^yarn unplug lockguard && yarn plugin import /);
  assert.match(zipped, /lockguard\/yarn-plugin/);
});
