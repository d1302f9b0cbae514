// When the root-script hook writes the per-project slice files: the root postinstall after npm install / ci,
// and after any pnpm install (pnpm 12 runs the root postinstall only after an install that wrote the
// lockfile and node_modules, and sets no npm_command: measured, lib/integrations/npm/hook.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writesSliceFilesNow } from '../../../lib/integrations/npm/hook.js';

test('writesSliceFilesNow: postinstall of npm install/ci and of any pnpm; never preinstall, rebuild or another manager', () => {
  const pnpm12 = 'pnpm/12.4.2 npm/? node/? linux x64';
  assert.equal(writesSliceFilesNow({ npm_lifecycle_event: 'postinstall', npm_command: 'install' }), true);
  // prepare: what init --npm-scripts writes now (npm records no hasInstallScript for it).
  assert.equal(writesSliceFilesNow({ npm_lifecycle_event: 'prepare', npm_command: 'install' }), true);
  assert.equal(writesSliceFilesNow({ npm_lifecycle_event: 'prepare', npm_command: 'pack' }), false);
  assert.equal(writesSliceFilesNow({ npm_lifecycle_event: 'postinstall', npm_command: 'ci' }), true);
  assert.equal(writesSliceFilesNow({ npm_lifecycle_event: 'postinstall', npm_config_user_agent: pnpm12 }), true);
  assert.equal(writesSliceFilesNow({ npm_lifecycle_event: 'preinstall', npm_config_user_agent: pnpm12 }), false);
  assert.equal(writesSliceFilesNow({ npm_lifecycle_event: 'postinstall', npm_command: 'rebuild' }), false);
  assert.equal(
    writesSliceFilesNow({ npm_lifecycle_event: 'postinstall', npm_config_user_agent: 'yarn/4.18.1 npm/? node/v22' }),
    false,
  );
  assert.equal(writesSliceFilesNow({}), false);
});

test('writesSliceFilesNow: the root prepare bun and yarn 1 run after their installs (measured: lib/integrations/npm/hook.ts)', () => {
  const bun = 'bun/1.4.5 npm/? node/v26.3.0 linux x64';
  const yarn1 = 'yarn/1.22.22 npm/? node/v20.20.2 linux x64';
  assert.equal(writesSliceFilesNow({ npm_lifecycle_event: 'prepare', npm_config_user_agent: bun }), true);
  assert.equal(writesSliceFilesNow({ npm_lifecycle_event: 'prepare', npm_config_user_agent: yarn1 }), true);
  assert.equal(writesSliceFilesNow({ npm_lifecycle_event: 'preinstall', npm_config_user_agent: bun }), false);
  assert.equal(writesSliceFilesNow({ npm_lifecycle_event: 'preinstall', npm_config_user_agent: yarn1 }), false);
});
