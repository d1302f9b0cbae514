import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { inProcessPnpmMajor, parsePnpmArgs, pnpmArgv, writesLockfile } from '../../../lib/integrations/pnpmfile/command.js';
import { PACKAGE_ROOT } from '../../helpers/hooks.js';

test('parsePnpmArgs names the command past global options and their values', () => {
  assert.deepEqual(parsePnpmArgs(['--filter', 'b', 'add', 'dep-y']), { name: 'add', args: ['dep-y'] });
  assert.deepEqual(parsePnpmArgs(['-F', 'add', 'run', 'build']), { name: 'run', args: ['build'] });
  assert.deepEqual(parsePnpmArgs(['-C', 'sub', '-r', 'install']), { name: 'install', args: [] });
  assert.deepEqual(parsePnpmArgs(['--filter=b', 'update']), { name: 'update', args: [] });
  assert.deepEqual(parsePnpmArgs(['recursive', 'add', 'x']), { name: 'add', args: ['x'] });
  assert.deepEqual(parsePnpmArgs(['exec', '--', 'pnpm', 'add']), { name: 'exec', args: [] });
  assert.equal(parsePnpmArgs(['--version']), undefined);
  assert.equal(parsePnpmArgs([]), undefined);
});

test('writesLockfile: add/update/remove and install <pkg> do; install, run and exec do not', () => {
  for (const argv of [['add', 'x'], ['up'], ['remove', 'x'], ['dedupe'], ['install', 'x'], ['i', 'x'], ['--filter', 'b', 'add', 'x']]) {
    const command = parsePnpmArgs(argv);
    assert.ok(command !== undefined && writesLockfile(command), argv.join(' '));
  }
  for (const argv of [['install'], ['i', '--frozen-lockfile'], ['run', 'add'], ['exec', 'true'], ['--filter', 'add', 'run', 'build'], ['build']]) {
    const command = parsePnpmArgs(argv);
    assert.ok(command !== undefined && !writesLockfile(command), argv.join(' '));
  }
});

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
