// The lage adapter without running lage: detection (lage's own config search at the root, lage in the root's
// dependencies, a command that starts it), the fixed cache folder and the settings that turn local saves off,
// the listing of the sharded entries and what one save is, the remote line and switch, and doctor's checks
// (the real lage proves the behaviour: test/e2e/lage-*.test.ts).

import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { configuredRunners, detectRunner } from '../../../../lib/integrations/runners/detect.js';
import { lageUnitPaths, lageUnits, resolveLageCache } from '../../../../lib/integrations/runners/lage/cache.js';
import { lageConfigFile } from '../../../../lib/integrations/runners/lage/config.js';
import { lageChecks } from '../../../../lib/integrations/runners/lage/doctor.js';
import { detectLage, lageWritesOff } from '../../../../lib/integrations/runners/lage/remote.js';
import { tempWorkspace } from '../../../helpers/workspace.js';

const KEY_A = 'aa0f0fbe781e4e80bcdf0514af4aad986b823ab3';
const KEY_B = 'cf45f9233b6a3dfa32902408588ec5c6fbc597e0';

test("detection: lage's config file at the root (its search order), a `lage` key in package.json, or lage in the root's dependencies", (t) => {
  const none = tempWorkspace(t, { 'package.json': '{"name":"root"}' });
  assert.equal(lageConfigFile(none), undefined);
  assert.ok(!configuredRunners(none).includes('lage'));
  for (const file of ['lage.config.js', 'lage.config.mjs', '.lagerc.json', '.config/lagerc.yml']) {
    const root = tempWorkspace(t, { 'package.json': '{"name":"root"}' });
    mkdirSync(join(root, '.config'), { recursive: true });
    writeFileSync(join(root, file), '{}\n');
    assert.deepEqual(lageConfigFile(root)?.file, file);
    assert.ok(configuredRunners(root).includes('lage'), file);
  }
  const order = tempWorkspace(t, {
    'package.json': '{"name":"root"}',
    'lage.config.js': '',
    '.config': { 'lagerc.json': '{}' },
    '.lagerc.yml': '',
  });
  assert.equal(lageConfigFile(order)?.file, '.lagerc.yml', "cosmiconfig's order: .lagerc* first, lage.config.* last");
  const configIsFile = tempWorkspace(t, { 'package.json': '{"name":"root"}', '.config': 'not a folder' });
  assert.equal(lageConfigFile(configIsFile), undefined, 'a .config that is a file is no lagerc');
  const key = tempWorkspace(t, { 'package.json': '{"name":"root","lage":{"pipeline":{}}}', 'lage.config.js': '' });
  assert.deepEqual(lageConfigFile(key), { file: 'package.json', code: false }, 'package.json is searched first');
  const dep = tempWorkspace(t, { 'package.json': '{"name":"root","devDependencies":{"lage":"2.17.0"}}' });
  assert.ok(configuredRunners(dep).includes('lage'));
  const nested = tempWorkspace(t, { 'package.json': '{"name":"root"}', packages: { a: { 'lage.config.js': '' } } });
  assert.ok(!configuredRunners(nested).includes('lage'), 'lage searches the workspace root only');
  assert.equal(detectRunner(['lage', 'build'], none), 'lage');
  assert.equal(detectRunner(['./node_modules/.bin/lage', 'build', '--verbose'], none), 'lage');
});

test('the cache: always <root>/node_modules/.cache/lage; local saves off by --no-cache, --skip-local-cache and LAGE_RUN_* (any value), not by CI', (t) => {
  const root = tempWorkspace(t, {});
  const dir = join(root, 'node_modules', '.cache', 'lage');
  assert.deepEqual(resolveLageCache(root, ['lage', 'build'], {}), {
    runner: 'lage',
    root,
    dir,
    source: 'default (lage fixes it)',
  });
  assert.equal(resolveLageCache(root, [], { CI: 'true', BACKFILL_INTERNAL_CACHE_FOLDER: 'x' }).dir, dir);
  assert.equal(resolveLageCache(root, [], { CI: 'true' }).source, 'default (lage fixes it)');
  assert.match(
    resolveLageCache(root, ['lage', 'build', '--no-cache'], {}).source,
    /no local saves this run: --no-cache/,
  );
  assert.match(resolveLageCache(root, ['lage', 'build', '--skip-local-cache'], {}).source, /--skip-local-cache/);
  assert.match(resolveLageCache(root, [], { LAGE_RUN_SKIP_LOCAL_CACHE: 'false' }).source, /LAGE_RUN_SKIP_LOCAL_CACHE/);
  assert.match(resolveLageCache(root, [], { LAGE_RUN_CACHE: 'true' }).source, /LAGE_RUN_CACHE/);
  assert.equal(
    resolveLageCache(root, ['lage', 'build', '--', '--no-cache'], {}).source,
    'default (lage fixes it)',
    "words after -- are the tasks' arguments",
  );
});

test('the listing: cache/<hash[:4]>/<hash> entries only (not npm/, skip-cache/, logs or the manifest); one save is the folder and its log', (t) => {
  const dir = tempWorkspace(t, {
    cache: {
      aa0f: { [KEY_A]: { dist: { 'a.txt': 'a' } }, npm: { x: '' } },
      cf45: { [KEY_B]: { dist: { 'out.json': '{}' } }, 'skip-cache': { hash: KEY_B } },
      ffff: { [KEY_A]: { 'x.txt': '' } },
      'not-a-prefix': { [KEY_A]: {} },
    },
    logs: { aa0f: { [`${KEY_A}.log`]: 'log' } },
    'file_hashes.manifest': '',
  });
  const units = lageUnits(dir, ['cache', 'logs', 'file_hashes.manifest']);
  assert.deepEqual(
    units.sort((x, y) => x.key.localeCompare(y.key)),
    [
      { key: KEY_A, primary: `cache/aa0f/${KEY_A}` },
      { key: KEY_B, primary: `cache/cf45/${KEY_B}` },
    ],
  );
  assert.deepEqual(lageUnitPaths({ key: KEY_A, primary: `cache/aa0f/${KEY_A}` }), [
    `cache/aa0f/${KEY_A}`,
    `logs/aa0f/${KEY_A}.log`,
  ]);
  assert.deepEqual(lageUnits(dir, ['logs']), [], 'no cache folder, no entries');
});

test('the listing never goes through a linked cache folder or a linked prefix', (t) => {
  const real = tempWorkspace(t, { aa0f: { [KEY_A]: { 'a.txt': 'a' } } });
  const dir = tempWorkspace(t, {});
  symlinkSync(real, join(dir, 'cache'));
  assert.deepEqual(lageUnits(dir, ['cache']), []);
  const other = tempWorkspace(t, { cache: {} });
  symlinkSync(join(real, 'aa0f'), join(other, 'cache', 'aa0f'));
  assert.deepEqual(lageUnits(other, ['cache']), []);
});

test("the remote: backfill's cacheStorageConfig in the config or BACKFILL_CACHE_PROVIDER* in the env is named, not gated; the switch", (t) => {
  const plain = tempWorkspace(t, { 'lage.config.js': 'module.exports = { pipeline: {} };\n' });
  assert.deepEqual(detectLage(plain, {}), { state: 'none', runner: 'lage' });
  assert.deepEqual(detectLage(plain, { BACKFILL_CACHE_PROVIDER: 'local' }), { state: 'none', runner: 'lage' });
  const configured = tempWorkspace(t, {
    'lage.config.js':
      "module.exports = { cacheOptions: { cacheStorageConfig: { provider: 'azure-blob', options: { connectionString: process.env.SECRET } } } };\n",
  });
  const detection = detectLage(configured, {});
  assert.equal(detection.state, 'ungateable');
  assert.match(
    detection.state === 'ungateable' ? detection.why : '',
    /lage.config.js cacheOptions.cacheStorageConfig.*not gated/,
  );
  const fromEnv = detectLage(plain, {
    BACKFILL_CACHE_PROVIDER: 'azure-blob',
    BACKFILL_CACHE_PROVIDER_OPTIONS: '{"connectionString":"AccountKey=planted-secret"}',
  });
  assert.match(fromEnv.state === 'ungateable' ? fromEnv.why : '', /BACKFILL_CACHE_PROVIDER=azure-blob/);
  assert.doesNotMatch(JSON.stringify(fromEnv), /planted-secret/);
  const off = lageWritesOff('this run may rewrite the lockfile', {});
  assert.deepEqual(off.env, { LAGE_WRITE_CACHE: 'false' });
  assert.match(off.note ?? '', /^\[lockguard\] lage remote cache writes off for this run \(LAGE_WRITE_CACHE=false/);
  const envOff = lageWritesOff('--remote=off', {
    BACKFILL_CACHE_PROVIDER: 'npm',
    BACKFILL_CACHE_PROVIDER_OPTIONS: '{}',
  });
  assert.deepEqual(envOff.env, {
    LAGE_WRITE_CACHE: 'false',
    BACKFILL_CACHE_PROVIDER: '',
    BACKFILL_CACHE_PROVIDER_OPTIONS: '',
  });
});

test('doctor: nothing where lage is not configured; the cache, and a remote that is not gated, where it is', (t) => {
  assert.deepEqual(lageChecks(tempWorkspace(t, { 'package.json': '{}' }), {}), []);
  const root = tempWorkspace(t, {
    'lage.config.js': 'module.exports = { cacheOptions: { cacheStorageConfig: {} } };\n',
  });
  const checks = lageChecks(root, {});
  assert.deepEqual(
    checks.map((check) => [check.check, check.level]),
    [
      ['lage-cache', 'ok'],
      ['lage-remote', 'warn'],
    ],
  );
  assert.match(checks[0]?.detail ?? '', /node_modules\/\.cache\/lage.*config: lage\.config\.js/);
  assert.match(lageChecks(root, { LAGE_RUN_SKIP_LOCAL_CACHE: '1' })[0]?.detail ?? '', /saves nothing locally/);
});
