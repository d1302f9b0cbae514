// The yarn pre-run check's readers, on hand-made inputs in yarn's formats: the install state's checksum,
// PnP package locations (virtual paths resolved as yarn's VirtualFS does), .yarn-state.yml locations, yarn
// v1 lockfile resolutions, yarn's platform conditions. The real tools' files are checked end to end in
// test/e2e/yarn-bun.test.ts and test/e2e/install-check-yarn.test.ts.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { serialize } from 'node:v8';
import { gzipSync } from 'node:zlib';
import {
  classicResolutions,
  locatorLabel,
  nmLocations,
  nodeLinker,
  pnpLocations,
  splitPatterns,
  stateChecksum,
} from '../../../../lib/core/package-managers/yarn/install-check.js';
import {
  conditionHolds,
  skippedLocators,
  supportedArchitectures,
} from '../../../../lib/core/package-managers/yarn/conditions.js';

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

/** A PnP map's packageRegistryData as yarn 4 writes it in .pnp.cjs (every line ends in a backslash). */
function pnpMap(entries: readonly [string, readonly [string, string][]][]): Buffer {
  const lines = ['  "packageRegistryData": [\\'];
  for (const [name, references] of entries) {
    lines.push(`    [${JSON.stringify(name)}, [\\`);
    references.forEach(([reference, location], i) => {
      lines.push(
        `      [${JSON.stringify(reference)}, {\\`,
        `        "packageLocation": ${JSON.stringify(location)},\\`,
      );
      lines.push('        "packageDependencies": [\\', '          ["alias", ["real", "npm:1.0.0"]],\\');
      lines.push(`          [${JSON.stringify(name)}, ${JSON.stringify(reference)}]\\`, '        ],\\');
      lines.push(`        "linkType": "HARD"\\`, i === references.length - 1 ? '      }]\\' : '      }],\\');
    });
    lines.push('    ]],\\');
  }
  return Buffer.from(`${lines.join('\n')}\n  ]\n`);
}

test('pnpLocations: cache zips (virtual paths resolved), unplugged folders, each with its locator; workspaces and skipped platforms left out', () => {
  const pnp = pnpMap([
    ['root', [['workspace:.', './']]],
    ['a', [['workspace:packages/a', './packages/a/']]],
    ['dep', [['npm:1.0.0', './.yarn/cache/dep-npm-1.0.0-abc.zip/node_modules/dep/']]],
    [
      'peer',
      [
        ['npm:1.0.0', './.yarn/cache/peer-npm-1.0.0-abc.zip/node_modules/peer/'],
        [
          `virtual:${'e'.repeat(128)}#npm:2.0.0`,
          './.yarn/__virtual__/peer-virtual-0123/0/cache/peer-npm-2.0.0-def.zip/node_modules/peer/',
        ],
      ],
    ],
    [
      'g',
      [
        [
          'npm:1.0.0',
          './.yarn/__virtual__/g-virtual-4567/3/home/.yarn/berry/cache/g-npm-1.0.0-10c0.zip/node_modules/g/',
        ],
      ],
    ],
    [
      '@esbuild/linux-x64',
      [['npm:0.1.0', './.yarn/unplugged/@esbuild-linux-x64-npm-0.1.0-aaa/node_modules/@esbuild/linux-x64/']],
    ],
    [
      '@esbuild/aix-ppc64',
      [['npm:0.1.0', './.yarn/unplugged/@esbuild-aix-ppc64-npm-0.1.0-bbb/node_modules/@esbuild/aix-ppc64/']],
    ],
  ]);
  assert.deepEqual(
    pnpLocations(pnp, new Set(['@esbuild/aix-ppc64@npm:0.1.0'])).sort((x, y) => x.location.localeCompare(y.location)),
    [
      { location: '../../home/.yarn/berry/cache/g-npm-1.0.0-10c0.zip', locator: 'g@npm:1.0.0' },
      { location: '.yarn/cache/dep-npm-1.0.0-abc.zip', locator: 'dep@npm:1.0.0' },
      { location: '.yarn/cache/peer-npm-1.0.0-abc.zip', locator: 'peer@npm:1.0.0' },
      { location: '.yarn/cache/peer-npm-2.0.0-def.zip', locator: 'peer@npm:2.0.0' },
      { location: '.yarn/unplugged/@esbuild-linux-x64-npm-0.1.0-aaa', locator: '@esbuild/linux-x64@npm:0.1.0' },
    ],
  );
  assert.equal(pnpLocations(pnp).length, 6);
  assert.equal(locatorLabel('@esbuild/linux-x64@npm:0.1.0'), '@esbuild/linux-x64@0.1.0');
  assert.equal(locatorLabel(`zustand@virtual:${'e'.repeat(128)}#npm:5.0.5`), 'zustand@5.0.5');
});

test('nmLocations: locations with their locators, never an alias (a virtual locator, no path); nodeLinker', () => {
  const state = Buffer.from(
    `__metadata:\n  version: 1\n  nmMode: classic\n\n"a@workspace:packages/a":\n  locations:\n    - "node_modules/a"\n\n"dep@npm:1.0.0":\n  locations:\n    - "node_modules/dep"\n    - "packages/b/node_modules/dep"\n\n"z@virtual:${'a'.repeat(128)}#npm:5.0.5":\n  locations:\n    - "node_modules/z"\n  aliases:\n    - "virtual:${'b'.repeat(128)}#npm:5.0.5"\n  bin:\n    "node_modules/z":\n      "z": "cli.js"\n\n"root@workspace:.":\n  locations:\n    - ""\n`,
  );
  assert.deepEqual(nmLocations(state), [
    { location: 'node_modules/a', locator: 'a@workspace:packages/a' },
    { location: 'node_modules/dep', locator: 'dep@npm:1.0.0' },
    { location: 'packages/b/node_modules/dep', locator: 'dep@npm:1.0.0' },
    { location: 'node_modules/z', locator: 'z@npm:5.0.5' },
  ]);
  assert.equal(nodeLinker(undefined), 'pnp');
  assert.equal(nodeLinker(Buffer.from('enableTelemetry: false\nnodeLinker: "node-modules"\n')), 'node-modules');
});

test('yarn conditions: supportedArchitectures (current, block and flow lists) decide which platform packages install', () => {
  const here = supportedArchitectures(undefined);
  assert.deepEqual([here.os, here.cpu], [[process.platform], [process.arch]]);
  const wide = supportedArchitectures(
    Buffer.from(
      'nodeLinker: pnp\nsupportedArchitectures:\n  os:\n    - current\n    - "darwin"\n  cpu: [current, arm64]\n  libc: [glibc, musl]\nenableTelemetry: false\n',
    ),
  );
  assert.deepEqual(
    [wide.os, wide.cpu, wide.libc],
    [
      [process.platform, 'darwin'],
      [process.arch, 'arm64'],
      ['glibc', 'musl'],
    ],
  );
  const arch = { os: ['linux'], cpu: ['x64'], libc: ['glibc'] };
  assert.equal(conditionHolds('os=linux & cpu=x64', arch), true);
  assert.equal(conditionHolds('os=linux & cpu=arm64', arch), false);
  assert.equal(conditionHolds('(os=darwin | os=linux) & cpu=x64 & libc=glibc', arch), true);
  assert.equal(conditionHolds('os=linux & cpu=x64 & libc=musl', arch), false);
  assert.equal(conditionHolds('!os=win32', arch), true);
  assert.equal(conditionHolds('os=darwin', { ...arch, os: null }), true);
  const lock = Buffer.from(
    '__metadata:\n  version: 8\n\n"@e/linux-x64@npm:0.1.0":\n  version: 0.1.0\n  resolution: "@e/linux-x64@npm:0.1.0"\n  conditions: os=linux & cpu=x64\n  languageName: node\n\n"@e/darwin-arm64@npm:0.1.0":\n  version: 0.1.0\n  resolution: "@e/darwin-arm64@npm:0.1.0"\n  conditions: os=darwin & cpu=arm64\n  languageName: node\n',
  );
  assert.deepEqual([...skippedLocators(lock, arch)], ['@e/darwin-arm64@npm:0.1.0']);
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
