// .ci/tools.mjs, npm test's pretest for the two system tools npm cannot install (strace, rsync): on a PATH
// without them and without apt-get it stops before the suite, naming both and how to install them; on this
// machine's PATH (where .ci/run or an earlier pretest put them) it passes silently.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/fixtures.js';
import { tempWorkspace } from '../helpers/workspace.js';

const SCRIPT = join(repoRoot(), '.ci', 'tools.mjs');

test('without strace and rsync (and no apt-get to install them) it stops and names what to install', (t) => {
  const bin = tempWorkspace(t, {}, 'lockguard-ci-tools-');
  symlinkSync(process.execPath, join(bin, 'node'));
  const sh = spawnSync('sh', ['-c', 'command -v sh'], { encoding: 'utf8' }).stdout.trim();
  symlinkSync(sh, join(bin, 'sh'));
  const result = spawnSync(join(bin, 'node'), [SCRIPT], { env: { PATH: bin }, encoding: 'utf8' });
  assert.equal(result.status, 1, result.stderr);
  assert.match(result.stderr, /the test suite needs strace and rsync on PATH/);
  assert.match(result.stderr, /apt-get install strace rsync/);
});

test('with both on PATH it says nothing and passes', () => {
  const result = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stderr, '');
});
