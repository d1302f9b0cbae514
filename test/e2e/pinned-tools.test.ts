// The package managers the end-to-end tests run are the pinned ones, never the machine's: a machine whose
// npm is another version (one whose npm upgrade failed has npm 10) must not change what a test sees.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isolatedEnv, scrubbedEnv } from '../helpers/env.js';
import { NPM, REPO_ROOT } from '../helpers/tools.js';
import { tempWorkspace } from '../helpers/workspace.js';

const pinned = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
).devDependencies;

test('npm by name on a test subprocess PATH, and the NPM tool, are the npm pinned in devDependencies', (t) => {
  const tmp = tempWorkspace(t);
  assert.match(pinned['npm'] ?? '', /^\d+\.\d+\.\d+$/, 'npm is pinned exactly');
  for (const env of [scrubbedEnv(), isolatedEnv(tmp)]) {
    const byName = spawnSync('npm', ['--version'], { cwd: tmp, env, encoding: 'utf8', timeout: 30_000 });
    assert.equal(byName.stdout.trim(), pinned['npm'], byName.stderr);
    const viaSh = spawnSync('sh', ['-c', 'command -v npm'], { cwd: tmp, env, encoding: 'utf8', timeout: 30_000 });
    assert.match(viaSh.stdout.trim(), /test\/npm-bin\/npm$/);
  }
  const tool = spawnSync(NPM.command, [...NPM.prefix, '--version'], {
    cwd: tmp,
    env: isolatedEnv(tmp),
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(tool.stdout.trim(), pinned['npm'], tool.stderr);
});
