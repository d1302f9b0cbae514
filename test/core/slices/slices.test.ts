// Slices of small hand-written lockfiles: resolution rules, catalogs, the two-document form, npm nesting,
// the slice diff's data, and the errors.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  diffSlices,
  describeSliceDiff,
  findSlice,
  projectSlices,
  sliceDigest,
  slicesFromLockfile,
} from '../../../lib/core/slices/index.js';
import { tempWorkspace } from '../../helpers/workspace.js';

const ROOT = '/nonexistent-lockguard-root';

function lock(b: string, extra = ''): string {
  return `lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false
${extra}
importers:

  .:
    devDependencies:
      left-pad:
        specifier: ^1.3.0
        version: 1.3.0

  packages/a:
    dependencies:
      b:
        specifier: workspace:*
        version: link:../b

  packages/b:
    dependencies:
      is-number:
        specifier: ${b}
        version: ${b}

  packages/c: {}

packages:

  is-number@6.0.0:
    resolution: {integrity: sha512-six}

  is-number@7.0.0:
    resolution: {integrity: sha512-seven}

  left-pad@1.3.0:
    resolution: {integrity: sha512-pad}

snapshots:

  is-number@6.0.0: {}

  is-number@7.0.0: {}

  left-pad@1.3.0: {}
`;
}

const slices = (text: string, lockfile = 'pnpm-lock.yaml') =>
  slicesFromLockfile(Buffer.from(text), { lockfile, root: ROOT, names: false });

test('a dependency change reaches its importer and the importers linking to it, and the diff says how', () => {
  const before = slices(lock('7.0.0'));
  const after = slices(lock('6.0.0'));
  const diff = diffSlices(before, after);
  // The edited project first (its own importer entry changed), then the one that only links to it.
  assert.deepEqual(
    diff.changed.map((change) => change.importer),
    ['packages/b', 'packages/a'],
  );
  // The root installs left-pad, whose code resolves the hoisted pool (core/slices/reach.ts); c installs nothing.
  assert.deepEqual(diff.hoisted, ['.']);
  assert.equal(diff.unchanged, 1);
  // b's own dependency changed; a reaches it through b.
  assert.deepEqual(
    diff.changed.map((change) => change.packages),
    [
      [{ name: 'is-number', kind: 'changed', from: ['7.0.0'], to: ['6.0.0'], direct: true }],
      [{ name: 'is-number', kind: 'changed', from: ['7.0.0'], to: ['6.0.0'] }],
    ],
  );
  assert.equal(diff.changed.find((change) => change.importer === 'packages/b')?.entryChanged, true);
  assert.equal(diff.changed.find((change) => change.importer === 'packages/a')?.entryChanged, false);
  assert.equal(
    describeSliceDiff(diff),
    "pnpm-lock.yaml moved: the slices of 2 projects changed: packages/b (is-number 7.0.0 \u2192 6.0.0), packages/a (through its dependencies: is-number 7.0.0 \u2192 6.0.0); 1 other project's reach moved (.); 1 other project unchanged",
  );
});

/** packages/app: its own dependencies (aa-tool, semver, zod) and what aa-tool reaches (a peer-suffixed chain). */
function appLock(options: {
  readonly semver: boolean;
  readonly zod: string;
  readonly beta: string;
  readonly peer: string;
}): string {
  const semver = options.semver ? '\n      semver:\n        specifier: 7.5.4\n        version: 7.5.4' : '';
  return `lockfileVersion: '9.0'

importers:

  .: {}

  packages/app:
    dependencies:
      aa-tool:
        specifier: 1.0.0
        version: 1.0.0(react@${options.peer})${semver}
      zod:
        specifier: ${options.zod}
        version: ${options.zod}

  packages/other: {}

packages:

  aa-tool@1.0.0:
    resolution: {integrity: sha512-aa}

  alpha@1.0.0:
    resolution: {integrity: sha512-alpha}

  beta@1.0.0:
    resolution: {integrity: sha512-beta1}

  beta@1.1.0:
    resolution: {integrity: sha512-beta2}

  react@18.2.0:
    resolution: {integrity: sha512-r1}

  react@18.3.0:
    resolution: {integrity: sha512-r2}

  semver@7.5.4:
    resolution: {integrity: sha512-semver}

  zod@3.22.0:
    resolution: {integrity: sha512-z1}

  zod@3.23.0:
    resolution: {integrity: sha512-z2}

snapshots:

  aa-tool@1.0.0(react@${options.peer}):
    dependencies:
      alpha: 1.0.0(react@${options.peer})
      beta: ${options.beta}
      semver: 7.5.4

  alpha@1.0.0(react@${options.peer}):
    dependencies:
      react: ${options.peer}

  beta@${options.beta}: {}

  react@${options.peer}: {}

  semver@7.5.4: {}

  zod@${options.zod}: {}
`;
}

test("a project's own changes come first, a dependency it newly declares is named though others reached it, peer churn after", () => {
  const before = slices(appLock({ semver: false, zod: '3.22.0', beta: '1.0.0', peer: '18.2.0' }));
  const after = slices(appLock({ semver: true, zod: '3.23.0', beta: '1.1.0', peer: '18.2.0' }));
  const diff = diffSlices(before, after);
  assert.deepEqual(diff.changed[0]?.packages, [
    { name: 'semver', kind: 'added', from: [], to: ['7.5.4'], direct: true },
    { name: 'zod', kind: 'changed', from: ['3.22.0'], to: ['3.23.0'], direct: true },
    { name: 'beta', kind: 'changed', from: ['1.0.0'], to: ['1.1.0'] },
  ]);
  assert.equal(
    describeSliceDiff(diff),
    'pnpm-lock.yaml moved: the slice of packages/app changed (+semver 7.5.4; zod 3.22.0 \u2192 3.23.0; beta 1.0.0 \u2192 1.1.0); 2 other projects unchanged',
  );
  // Only semver added (already reached through aa-tool): named, not "its importer entry changed".
  const added = diffSlices(before, slices(appLock({ semver: true, zod: '3.22.0', beta: '1.0.0', peer: '18.2.0' })));
  assert.equal(
    describeSliceDiff(added),
    'pnpm-lock.yaml moved: the slice of packages/app changed (+semver 7.5.4); 2 other projects unchanged',
  );
  // A peer moving: react's version change first, the same-version peer-suffixed entries (aa-tool, alpha) after it.
  const peer = diffSlices(before, slices(appLock({ semver: false, zod: '3.22.0', beta: '1.0.0', peer: '18.3.0' })));
  assert.deepEqual(peer.changed[0]?.packages, [{ name: 'react', kind: 'changed', from: ['18.2.0'], to: ['18.3.0'] }]);
  assert.deepEqual(peer.changed[0]?.contentChanged, ['aa-tool', 'alpha']);
});

test('settings fold into every slice; an unused packages entry into none', () => {
  const base = slices(lock('7.0.0'));
  const settings = slices(lock('7.0.0').replace('autoInstallPeers: true', 'autoInstallPeers: false'));
  assert.equal(diffSlices(base, settings).unchanged, 0);
  const unused = slices(lock('7.0.0').replace('sha512-six', 'sha512-other'));
  assert.equal(diffSlices(base, unused).unchanged, 4);
});

test('a catalog entry folds into the slices of the importers whose specifier uses it', () => {
  const withCatalog = (range: string): string =>
    lock('7.0.0', `\ncatalogs:\n  default:\n    left-pad:\n      specifier: ${range}\n      version: 1.3.0\n`).replace(
      'specifier: ^1.3.0',
      "specifier: 'catalog:'",
    );
  const diff = diffSlices(slices(withCatalog('^1.3.0')), slices(withCatalog('~1.3.0')));
  assert.deepEqual(
    diff.changed.map((change) => change.importer),
    ['.'],
  );
  assert.deepEqual(diff.changed[0]?.packages, []);
});

test('the env document of a two-document lockfile is skipped; three documents are refused', () => {
  const env =
    "---\nlockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    packageManagerDependencies:\n      pnpm:\n        specifier: 12.4.2\n        version: 12.4.2\n\npackages:\n\n  pnpm@12.4.2:\n    resolution: {integrity: sha512-x}\n\nsnapshots:\n\n  pnpm@12.4.2: {}\n\n---\n";
  assert.deepEqual(slices(env + lock('7.0.0')).slices, slices(lock('7.0.0')).slices);
  assert.throws(() => slices(`${env}${lock('7.0.0')}---\nlockfileVersion: '9.0'\n`), {
    code: 'ERR_LOCKGUARD_BROKEN_LOCKFILE',
  });
});

test('aliases, peer suffixes and missing entries resolve to the right nodes', () => {
  const text = `lockfileVersion: '9.0'

importers:

  .:
    dependencies:
      pad:
        specifier: npm:left-pad@1.3.0
        version: left-pad@1.3.0
      plugin:
        specifier: ^1.0.0
        version: 1.0.0(host@2.0.0)
      ghost:
        specifier: ^9.0.0
        version: 9.0.0

packages:

  host@2.0.0:
    resolution: {integrity: sha512-h}

  left-pad@1.3.0:
    resolution: {integrity: sha512-pad}

  plugin@1.0.0:
    resolution: {integrity: sha512-p}

snapshots:

  host@2.0.0: {}

  left-pad@1.3.0: {}

  plugin@1.0.0(host@2.0.0):
    dependencies:
      host: 2.0.0
`;
  const base = slices(text);
  const labels = base.graph.own.map((_, node) => base.graph.label(node));
  assert.deepEqual(
    labels
      .filter((label) => label.kind === 'package')
      .map((label) => label.kind === 'package' && `${label.name}@${label.version}`)
      .sort(),
    ['ghost@9.0.0', 'host@2.0.0', 'left-pad@1.3.0', 'plugin@1.0.0'],
  );
  assert.deepEqual(labels.filter((label) => label.kind === 'package' && label.missing === true).length, 1);
  const changed = diffSlices(base, slices(text.replace('sha512-h}', 'sha512-h2}')));
  assert.deepEqual(changed.changed[0]?.contentChanged, ['host']);
});

const npmLock = (nested: string) =>
  JSON.stringify({
    name: 'root',
    lockfileVersion: 3,
    packages: {
      '': { name: 'root', workspaces: ['packages/*'], devDependencies: { 'is-number': '^7.0.0' } },
      'node_modules/a': { resolved: 'packages/a', link: true },
      'node_modules/b': { resolved: 'packages/b', link: true },
      'node_modules/is-number': { version: '7.0.0' },
      'packages/a': { name: 'a', dependencies: { b: '*' } },
      'packages/b': { name: 'b', dependencies: { 'is-number': '^6.0.0' } },
      'packages/b/node_modules/is-number': { version: nested },
      'packages/c': { name: 'c', dependencies: { 'is-number': '^7.0.0' } },
    },
  });

test('npm: a nested copy shadows the hoisted one for its project (and the projects linking to it) only', () => {
  const diff = diffSlices(slices(npmLock('6.0.0'), 'package-lock.json'), slices(npmLock('6.0.1'), 'package-lock.json'));
  assert.deepEqual(
    diff.changed.map((change) => change.importer),
    ['packages/a', 'packages/b'],
  );
  assert.deepEqual(diff.changed[1]?.packages, [{ name: 'is-number', kind: 'changed', from: ['6.0.0'], to: ['6.0.1'] }]);
  // The root and c install the hoisted is-number: design A folds every entry into their reach.
  assert.deepEqual(diff.hoisted, ['.', 'packages/c']);
  assert.equal(diff.unchanged, 0);
});

test('projectSlices reads names from package.json; sliceDigest finds a project by path or name, else ERR_LOCKGUARD_UNKNOWN_PROJECT', (t) => {
  const root = tempWorkspace(t, {
    'package.json': '{"name":"root"}',
    'pnpm-lock.yaml': lock('7.0.0'),
    packages: { a: { 'package.json': '{"name":"@x/a"}' }, b: { 'package.json': '{"name":"@x/b"}' } },
  });
  const result = projectSlices(root);
  assert.deepEqual(
    result.slices.map((slice) => [slice.importer, slice.name]),
    [
      ['.', 'root'],
      ['packages/a', '@x/a'],
      ['packages/b', '@x/b'],
      ['packages/c', undefined],
    ],
  );
  assert.equal(sliceDigest(root, '@x/b'), findSlice(result.slices, 'packages/b')?.digest);
  assert.equal(sliceDigest(root, './packages/b/'), findSlice(result.slices, '@x/b')?.digest);
  assert.throws(() => sliceDigest(root, 'nope'), { code: 'ERR_LOCKGUARD_UNKNOWN_PROJECT' });
});

test('a yarn.lock of neither yarn berry nor v1, a binary bun.lockb, no lockfile: ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE, naming what has slices', (t) => {
  const root = tempWorkspace(t, { 'package.json': '{"name":"root"}', 'yarn.lock': '# yarn\n' });
  assert.throws(() => projectSlices(root), { code: 'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE' });
  assert.throws(() => slicesFromLockfile(Buffer.from('x'), { lockfile: 'yarn.lock', root }), {
    code: 'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE',
  });
  const lockb = tempWorkspace(t, {
    'package.json': '{"name":"root"}',
    'bun.lockb': Buffer.from([0x23, 0x21, 0x2f, 0x00, 0x01]),
  });
  const formats = /pnpm-lock\.yaml.*package-lock\.json.*yarn\.lock \(yarn berry and yarn v1\) and bun\.lock \(text\)/;
  assert.throws(
    () => projectSlices(lockb),
    (error: Error & { code?: string; hint?: string }) =>
      error.code === 'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE' &&
      formats.test(error.message) &&
      /--save-text-lockfile/.test(error.hint ?? ''),
  );
  assert.throws(
    () => slicesFromLockfile(Buffer.from('x'), { lockfile: 'bun.lockb', root: lockb }),
    (error: Error & { code?: string }) =>
      error.code === 'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE' && formats.test(error.message),
  );
  const none = tempWorkspace(t, { 'package.json': '{"name":"root"}' });
  assert.throws(
    () => projectSlices(none),
    (error: Error & { code?: string }) =>
      error.code === 'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE' && formats.test(error.message),
  );
});

test('broken lockfiles are ERR_LOCKGUARD_BROKEN_LOCKFILE and the message never echoes their contents', () => {
  const secret = 'npm_SECRETTOKEN123';
  for (const [text, name] of [
    [`lockfileVersion: '9.0'\nimporters:\n  .:\n${secret}\n`, 'pnpm-lock.yaml'],
    [`{"lockfileVersion": 3, "x": "${secret}" `, 'package-lock.json'],
    [`{"lockfileVersion": 1, "dependencies": {"${secret}": {}}}`, 'package-lock.json'],
    [`{\n  "lockfileVersion": 1,\n  "workspaces": { ${secret} },\n}\n`, 'bun.lock'],
    [`{\n  "lockfileVersion": 1,\n  "${secret}": [,\n}\n`, 'bun.lock'],
    [`__metadata:\n  version: 8\n\n"a@npm:1":\n  dependencies:\n    ${secret}\n`, 'yarn.lock'],
    [`# yarn lockfile v1\n\n  ${secret} "1"\n`, 'yarn.lock'],
  ] as const) {
    assert.throws(
      () => slices(text, name),
      (error: Error & { code?: string }) =>
        error.code === 'ERR_LOCKGUARD_BROKEN_LOCKFILE' && !error.message.includes(secret),
    );
  }
});
