// The nx withholding pass per version (lib/integrations/runners/nx/withhold.ts, nx/task-db.ts): which versions
// are guarded and how, an nx that cannot be guarded moves nothing and says so, and a task DB that cannot be
// updated leaves every entry in place (moving it would make nx 20 to 23 restore nothing). The real nx
// versions run the whole scenario in test/e2e/runner-versions.test.ts.

import assert from 'node:assert/strict';
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  cacheState,
  nxSupport,
  nxVersionAt,
  withholdAfterRun,
  type RunnerCache,
} from '../../../../lib/integrations/runners/index.js';
import { repoRoot } from '../../../helpers/fixtures.js';
import { nxEntry, write } from '../../../helpers/runner-caches.js';
import { tempWorkspace } from '../../../helpers/workspace.js';

const HOUR = 3_600_000;
const NO_SUMMARY = { source: undefined, tasks: [], runningAcrossMove: [], ownKeys: undefined, note: undefined };

test('nxSupport: nx 20 to 23 through the task DB, 24 by the folder, older never guarded, newer said', () => {
  const env = {};
  assert.equal(nxSupport('19.8.15', env).kind, 'unguarded');
  assert.match(nxSupport('19.8.15', env).why ?? '', /^nx 19\.8\.15 is older than lockguard can guard \(nx 20 to 24\)$/);
  for (const version of ['20.8.4', '21.6.11', '22.6.3', '23.0.2'])
    assert.deepEqual(nxSupport(version, env), { kind: 'task-db', version });
  assert.deepEqual(nxSupport('24.0.6', env), { kind: 'folder', version: '24.0.6' });
  assert.equal(nxSupport('25.0.0', env).kind, 'folder');
  assert.match(nxSupport('25.0.0', env).why ?? '', /newer than the versions lockguard has measured/);
  // nx replays failures too when told to: a row marked failed would be replayed as a failure.
  assert.equal(nxSupport('22.6.3', { NX_CACHE_FAILURES: 'true' }).kind, 'unguarded');
  assert.deepEqual(nxSupport('24.0.6', { NX_CACHE_FAILURES: 'true' }), { kind: 'folder', version: '24.0.6' });
});

test('nxVersionAt reads the nx that the workspace root resolves (a linked aliased nx included)', (t) => {
  const root = tempWorkspace(t, { 'package.json': '{"name":"root","private":true}\n' });
  assert.equal(nxVersionAt(root), undefined);
  write(join(root, 'node_modules', '.keep'), '');
  symlinkSync(join(repoRoot(), 'node_modules', 'nx22'), join(root, 'node_modules', 'nx'));
  assert.equal(nxVersionAt(root), '22.6.3');
});

/** A workspace with a fake nx at `version` (no native binding) and one nx entry written after the move. */
function fakeNx(
  t: Parameters<typeof tempWorkspace>[0],
  version: string,
): { root: string; cache: RunnerCache; run: (env?: Record<string, string>) => ReturnType<typeof withholdAfterRun> } {
  const root = tempWorkspace(t, {
    'package.json': '{"name":"root","private":true}\n',
    'nx.json': '{}\n',
    node_modules: { nx: { 'package.json': JSON.stringify({ name: 'nx', version }) } },
  });
  const cache: RunnerCache = { runner: 'nx', root, dir: join(root, '.nx', 'cache'), source: 'default' };
  const before = cacheState(cache);
  const runStartedAt = Date.now() - HOUR;
  nxEntry(cache.dir, '4242424242424242');
  return {
    root,
    cache,
    run: (env = {}) =>
      withholdAfterRun(
        cache,
        before,
        NO_SUMMARY,
        { movedAt: runStartedAt + 1000, runStartedAt, runEndedAt: Date.now() + 1000, runId: 'r1' },
        env,
      ),
  };
}

test('nx older than 20: nothing is moved (a hit with nothing restored is worse), and the result says why and how many were left', async (t) => {
  const { root, cache, run } = fakeNx(t, '19.8.15');
  const result = await run();
  assert.deepEqual(result.withheld, []);
  assert.deepEqual(result.unguarded, { why: 'nx 19.8.15 is older than lockguard can guard (nx 20 to 24)', left: 1 });
  assert.equal(result.runnerVersion, '19.8.15');
  assert.ok(existsSync(join(cache.dir, '4242424242424242')));
  assert.ok(existsSync(join(cache.dir, 'terminalOutputs', '4242424242424242')));
  assert.equal(existsSync(join(root, '.lockguard', 'quarantine')), false);
});

test('nx 22 whose task DB cannot be updated: every entry stays, each reported as not withheld with why', async (t) => {
  const { cache, run } = fakeNx(t, '22.6.3');
  const result = await run();
  assert.deepEqual(result.withheld, []);
  assert.equal(result.unguarded, undefined);
  assert.equal(result.notMoved.length, 1);
  assert.equal(result.notMoved[0]?.key, '4242424242424242');
  assert.match(
    result.notMoved[0]?.detail ?? '',
    /^nx 22\.6\.3 answers hits from its task DB, and the workspace's nx could not update its task DB \(exit 1/,
  );
  assert.match(result.notMoved[0]?.detail ?? '', /left in the cache \(moving it would make nx restore nothing\)$/);
  assert.ok(existsSync(join(cache.dir, '4242424242424242')), 'the entry is still in the cache');
});

test('nx 24: the entry moves without any task-DB step (no nx is started)', async (t) => {
  const { cache, run } = fakeNx(t, '24.0.6');
  const result = await run();
  assert.deepEqual(
    result.withheld.map((entry) => entry.key),
    ['4242424242424242'],
  );
  assert.equal(existsSync(join(cache.dir, '4242424242424242')), false);
});
