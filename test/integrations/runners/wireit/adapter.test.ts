// The wireit adapter without running wireit: its cache mode and cache dir as wireit 0.14.13 resolves them,
// detection, the listing of the per-package entries, the stamps withholding removes, the remote line and
// switch, and doctor's checks (the real wireit proves the behaviour: test/e2e/wireit-*.test.ts).

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { detectRunner, resolveCache } from '../../../../lib/integrations/runners/index.js';
import { dropStamps, wireitCacheMode, wireitUnits } from '../../../../lib/integrations/runners/wireit/cache.js';
import { wireitChecks } from '../../../../lib/integrations/runners/wireit/doctor.js';
import { wireit } from '../../../../lib/integrations/runners/wireit/index.js';
import { detectWireit, wireitWritesOff } from '../../../../lib/integrations/runners/wireit/remote.js';
import { tempWorkspace, type Tree } from '../../../helpers/workspace.js';

const HEX_BUILD = Buffer.from('build').toString('hex');
const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

const pkg = (name: string, wireitBlock?: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ name, ...(wireitBlock === undefined ? {} : { wireit: wireitBlock }), ...extra });
const CACHED = { build: { command: 'tsc', files: ['src/**'], output: ['lib/**'] } };

/** A pnpm workspace of `packages` (name → has a wireit block), wireit installed at the root unless told. */
function workspace(
  t: Parameters<typeof tempWorkspace>[0],
  folders: Readonly<Record<string, boolean>>,
  options: { installed?: boolean; rootBlock?: boolean; yaml?: string } = {},
): string {
  const tree: Record<string, Tree | string> = {
    'package.json': pkg(
      'root',
      options.rootBlock === true ? { build: { dependencies: ['./packages/a:build'] } } : undefined,
    ),
    'pnpm-workspace.yaml': options.yaml ?? 'packages:\n  - "packages/*"\n  - "apps/*"\n',
  };
  const root = tempWorkspace(t, tree);
  for (const [folder, configured] of Object.entries(folders)) {
    mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(join(root, folder, 'package.json'), pkg(folder, configured ? CACHED : undefined));
  }
  if (options.installed !== false) mkdirSync(join(root, 'node_modules', 'wireit'), { recursive: true });
  return root;
}

test('cache mode: WIREIT_CACHE wins; unset, none under CI=true exactly, else local; anything else fails wireit', () => {
  assert.equal(wireitCacheMode({}).mode, 'local');
  assert.equal(wireitCacheMode({ CI: 'true' }).mode, 'none');
  assert.equal(wireitCacheMode({ CI: '1' }).mode, 'local');
  assert.equal(wireitCacheMode({ CI: 'true', WIREIT_CACHE: 'local' }).mode, 'local');
  assert.equal(wireitCacheMode({ WIREIT_CACHE: 'github' }).mode, 'github');
  assert.equal(wireitCacheMode({ WIREIT_CACHE: 'none' }).source, 'WIREIT_CACHE=none');
  assert.equal(wireitCacheMode({ WIREIT_CACHE: 'remote' }).mode, 'invalid');
});

test('configured: a root wireit block, or wireit installed and a workspace package with a wireit block', (t) => {
  assert.equal(wireit.configuredAt(workspace(t, { 'packages/a': true }), {}), true);
  assert.equal(wireit.configuredAt(workspace(t, { 'packages/a': true }, { installed: false }), {}), false);
  assert.equal(wireit.configuredAt(workspace(t, { 'packages/a': false }), {}), false);
  assert.equal(wireit.configuredAt(workspace(t, {}, { installed: false, rootBlock: true }), {}), true);
  // npm and yarn workspaces: the root's `workspaces` globs.
  const npm = tempWorkspace(t, {
    'package.json': JSON.stringify({ name: 'root', workspaces: ['libs/*'] }),
    libs: { x: { 'package.json': pkg('x', CACHED) } },
    node_modules: { wireit: {} },
  });
  assert.equal(wireit.configuredAt(npm, {}), true);
});

test('started by: the command wireit (as a root script runs it), found through `npm run build`', (t) => {
  assert.equal(wireit.startedBy(['wireit']), true);
  assert.equal(wireit.startedBy(['node_modules/.bin/wireit']), true);
  assert.equal(wireit.startedBy(['tsc']), false);
  const root = tempWorkspace(t, { 'package.json': JSON.stringify({ name: 'r', scripts: { build: 'wireit' } }) });
  assert.equal(detectRunner(['npm', 'run', 'build'], root), 'wireit');
});

test('cache dir: the nearest folder holding every wireit package, one package alone, or the root .wireit', (t) => {
  const both = workspace(t, { 'packages/a': true, 'packages/b': true, 'packages/c': false });
  assert.equal(resolveCache('wireit', both, [], {})?.dir, join(both, 'packages'));
  const one = workspace(t, { 'packages/a': true, 'packages/b': false });
  assert.equal(resolveCache('wireit', one, [], {})?.dir, join(one, 'packages', 'a'));
  const rootOnly = workspace(t, { 'packages/a': false }, { rootBlock: true });
  assert.equal(resolveCache('wireit', rootOnly, [], {})?.dir, join(rootOnly, '.wireit'));
  // Packages in two top folders: their nearest common folder is the root itself.
  const spread = workspace(t, { 'packages/a': true, 'apps/web': true });
  assert.equal(resolveCache('wireit', spread, [], {})?.dir, spread);
  assert.equal(resolveCache('wireit', both, [], { CI: 'true' })?.source, 'default under CI=true (no cache)');
});

test("listing: each package's .wireit/<hex script>/cache/<sha256>, never through a link, node_modules or a dot folder", (t) => {
  const root = workspace(t, { 'packages/a': true, 'packages/b': true, 'packages/group/c': true });
  const entry = (folder: string, key: string, script = HEX_BUILD): void => {
    mkdirSync(join(root, folder, '.wireit', script, 'cache', key, 'lib'), { recursive: true });
  };
  entry('packages/a', sha('a1'));
  entry('packages/a', sha('a2'));
  entry('packages/b', sha('b1'));
  entry('packages/group/c', sha('c1'));
  entry('packages/b', 'not-a-key');
  entry('packages/b', sha('b2'), 'not hex');
  entry('packages/a/node_modules/dep', sha('dep'));
  // A linked .wireit is not listed through.
  mkdirSync(join(root, 'elsewhere', HEX_BUILD, 'cache', sha('x')), { recursive: true });
  mkdirSync(join(root, 'packages', 'd'));
  symlinkSync(join(root, 'elsewhere'), join(root, 'packages', 'd', '.wireit'));
  // Nor a linked cache folder.
  mkdirSync(join(root, 'packages', 'e', '.wireit', HEX_BUILD), { recursive: true });
  symlinkSync(join(root, 'elsewhere', HEX_BUILD, 'cache'), join(root, 'packages', 'e', '.wireit', HEX_BUILD, 'cache'));
  const units = wireitUnits(join(root, 'packages'));
  assert.deepEqual(
    units.map((unit) => `${unit.primary}`).sort(),
    [
      `a/.wireit/${HEX_BUILD}/cache/${sha('a1')}`,
      `a/.wireit/${HEX_BUILD}/cache/${sha('a2')}`,
      `b/.wireit/${HEX_BUILD}/cache/${sha('b1')}`,
      `group/c/.wireit/${HEX_BUILD}/cache/${sha('c1')}`,
    ].sort(),
  );
  for (const unit of units) assert.ok(unit.primary.endsWith(unit.key));
  assert.deepEqual(wireitUnits(join(root, 'missing')), []);
});

test('stamps: only a script fingerprint that hashes to a withheld key is removed', (t) => {
  const root = tempWorkspace(t, {});
  const script = join(root, 'a', '.wireit', HEX_BUILD);
  mkdirSync(join(script, 'cache', sha('old')), { recursive: true });
  writeFileSync(join(script, 'fingerprint'), 'old');
  const other = join(root, 'b', '.wireit', HEX_BUILD);
  mkdirSync(join(other, 'cache', sha('b')), { recursive: true });
  writeFileSync(join(other, 'fingerprint'), 'newer');
  const dropped = dropStamps(root, [
    { key: sha('old'), path: `a/.wireit/${HEX_BUILD}/cache/${sha('old')}` },
    { key: sha('b'), path: `b/.wireit/${HEX_BUILD}/cache/${sha('b')}` },
    { key: sha('none'), path: `c/.wireit/${HEX_BUILD}/cache/${sha('none')}` },
  ]);
  assert.deepEqual(dropped, [`a/.wireit/${HEX_BUILD}/fingerprint`]);
  assert.equal(existsSync(join(script, 'fingerprint')), false);
  assert.equal(existsSync(join(other, 'fingerprint')), true, 'a stamp naming another fingerprint stays');
});

test('remote: WIREIT_CACHE=github is named ungated; the switch sets it local for the run, else pins the mode', () => {
  assert.deepEqual(detectWireit({}), { state: 'none', runner: 'wireit' });
  const github = detectWireit({ WIREIT_CACHE: 'github' });
  assert.equal(github.state, 'ungateable');
  assert.match(github.state === 'ungateable' ? github.why : '', /GitHub Actions cache .* not gated/);
  const off = wireitWritesOff('this run may rewrite the lockfile', { WIREIT_CACHE: 'github' });
  assert.deepEqual(off.env, { WIREIT_CACHE: 'local' });
  assert.match(off.note ?? '', /^\[lockguard\] wireit GitHub Actions cache off for this run/);
  assert.deepEqual(wireitWritesOff('x', { CI: 'true' }).env, { WIREIT_CACHE: 'none' });
  assert.deepEqual(wireitWritesOff('x', {}).env, { WIREIT_CACHE: 'local' });
});

test('doctor: the cache in use, github warned; under a pnpm lockfile the scripts that fold none when npm starts them', (t) => {
  const root = workspace(t, { 'packages/a': true, 'packages/b': false });
  const pnpm = wireitChecks(root, {}, 'pnpm');
  assert.deepEqual(
    pnpm.map((check) => `${check.check} ${check.level}`),
    ['wireit-cache ok', 'wireit-lock-input warn'],
  );
  assert.match(pnpm[1]?.detail ?? '', /this workspace's lockfile is no input to packages\/a:build/);
  assert.deepEqual(
    wireitChecks(root, { WIREIT_CACHE: 'github' }, 'npm').map((check) => `${check.check} ${check.level}`),
    ['wireit-cache warn'],
  );
  assert.deepEqual(wireitChecks(workspace(t, { 'packages/a': false }), {}, 'pnpm'), []);
  // A script whose files name the slice file (sound keys) folds the lockfile's part: no warning.
  writeFileSync(
    join(root, 'packages', 'a', 'package.json'),
    pkg('a', { build: { ...CACHED.build, files: ['src/**', '.lockguard-slice'] } }),
  );
  assert.deepEqual(
    wireitChecks(root, {}, 'pnpm').map((check) => check.check),
    ['wireit-cache'],
  );
});
