import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { inProcessPnpmMajor, pnpmArgv } from '../../../lib/integrations/pnpmfile/command.js';
import { PACKAGE_ROOT } from '../../helpers/hooks.js';

test("pnpmArgv reads this process's argv when it has one (pnpm 10), else the parent's command line (pnpm 12 helpers)", () => {
  assert.deepEqual(pnpmArgv(['node', '/x/pnpm.cjs', '--filter', 'b', 'add']), ['--filter', 'b', 'add']);
  // A helper process has only [node]: its parent's /proc cmdline is read (here: this test process itself).
  const own = pnpmArgv(['node'], process.pid);
  assert.deepEqual(own, [...process.execArgv, ...process.argv.slice(1)]);
  assert.equal(pnpmArgv(['node'], 2 ** 30), undefined);
});

test('inProcessPnpmMajor reads the version of the pnpm whose script runs this process', () => {
  assert.equal(inProcessPnpmMajor(['node', join(PACKAGE_ROOT, 'node_modules', 'pnpm10', 'bin', 'pnpm.cjs')]), 10);
  assert.equal(inProcessPnpmMajor(['node']), undefined);
  assert.equal(inProcessPnpmMajor(['node', '/nonexistent/bin/pnpm.cjs']), undefined);
});
