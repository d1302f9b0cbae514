// The yarn pre-run check's readers, on hand-made inputs in yarn's formats: the install state's checksum,
// PnP package locations (virtual paths resolved as yarn's VirtualFS does), .yarn-state.yml locations, yarn
// v1 lockfile resolutions. The real tools' files are checked end to end in test/e2e/yarn-bun.test.ts.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { serialize } from 'node:v8';
import { gzipSync } from 'node:zlib';
import {
  classicResolutions,
  nmLocations,
  nodeLinker,
  pnpLocations,
  splitPatterns,
  stateChecksum,
} from '../../lib/core/install-check-yarn.js';

test('stateChecksum reads lockFileChecksum out of a gzipped v8-serialized install state (as yarn writes it)', () => {
  const lock = Buffer.from('__metadata:\n  version: 8\n');
  const checksum = createHash('sha512').update('3').update(lock).digest('hex');
  const state = gzipSync(
    serialize({ linkersCustomData: new Map(), lockFileChecksum: checksum, storedPackages: new Map() }),
  );
  assert.equal(stateChecksum(state), checksum);
  assert.equal(stateChecksum(gzipSync(serialize({ other: 1 }))), undefined);
  assert.equal(stateChecksum(Buffer.from('not gzip')), undefined);
});

test('pnpLocations: cache zips (virtual paths resolved), unplugged folders; workspaces skipped', () => {
  const pnp = Buffer.from(
    [
      '"packageLocation": "./",\\',
      '"packageLocation": "./packages/a/",\\',
      '"packageLocation": "./.yarn/cache/dep-npm-1.0.0-abc.zip/node_modules/dep/",\\',
      '"packageLocation": "./.yarn/__virtual__/peer-virtual-0123/0/cache/peer-npm-2.0.0-def.zip/node_modules/peer/",\\',
      '"packageLocation": "./.yarn/__virtual__/g-virtual-4567/3/home/.yarn/berry/cache/g-npm-1.0.0-10c0.zip/node_modules/g/",\\',
      '"packageLocation": "./.yarn/unplugged/esbuild-npm-0.1.0-aaa/node_modules/esbuild/",\\',
    ].join('\n'),
  );
  assert.deepEqual(
    pnpLocations(pnp).sort(),
    [
      '../../home/.yarn/berry/cache/g-npm-1.0.0-10c0.zip',
      '.yarn/cache/dep-npm-1.0.0-abc.zip',
      '.yarn/cache/peer-npm-2.0.0-def.zip',
      '.yarn/unplugged/esbuild-npm-0.1.0-aaa',
    ].sort(),
  );
});

test('nmLocations, nodeLinker', () => {
  const state = Buffer.from(
    '__metadata:\n  version: 1\n  nmMode: classic\n\n"a@workspace:packages/a":\n  locations:\n    - "node_modules/a"\n\n"dep@npm:1.0.0":\n  locations:\n    - "node_modules/dep"\n    - "packages/b/node_modules/dep"\n\n"root@workspace:.":\n  locations:\n    - ""\n',
  );
  assert.deepEqual(nmLocations(state), ['node_modules/a', 'node_modules/dep', 'packages/b/node_modules/dep']);
  assert.equal(nodeLinker(undefined), 'pnp');
  assert.equal(nodeLinker(Buffer.from('enableTelemetry: false\nnodeLinker: "node-modules"\n')), 'node-modules');
});

test('classicResolutions: every pattern of an entry maps to its resolved (quoted and plain keys)', () => {
  const text =
    '# yarn lockfile v1\n\n\n"@s/a@^1.0.0", "@s/a@^1.1.0":\n  version "1.1.0"\n  resolved "https://r/@s/a-1.1.0.tgz#aa"\n\nb@^2, b@^2.1:\n  version "2.1.0"\n  resolved "https://r/b-2.1.0.tgz#bb"\n  dependencies:\n    "@s/a" "^1.0.0"\n\nlinked@file:../x:\n  version "0.0.0"\n';
  assert.deepEqual(
    [...classicResolutions(text)],
    [
      ['@s/a@^1.0.0', 'https://r/@s/a-1.1.0.tgz#aa'],
      ['@s/a@^1.1.0', 'https://r/@s/a-1.1.0.tgz#aa'],
      ['b@^2', 'https://r/b-2.1.0.tgz#bb'],
      ['b@^2.1', 'https://r/b-2.1.0.tgz#bb'],
      ['linked@file:../x', ''],
    ],
  );
  assert.deepEqual(splitPatterns('"a@^1", b@2'), ['a@^1', 'b@2']);
});
