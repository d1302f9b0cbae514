// Design B's measurement (reach-scan-code.ts, reach-design-b.ts, the map reach-phantoms.tsv): the static scan
// finds the names a package's code requires and those it does not declare, counts computed requires, and the
// fold per project moves exactly when an entry one of its phantom names resolves to moves (issue 29's
// scenario: phantom-x requires tiny-dep undeclared, b bumps tiny-dep), and not for an unrelated entry.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { slicesFromLockfile } from '../../lib/core/slices/slices.js';
import { repoRoot } from '../helpers/fixtures.js';
import { designBFolds, loadPhantoms, type Phantoms, workspaceNames } from './reach-design-b.js';
import { designBPass } from './reach-design-b-pass.js';
import { computedRequires, requiredNames, scanPackage } from './reach-scan-code.js';
import { registryPackages, tarballUrl } from './reach-scan.js';

test('the scan: literal requires and imports name packages; relative, builtin and scheme specifiers do not', () => {
  const source = [
    "import a from 'x'; import { b } from \"@s/y/sub\"; import 'z'; export * from 'w';",
    "const fs = require('fs'); require(`t`); import('u'); __require(\"es\"); obj.require('not-this');",
    "require.resolve('rr/package.json'); import r from './rel'; import n from 'node:path'; import v from 'virtual:v';",
    "import type { T } from 'types-only'; require('fs/promises'); import.meta.resolve('mr');",
  ].join('\n');
  assert.deepEqual([...requiredNames(source)].sort(), ['@s/y', 'es', 'mr', 'rr', 't', 'u', 'w', 'x', 'z']);
  // Computed: require(x), import(y), require.resolve(p), a template with ${}, import.meta.resolve(spec); not a
  // definition, not literals.
  const computed =
    "require(x); require('a'); import(y); function require(n) {}; require.resolve(p); require(`a${b}`); import.meta.resolve(spec)";
  assert.equal(computedRequires(computed), 5);
});

test('scanPackage: undeclared = required minus dependencies, optional, peers, bundled, itself', () => {
  const file = (path: string, text: string) => ({ path, bytes: Buffer.from(text) });
  const manifest = {
    name: 'phantom-x',
    dependencies: { dep: '1' },
    optionalDependencies: { opt: '1' },
    peerDependencies: { peer: '1' },
  };
  const scan = scanPackage('phantom-x@1.0.0', [
    file('package.json', JSON.stringify(manifest)),
    file('index.js', "require('dep'); require('opt'); require('peer'); require('tiny-dep'); require('phantom-x/sub');"),
    file('lib/more.mjs', "import b from 'bundled'; const m = await import(name);"),
    file('types.d.ts', "import t from 'only-in-types';"),
    file('node_modules/bundled/index.js', "require('inside-bundle')"),
  ]);
  assert.deepEqual(scan.undeclared, ['inside-bundle', 'tiny-dep']);
  assert.deepEqual(scan.peersRequired, ['peer']);
  assert.equal(scan.dynamicFiles, 1);
});

const lockfile = (tinyForB: string, otherForC: string): string => `lockfileVersion: '9.0'

importers:

  .: {}

  packages/a:
    dependencies:
      phantom-x:
        specifier: 1.0.0
        version: 1.0.0
      w:
        specifier: workspace:*
        version: link:../w

  packages/b:
    dependencies:
      tiny-dep:
        specifier: ${tinyForB}
        version: ${tinyForB}

  packages/c:
    dependencies:
      other:
        specifier: ${otherForC}
        version: ${otherForC}

  packages/w: {}

packages:

  other@${otherForC}:
    resolution: {integrity: sha512-other${otherForC}}

  phantom-x@1.0.0:
    resolution: {integrity: sha512-phantom}

  tiny-dep@${tinyForB}:
    resolution: {integrity: sha512-tiny${tinyForB}}

snapshots:

  other@${otherForC}: {}

  phantom-x@1.0.0: {}

  tiny-dep@${tinyForB}: {}
`;

const MAP = new Map<string, Phantoms>([
  ['phantom-x@1.0.0', { undeclared: ['tiny-dep'], peers: [], dynamic: 0 }],
  ['tiny-dep@7.0.0', { undeclared: [], peers: [], dynamic: 0 }],
  ['tiny-dep@6.0.0', { undeclared: [], peers: [], dynamic: 0 }],
  ['other@1.0.0', { undeclared: [], peers: [], dynamic: 1 }],
  ['other@2.0.0', { undeclared: [], peers: [], dynamic: 1 }],
]);

function folds(text: string) {
  const sliced = slicesFromLockfile(Buffer.from(text), {
    lockfile: 'pnpm-lock.yaml',
    root: '/nonexistent',
    names: false,
  });
  const walk = designBFolds(sliced, MAP, text);
  // The one-pass fold (what the bench runs) gives the same as the walk per project.
  const pass = designBPass(sliced, MAP, text);
  for (const variant of ['plain', 'computed', 'codeless', 'unknown', 'dynamic'] as const)
    assert.deepEqual([...pass[variant]].sort(), [...walk[variant]].sort(), variant);
  return walk;
}

test('design B: a phantom require folds every version of the name; an unrelated bump moves only its project', () => {
  const before = folds(lockfile('7.0.0', '1.0.0'));
  const bumpB = folds(lockfile('6.0.0', '1.0.0'));
  const bumpC = folds(lockfile('7.0.0', '2.0.0'));
  assert.equal(workspaceNames(lockfile('7.0.0', '1.0.0')).get('w'), 'packages/w');
  // b's tiny-dep moves: a (whose phantom-x requires tiny-dep) moves under B; c, whose closure requires no
  // phantom, folds nothing.
  assert.notEqual(before.plain.get('packages/a'), undefined);
  assert.notEqual(before.plain.get('packages/a'), bumpB.plain.get('packages/a'));
  assert.equal(before.plain.get('packages/c'), undefined);
  assert.equal(bumpB.plain.get('packages/c'), undefined);
  // c's own entry moves: a's B fold does not (design A's pool would have moved it).
  assert.equal(before.plain.get('packages/a'), bumpC.plain.get('packages/a'));
  // The computed variant folds the whole pool for c (its package has a computed require), not for a.
  assert.deepEqual([...before.dynamic], ['packages/c']);
  assert.notEqual(before.computed.get('packages/c'), bumpB.computed.get('packages/c'));
  assert.equal(before.computed.get('packages/a'), before.plain.get('packages/a'));
});

test('design B: a package the map does not know folds the whole pool', () => {
  const text = lockfile('7.0.0', '3.0.0');
  const result = folds(text);
  assert.deepEqual([...result.unknown], ['packages/c']);
  const sliced = slicesFromLockfile(Buffer.from(text), {
    lockfile: 'pnpm-lock.yaml',
    root: '/nonexistent',
    names: false,
  });
  assert.equal(result.plain.get('packages/c'), sliced.pool);
  // The estimate reads an unreadable registry version as code-free: c folds nothing there.
  assert.equal(result.codeless.get('packages/c'), undefined);
});

test('the committed map: every registry package of the histories it names, in its own format', () => {
  const map = loadPhantoms(join(repoRoot(), 'test', 'bench', 'reach-phantoms.tsv'));
  assert.ok(map.size > 3000, `map holds ${map.size}`);
  assert.deepEqual(map.get('debug@4.4.3')?.undeclared, ['supports-color']);
  assert.equal(tarballUrl('@vue/shared@3.5.0'), 'https://registry.npmjs.org/@vue/shared/-/shared-3.5.0.tgz');
  const text = readFileSync(join(repoRoot(), 'test', 'bench', 'reach-phantoms.tsv'), 'utf8');
  assert.match(text, /^# lockguard reach-phantoms\/1/);
  assert.deepEqual(
    [
      ...registryPackages(
        `lockfileVersion: '9.0'\n\npackages:\n\n  a@1.0.0:\n    resolution: {integrity: sha512-AA==}\n\n  b@file:x:\n    resolution: {directory: x, type: directory}\n\nsnapshots:\n`,
      ),
    ],
    [['a@1.0.0', 'sha512-AA==']],
  );
});
