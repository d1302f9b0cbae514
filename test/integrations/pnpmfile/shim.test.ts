import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { symlinkSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PNPMFILE_SHIM } from '../../../lib/integrations/pnpmfile/shim.js';
import { lockguardPackage, spawn } from '../../helpers/hooks.js';
import { scrubbedEnv } from '../../helpers/env.js';
import { tempWorkspace } from '../../helpers/workspace.js';

// What pnpm sees: the export's keys (hooks by name) and whether pnpm < 10.8 could assign `filename` onto it.
const LOAD =
  "const m = require(process.argv[1]); process.stdout.write(JSON.stringify({ extensible: Object.isExtensible(m), ...Object.fromEntries(Object.entries(m).map(([k, v]) => [k, typeof v === 'object' ? Object.keys(v) : typeof v])) }))";

function load(root: string, request = './.pnpmfile.cjs'): { code: number; stdout: string; stderr: string } {
  return spawn(process.execPath, ['-e', LOAD, request], root, scrubbedEnv(), 20_000);
}

test('the shim bytes are pinned: pnpm folds them into pnpmfileChecksum, so they must never change', () => {
  assert.equal(
    createHash('sha256').update(PNPMFILE_SHIM).digest('hex'),
    '4046ce09fb143ba00e3abfd5aef00e331f05b9e10d3511d0e30f49cd50173c86',
  );
});

test('without lockguard installed the shim exports empty hooks (a fresh clone installs; pnpm 12 still records the checksum)', (t) => {
  const root = tempWorkspace(t, { '.pnpmfile.cjs': PNPMFILE_SHIM });
  const result = load(root);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout), { extensible: true, hooks: [] });
});

test('with lockguard installed, require() of the ESM plugin hands pnpm a namespace whose hooks is the plugin', (t) => {
  const root = tempWorkspace(t, { '.pnpmfile.cjs': PNPMFILE_SHIM });
  const lockguard = lockguardPackage(root);
  mkdirSync(join(root, 'node_modules'));
  symlinkSync(lockguard, join(root, 'node_modules', 'lockguard'));
  const expected = { extensible: true, PNPMFILE_SHIM: 'string', hooks: ['updateConfig'], withLockguard: 'function' };
  for (const request of ['./.pnpmfile.cjs', 'lockguard/pnpmfile']) {
    // Through the shim, and as `module.exports = require('lockguard/pnpmfile')`: a plain object either way.
    const result = load(root, request);
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stderr, /Warning/);
    assert.deepEqual(JSON.parse(result.stdout), expected, request);
  }
});

test('an error while loading the plugin itself is not swallowed', (t) => {
  for (const [name, source, code] of [
    ['throws', "const e = new Error('boom'); e.code = 'EBOOM'; throw e", /EBOOM/],
    ['missing-import', "import 'not-installed-anywhere'", /ERR_MODULE_NOT_FOUND|MODULE_NOT_FOUND/],
  ] as const) {
    const root = tempWorkspace(t, {
      '.pnpmfile.cjs': PNPMFILE_SHIM,
      node_modules: {
        lockguard: {
          'package.json': JSON.stringify({
            name: 'lockguard',
            type: 'module',
            exports: { './pnpmfile': './index.js' },
          }),
          'index.js': `${source}\n`,
        },
      },
    });
    const result = load(root);
    assert.notEqual(result.code, 0, name);
    assert.match(result.stderr, code, name);
  }
});
