import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { inProcessPnpmMajor, pnpmArgv } from '../../../lib/integrations/pnpmfile/command.js';
import { PACKAGE_ROOT } from '../../helpers/hooks.js';

test("pnpmArgv reads this process's argv when it has one (pnpm 10), else the parent's command line (pnpm 12 helpers)", () => {
  assert.deepEqual(pnpmArgv(['node', '/x/pnpm.cjs', '--filter', 'b', 'add']), ['--filter', 'b', 'add']);
  // A helper process has only [node]: its parent's /proc cmdline is read (here: this test process itself).
  // The cmdline holds the script as typed; Node 22+ resolves process.argv[1] to an absolute path.
  const own = pnpmArgv(['node'], process.pid) ?? [];
  const script = process.execArgv.length;
  assert.deepEqual(own.slice(0, script), process.execArgv);
  assert.equal(resolve(own[script] ?? ''), process.argv[1]);
  assert.deepEqual(own.slice(script + 1), process.argv.slice(2));
  assert.equal(pnpmArgv(['node'], 2 ** 30), undefined);
});

test('inProcessPnpmMajor reads the version of the pnpm whose script runs this process', () => {
  assert.equal(inProcessPnpmMajor(['node', join(PACKAGE_ROOT, 'node_modules', 'pnpm10', 'bin', 'pnpm.cjs')]), 10);
  assert.equal(inProcessPnpmMajor(['node']), undefined);
  assert.equal(inProcessPnpmMajor(['node', '/nonexistent/bin/pnpm.cjs']), undefined);
});
