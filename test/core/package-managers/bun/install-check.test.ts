// The bun pre-run check's readers, on hand-made inputs in bun's formats: hoisted install paths and store
// folder names. The real tool's files are checked end to end in test/e2e/yarn-bun.test.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  installPath,
  installsHere,
  keyNames,
  storeName,
} from '../../../../lib/core/package-managers/bun/install-check.js';

test('bun: keys are install paths (workspace names first), store folders name their package, os/cpu/libc decide what installs here', () => {
  const workspaces = new Map([
    ['b', 'packages/b'],
    ['@s/c', 'packages/c'],
  ]);
  assert.equal(installPath('dep', workspaces), 'node_modules/dep');
  assert.equal(installPath('x/dep', workspaces), 'node_modules/x/node_modules/dep');
  assert.equal(installPath('b/dep', workspaces), 'packages/b/node_modules/dep');
  assert.equal(installPath('@s/c/@t/u', workspaces), 'packages/c/node_modules/@t/u');
  assert.equal(installPath('@t/u/dep', workspaces), 'node_modules/@t/u/node_modules/dep');
  assert.deepEqual(keyNames('@s/c/dep/@t/u'), ['@s/c', 'dep', '@t/u']);
  assert.equal(storeName('dep@1.0.0'), 'dep');
  assert.equal(storeName('@sc+lib@..+..+vendor+sc-lib-1.0.0.tgz+fd88f3725640e3cc'), '@sc/lib');
  assert.equal(installsHere(undefined), true);
  assert.equal(installsHere({ os: process.platform }), true);
  assert.equal(installsHere({ os: ['definitely-not-this-os'] }), false);
  assert.equal(installsHere({ os: `!${process.platform}` }), false);
  assert.equal(installsHere({ cpu: ['any'] }), true);
  // libc, as bun.lock writes it for rollup's linux packages: only this machine's libc installs.
  const here = { os: process.platform, cpu: process.arch };
  assert.equal(
    installsHere({ ...here, libc: 'glibc' }, () => 'glibc'),
    true,
  );
  assert.equal(
    installsHere({ ...here, libc: 'musl' }, () => 'glibc'),
    false,
  );
  assert.equal(
    installsHere({ ...here, libc: ['musl'] }, () => 'musl'),
    true,
  );
});
