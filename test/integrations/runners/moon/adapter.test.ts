// The moon adapter without running moon: its cache mode and cache dir as moon 2.5 resolves them, detection,
// the workspace file's settings lockguard reads, the listing of `.moon/cache/outputs/`, the lastRun states
// withholding removes, the remote line and switch, and doctor's checks (the real moon proves the behaviour:
// test/e2e/moon-*.test.ts).

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { detectRunner, resolveCache } from '../../../../lib/integrations/runners/index.js';
import {
  dropLastRuns,
  moonCacheMode,
  moonEntryTask,
  moonUnitPaths,
  moonUnits,
} from '../../../../lib/integrations/runners/moon/cache.js';
import { yamlSetting } from '../../../../lib/integrations/runners/moon/config.js';
import { moonChecks } from '../../../../lib/integrations/runners/moon/doctor.js';
import { moon } from '../../../../lib/integrations/runners/moon/index.js';
import { detectMoon, moonWritesOff } from '../../../../lib/integrations/runners/moon/remote.js';
import { tempWorkspace } from '../../../helpers/workspace.js';

const H1 = 'a'.repeat(64);
const H2 = 'b'.repeat(64);

test('cache mode: MOON_CACHE off, read, write or read-write (any case); unset or anything else is read-write', () => {
  assert.equal(moonCacheMode({}).mode, 'read-write');
  assert.equal(moonCacheMode({ MOON_CACHE: 'READ' }).mode, 'read');
  assert.equal(moonCacheMode({ MOON_CACHE: 'off' }).source, 'MOON_CACHE=off');
  assert.equal(moonCacheMode({ MOON_CACHE: 'write' }).mode, 'write');
  assert.equal(moonCacheMode({ MOON_CACHE: 'local' }).mode, 'read-write');
});

test('detection: .moon/workspace.* or .config/moon/workspace.*, or a command starting moon or moonx', (t) => {
  const none = tempWorkspace(t, { '.moon': { 'toolchains.yml': '' } });
  assert.equal(moon.configuredAt(none, {}), false);
  for (const file of ['workspace.yml', 'workspace.yaml', 'workspace.json', 'workspace.toml']) {
    const root = tempWorkspace(t, { '.moon': { [file]: '' } });
    assert.equal(moon.configuredAt(root, {}), true, file);
  }
  const config = tempWorkspace(t, { '.config': { moon: { 'workspace.yml': '' } } });
  assert.equal(moon.configuredAt(config, {}), true);
  assert.equal(moon.startedBy(['moon', 'run', ':build']), true);
  assert.equal(moon.startedBy(['/x/node_modules/.bin/moonx', 'build']), true);
  assert.equal(moon.startedBy(['moonrepo']), false);
  assert.equal(detectRunner(['moon', 'run', ':build'], none), 'moon');
});

test('cache dir: <config dir>/cache whatever MOON_CACHE says', (t) => {
  const root = tempWorkspace(t, { '.moon': { 'workspace.yml': '' } });
  assert.equal(resolveCache('moon', root, [], {})?.dir, join(root, '.moon', 'cache'));
  assert.equal(resolveCache('moon', root, [], { MOON_CACHE: 'off' })?.source, 'MOON_CACHE=off');
  const config = tempWorkspace(t, { '.config': { moon: { 'workspace.yml': '' } } });
  assert.equal(resolveCache('moon', config, [], {})?.dir, join(config, '.config', 'moon', 'cache'));
});

test('listing: each outputs/<hex>.tar.gz is one entry with its hash manifest; nothing else is', (t) => {
  const dir = tempWorkspace(t, {
    outputs: { [`${H1}.tar.gz`]: 'x', [`${H2}.tar.gz.tmp`]: 'x', 'notes.tar.gz': 'x' },
    hashes: { [`${H2}.json`]: '[]' },
  });
  const units = moonUnits(dir, ['outputs', 'hashes', 'states']);
  assert.deepEqual(units, [{ key: H1, primary: `outputs/${H1}.tar.gz` }]);
  assert.deepEqual(moonUnitPaths({ key: H1, primary: '' }), [`outputs/${H1}.tar.gz`, `hashes/${H1}.json`]);
  assert.deepEqual(moonUnits(dir, ['hashes']), [], 'no outputs folder listed: nothing read');
});

test("an entry's task is its hash manifest's target", (t) => {
  const root = tempWorkspace(t, {
    '.moon': { cache: { hashes: { [`${H1}.json`]: JSON.stringify([{ target: 'b:build', inputs: {} }]) } } },
  });
  const cache = moon.resolveCache(root, [], {});
  assert.equal(moonEntryTask(cache, H1), 'b:build');
  assert.equal(moonEntryTask(cache, H2), undefined);
  assert.equal(moonEntryTask(cache, '../x'), undefined);
});

test('dropLastRuns: only the lastRun.json naming a withheld hash goes; others and links stay', (t) => {
  const dir = tempWorkspace(t, {
    states: {
      a: { build: { 'lastRun.json': JSON.stringify({ exitCode: 0, hash: H1, target: 'a:build' }) } },
      b: {
        build: { 'lastRun.json': JSON.stringify({ exitCode: 0, hash: H2, target: 'b:build' }) },
        'snapshot.json': '{}',
      },
      'workspaceGraph.json': '{}',
    },
  });
  mkdirSync(join(dir, 'states', 'c', 'build'), { recursive: true });
  writeFileSync(join(dir, 'states', 'c', 'build', 'lastRun.json'), 'not json');
  symlinkSync(join(dir, 'states', 'a', 'build', 'lastRun.json'), join(dir, 'states', 'c', 'lint'));
  assert.deepEqual(dropLastRuns(dir, new Set([H1])), ['states/a/build/lastRun.json']);
  assert.equal(existsSync(join(dir, 'states', 'a', 'build', 'lastRun.json')), false);
  assert.equal(existsSync(join(dir, 'states', 'b', 'build', 'lastRun.json')), true);
  assert.equal(existsSync(join(dir, 'states', 'c', 'build', 'lastRun.json')), true);
});

test('the workspace file: nested block scalars, quotes and comments; anything else is unknown', () => {
  const text = [
    '# moon',
    'projects:',
    "  - 'packages/*'",
    'cache:',
    '  host: nope',
    'remote:',
    '  api: http # the HTTP API',
    '  cache:',
    '    host: nested',
    "  host: 'grpcs://cache.example'",
    'experiments:',
    '  casOutputsCache: true',
    'host: top',
  ].join('\n');
  assert.equal(yamlSetting(text, ['remote', 'host']), 'grpcs://cache.example');
  assert.equal(yamlSetting(text, ['remote', 'api']), 'http');
  assert.equal(yamlSetting(text, ['experiments', 'casOutputsCache']), 'true');
  assert.equal(yamlSetting(text, ['host']), 'top');
  assert.equal(yamlSetting('remote: { host: x }\n', ['remote', 'host']), undefined);
  assert.equal(yamlSetting('remote:\n  host:\n', ['remote', 'host']), '');
});

test('remote: a host in the workspace file or MOON_REMOTE_HOST is named and not gated; an empty env value is none', (t) => {
  const root = tempWorkspace(t, {
    '.moon': { 'workspace.yml': "remote:\n  host: 'http://user:secret@cache.example'\n" },
  });
  const detection = detectMoon(root, {});
  assert.equal(detection.state, 'ungateable');
  assert.match(detection.state === 'ungateable' ? detection.why : '', /remote\.host in \.moon\/workspace\.yml/);
  assert.doesNotMatch(JSON.stringify(detection), /secret/, 'the host is never echoed');
  assert.equal(detectMoon(root, { MOON_REMOTE_HOST: '' }).state, 'none');
  const plain = tempWorkspace(t, { '.moon': { 'workspace.yml': 'projects: []\n' } });
  assert.equal(detectMoon(plain, {}).state, 'none');
  assert.equal(detectMoon(plain, { MOON_REMOTE_HOST: 'grpc://h' }).state, 'ungateable');
  assert.deepEqual(moonWritesOff('why', {}).env, { MOON_REMOTE_HOST: '' });
  assert.match(moonWritesOff('why', {}).note ?? '', /any remote\.host of moon's workspace file is not reached/);
  assert.match(
    moonWritesOff('why', { MOON_REMOTE_HOST: 'grpc://h' }).note ?? '',
    /^\[lockguard\] moon remote cache off .*MOON_REMOTE_HOST is not reached/,
  );
});

test('doctor: the cache mode, a remote not gated, the CAS experiment not guarded; nothing without moon', (t) => {
  assert.deepEqual(moonChecks(tempWorkspace(t, {}), {}), []);
  const root = tempWorkspace(t, {
    '.moon': { 'workspace.yml': 'remote:\n  host: grpc://h\nexperiments:\n  casOutputsCache: true\n' },
  });
  const checks = moonChecks(root, {});
  assert.deepEqual(
    checks.map((check) => `${check.check} ${check.level}`),
    ['moon-cache ok', 'moon-remote warn', 'moon-cas warn'],
  );
  assert.match(moonChecks(root, { MOON_CACHE: 'off' })[0]?.detail ?? '', /saves nothing/);
});
