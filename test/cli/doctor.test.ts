// `lockguard doctor`: read-only checks with fixes.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";

interface Check {
  check: string;
  level: string;
}

test('doctor reports each check, warns on a missing shim and an out-of-step install, writes nothing', async (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const result = await cli(['doctor', '--json'], root);
  assert.equal(result.code, 0, result.stderr);
  const checks = JSON.parse(result.stdout) as Check[];
  const level = (name: string): string | undefined => checks.find((check) => check.check === name)?.level;
  assert.equal(level('table'), 'ok');
  assert.equal(level('install'), 'warn');
  assert.equal(level('pnpmfile'), 'warn');
  assert.equal(fs.existsSync(join(root, '.lockguard')), false, 'doctor is read-only');
});

test('doctor fails (exit 1) on a broken lockfile and a ledger that is a file, and says how to fix them', async (t) => {
  const root = tempWorkspace(t, { ...pnpmTree('<<<<<<< HEAD\n'), '.lockguard': 'x' });
  const result = await cli(['doctor'], root);
  assert.equal(result.code, 1);
  assert.match(result.stdout, /FAIL\s+table/);
  assert.match(result.stdout, /FAIL\s+ledger/);
  assert.match(result.stdout, /fix: /);
});
