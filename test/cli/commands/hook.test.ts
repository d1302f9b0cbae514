import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXIT } from '../../../lib/cli/exit-codes.js';
import { cli } from '../../helpers/cli.js';
import { liveRun } from '../../helpers/hooks.js';
import { tempWorkspace } from '../../helpers/workspace.js';

const LOCK = '{"name":"root","lockfileVersion":3,"requires":true,"packages":{"":{"name":"root"}}}\n';

function npmRoot(t: { after(fn: () => void): void }): string {
  return tempWorkspace(t, {
    'package.json': '{"name":"root","workspaces":["packages/*"]}\n',
    'package-lock.json': LOCK,
  });
}

test('lockguard hook outside a run exits 0 and writes nothing', async (t) => {
  const root = npmRoot(t);
  const result = await cli(['hook'], root, { npm_command: 'install', npm_lifecycle_event: 'preinstall' });
  assert.equal(result.code, EXIT.ok);
  assert.equal(result.stderr, '');
  assert.equal(existsSync(join(root, '.lockguard')), false);
});

test('lockguard hook reports the npm command and lifecycle event to the live run', async (t) => {
  const root = npmRoot(t);
  const run = liveRun(t, root, 'flag');
  const result = await cli(['hook'], root, {
    npm_command: 'ci',
    npm_lifecycle_event: 'postinstall',
    LOCKGUARD_RUN: run.dir,
  });
  assert.equal(result.code, EXIT.ok);
  const [event, ...rest] = run.hookEvents();
  assert.deepEqual(rest, []);
  assert.deepEqual(
    { ...event, t: 0, pid: 0 },
    { t: 0, type: 'hook', source: 'npm-lifecycle', hook: 'postinstall', command: 'ci', pid: 0 },
  );
});

test('under refuse, lockguard hook fails npm install only when the lockfile was rewritten, never npm ci', async (t) => {
  const root = npmRoot(t);
  const run = liveRun(t, root, 'refuse');
  {
    // Same bytes (npm's no-op install rewrites identical bytes): passes.
    writeFileSync(join(root, 'package-lock.json'), LOCK);
    const result = await cli(['hook'], root, { npm_command: 'install', npm_lifecycle_event: 'preinstall' });
    assert.equal(result.code, EXIT.ok);
  }
  writeFileSync(join(root, 'package-lock.json'), LOCK.replace('"requires":true', '"requires":false'));
  {
    // npm ci with a moved lockfile (it would have failed itself): not the hook's to refuse.
    const result = await cli(['hook'], root, { npm_command: 'ci', npm_lifecycle_event: 'preinstall' });
    assert.equal(result.code, EXIT.ok);
  }
  {
    // npm install that rewrote it: exit 1, the lockfile named, reported refused.
    const result = await cli(['hook'], root, { npm_command: 'install', npm_lifecycle_event: 'preinstall' });
    assert.equal(result.code, EXIT.moved);
    assert.match(result.stderr, /package-lock\.json/);
  }
  assert.deepEqual(
    run.hookEvents().map((event) => [event['command'], event['refused'] ?? false]),
    [
      ['install', false],
      ['ci', false],
      ['install', true],
    ],
  );
});

test('lockguard hook rejects unknown flags as a usage error', async (t) => {
  const root = npmRoot(t);
  const result = await cli(['hook', '--bogus'], root);
  assert.equal(result.code, EXIT.usage);
});
