import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  detectRunner,
  remoteCachePlan,
  resolvePipelineCache,
  resolveTurboCache,
  resolveNxCache,
  pipelineFolderName,
} from '../../../lib/integrations/runners/index.js';
import { tempWorkspace } from '../../helpers/workspace.js';
import { join } from 'node:path';
import { mkdirSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** This repository (dist/test/… → the repo root), whose node_modules holds the pinned nx. */
const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
import { createHash } from 'node:crypto';

test('detectRunner recognizes turbo, nx and pnpm pipeline however they are launched', () => {
  const cases: [string, ReturnType<typeof detectRunner>][] = [
    ['turbo run build', 'turbo'],
    ['./node_modules/.bin/turbo build --filter=b', 'turbo'],
    ['npx turbo run build', 'turbo'],
    ['npx -y turbo run build', 'turbo'],
    ['pnpm turbo run build', 'turbo'],
    ['pnpm exec turbo run build', 'turbo'],
    ['pnpm -C sub exec turbo run build', 'turbo'],
    ['pnpm dlx turbo run build', 'turbo'],
    ['yarn turbo run build', 'turbo'],
    ['nx run-many -t build', 'nx'],
    ['npx nx affected -t build', 'nx'],
    ['pnpm nx run b:build', 'nx'],
    ['pnpm exec nx run-many -t build', 'nx'],
    ['pnpm pipeline', 'pnpm-pipeline'],
    ['pnpm pipeline ci --no-cache', 'pnpm-pipeline'],
    ['node node_modules/pnpm/bin/pnpm.cjs pipeline', 'pnpm-pipeline'],
    ['pnpm run build', 'none'],
    ['pnpm -r run build', 'none'],
    ['npm run build', 'none'],
    ['pnpm --filter turbo run build', 'none'],
    ['make turbo', 'none'],
    ['', 'none'],
  ];
  for (const [command, expected] of cases)
    assert.equal(detectRunner(command === '' ? [] : command.split(' ')), expected, command);
});

test('turbo cache dir: --cache-dir beats TURBO_CACHE_DIR beats turbo.json cacheDir beats .turbo/cache', (t) => {
  const root = tempWorkspace(t, { 'turbo.json': '{\n  // comment\n  "cacheDir": "cfg/cache",\n  "tasks": {},\n}\n' });
  assert.equal(
    resolveTurboCache(root, ['turbo', 'run', 'build', '--cache-dir=flag/c'], { TURBO_CACHE_DIR: 'env/c' }).dir,
    join(root, 'flag/c'),
  );
  assert.equal(resolveTurboCache(root, ['turbo', 'run', 'build', '--cache-dir', '/abs/c'], {}).dir, '/abs/c');
  assert.equal(
    resolveTurboCache(root, ['turbo', 'run', 'build'], { TURBO_CACHE_DIR: 'env/c' }).source,
    'TURBO_CACHE_DIR',
  );
  assert.equal(resolveTurboCache(root, ['turbo', 'run', 'build'], {}).dir, join(root, 'cfg/cache'));
  const bare = tempWorkspace(t, { 'turbo.json': '{"tasks":{}}' });
  assert.equal(resolveTurboCache(bare, ['turbo', 'run', 'build'], {}).dir, join(bare, '.turbo', 'cache'));
});

test('nx cache dir: NX_CACHE_DIRECTORY, then nx.json cacheDirectory; without an nx to ask, no folder is guessed', (t) => {
  const root = tempWorkspace(t, { 'nx.json': '{"cacheDirectory":"tmp/nx-cache"}' });
  assert.equal(resolveNxCache(root, { NX_CACHE_DIRECTORY: '/elsewhere' }).dir, '/elsewhere');
  assert.equal(resolveNxCache(root, {}).dir, join(root, 'tmp/nx-cache'));
  // No nx resolves (from the root nor from Lerna): unresolved, with why (the run says its cache is not guarded).
  const plain = tempWorkspace(t, { 'nx.json': '{}', 'package.json': '{}' });
  assert.throws(
    () => resolveNxCache(plain, { HOME: join(plain, 'home') }),
    (error: unknown) =>
      (error as { code?: string }).code === 'ERR_LOCKGUARD_BAD_CONFIG' &&
      /no nx resolves from the workspace root or from Lerna's own folder/.test((error as Error).message),
  );
  // nx 24 with HOME under /tmp never shares (measured), so it is not asked.
  mkdirSync(join(plain, 'node_modules'));
  symlinkSync(join(REPO, 'node_modules', 'nx'), join(plain, 'node_modules', 'nx'));
  const underTmp = resolveNxCache(plain, { HOME: join(plain, 'home') });
  assert.deepEqual(
    [underTmp.dir, underTmp.source, underTmp.shared],
    [join(plain, '.nx', 'cache'), 'default (nx 24.0.6: HOME under /tmp or no identity)', undefined],
  );
});

test('pnpm pipeline cache dir: <cache>/pipeline/<sha256(root)[:32]>, from pnpm_config_cache_dir or XDG_CACHE_HOME or HOME', () => {
  const hash = createHash('sha256').update('/w/ws').digest('hex').slice(0, 32);
  assert.equal(pipelineFolderName('/w/ws'), hash);
  assert.equal(resolvePipelineCache('/w/ws', { XDG_CACHE_HOME: '/x' }).dir, `/x/pnpm/pipeline/${hash}`);
  assert.equal(
    resolvePipelineCache('/w/ws', { pnpm_config_cache_dir: '/c', XDG_CACHE_HOME: '/x' }).dir,
    `/c/pipeline/${hash}`,
  );
  assert.equal(resolvePipelineCache('/w/ws', { HOME: '/h' }).dir, `/h/.cache/pnpm/pipeline/${hash}`);
  assert.equal(resolvePipelineCache('/w/ws', { XDG_CACHE_HOME: '/x' }).summaries, `/x/pnpm/pipeline/${hash}/runs`);
});

test('pnpm pipeline cache dir: pnpm-workspace.yaml cacheDir after the env setting', (t) => {
  const root = tempWorkspace(t, {
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\ncacheDir: "wscache" # local\n',
  });
  const folder = pipelineFolderName(root);
  assert.equal(resolvePipelineCache(root, { XDG_CACHE_HOME: '/x' }).dir, join(root, 'wscache', 'pipeline', folder));
  assert.equal(resolvePipelineCache(root, { pnpm_config_cache_dir: '/c' }).dir, `/c/pipeline/${folder}`);
});

test('remoteCachePlan: per runner, only under off or auto with a writer', () => {
  assert.deepEqual(remoteCachePlan('turbo', 'auto', false), { argv: [], env: {}, note: undefined });
  assert.deepEqual(remoteCachePlan('turbo', 'on', true).env, {});
  assert.deepEqual(remoteCachePlan('turbo', 'auto', true).env, { TURBO_CACHE: 'local:rw,remote:r' });
  assert.deepEqual(remoteCachePlan('turbo', 'off', false).env, { TURBO_CACHE: 'local:rw' });
  assert.deepEqual(remoteCachePlan('turbo', 'auto', true, { env: { TURBO_CACHE: 'local:r,remote:rw' } }).env, {
    TURBO_CACHE: 'local:r,remote:r',
  });
  const odd = remoteCachePlan('turbo', 'auto', true, { env: { TURBO_CACHE: 'secret-ish value' } });
  assert.deepEqual(odd.env, { TURBO_CACHE: 'local:rw,remote:r' });
  assert.doesNotMatch(odd.note ?? '', /secret/);
  assert.match(
    remoteCachePlan('turbo', 'auto', true, { argv: ['turbo', 'run', 'build', '--cache=remote:rw'] }).note ?? '',
    /--cache flag takes precedence/,
  );
  assert.deepEqual(remoteCachePlan('nx', 'auto', true).env, { NX_SKIP_REMOTE_CACHE: 'true' });
  assert.deepEqual(remoteCachePlan('nx', 'auto', false).env, {});
  assert.deepEqual(remoteCachePlan('pnpm-pipeline', 'off', true).env, { PNPM_REMOTE_CACHE_PUBLISH: 'false' });
  assert.deepEqual(remoteCachePlan('pnpm-pipeline', 'auto', false).env, {});
  assert.deepEqual(remoteCachePlan('none', 'off', true).env, {});
});

test("turbo in a linked git worktree: the default cache is the main worktree's, shared", (t) => {
  const base = tempWorkspace(t, {
    main: { '.git': { worktrees: { wt: { commondir: '../..\n' } } }, mono: { 'turbo.json': '{}' } },
    wt: { '.git': 'gitdir: ../main/.git/worktrees/wt\n', mono: { 'turbo.json': '{}' } },
  });
  const cache = resolveTurboCache(join(base, 'wt', 'mono'), ['turbo', 'run', 'build'], {});
  assert.equal(cache.dir, join(base, 'main', 'mono', '.turbo', 'cache'));
  assert.equal(cache.shared, true);
  assert.equal(
    resolveTurboCache(join(base, 'main', 'mono'), ['turbo', 'run', 'build'], {}).dir,
    join(base, 'main', 'mono', '.turbo', 'cache'),
  );
  assert.equal(
    resolveTurboCache(join(base, 'wt', 'mono'), ['turbo', 'run', 'build'], { TURBO_CACHE_DIR: 'own' }).dir,
    join(base, 'wt', 'mono', 'own'),
  );
});
