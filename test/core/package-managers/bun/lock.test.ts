// bun.lock's line reader against bun.lock read as JSON: the dependency names of every package line (the
// in-place scan of lines with no backslash, the escaped path, maps in any order, fields that only look like
// dependency maps), and the integrity and info the pre-run check reads, in bun's layout and read whole.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bunInfo, bunIntegrity, readBunLock, type BunLock } from '../../../../lib/core/package-managers/bun/lock.js';
import { parseBunLock } from '../../../helpers/slices-reach-yarn-bun.js';

const LOCK = `{
  "lockfileVersion": 1,
  "configVersion": 1,
  "workspaces": {
    "": {
      "name": "root",
      "dependencies": {
        "x": "^1.0.0",
      },
    },
    "packages/e": {
      "name": "e",
      "dependencies": {
        "d\\u0040x": "1",
        "q": "1",
      },
      "devDependencies": {
        "p": "*",
      },
    },
  },
  "packages": {
    "x": ["x@1.0.0", "", { "optionalDependencies": { "o": "1" }, "dependencies": { "d": "^1", "e": "2" }, "peerDependencies": { "p": "*" }, "peerDependenciesMeta": { "p": { "optional": true } }, "optionalPeers": ["p"], "bin": { "x": "dependencies.js" } }, "sha512-xAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="],

    "d": ["d@1.0.0", "", { "os": ["linux"], "cpu": ["x64"] }, "sha512-dAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="],

    "t": ["t@1.0.0", "", { "os": [ "linux", "android", ], "cpu": "arm64" }, "sha512-tAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="],

    "e": ["e@2.0.0", "", { "devDependencies": { "never": "1" }, "dependencies": {} }, "sha1-eAAAAAAAAAAAAAAAAAAAAAAAAAA="],

    "o": ["o@1.0.0", "", { "dependencies": { "d\\u0040x": "1", "q": "1" } }, "sha512-o\\u002bAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="],

    "p": ["p@1.0.0", "", {}],

    "q": ["q@1.0.0", "", {}, "sha512-qAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="],
  }
}
`;

/** What bun.lock as JSON says of each package: dependency names (dependencies, optional, peer), integrity, info. */
function oracle(text: string): Map<string, { deps: string[]; integrity: string | undefined; info: unknown }> {
  const out = new Map<string, { deps: string[]; integrity: string | undefined; info: unknown }>();
  for (const [key, tuple] of Object.entries(parseBunLock(text).packages)) {
    const info = tuple.slice(1).find((item) => item !== null && typeof item === 'object' && !Array.isArray(item)) as
      | Record<string, unknown>
      | undefined;
    const deps = ['dependencies', 'optionalDependencies', 'peerDependencies'].flatMap((field) =>
      Object.keys((info?.[field] ?? {}) as object),
    );
    const last = tuple.length > 1 ? tuple[tuple.length - 1] : undefined;
    const integrity = typeof last === 'string' && /^sha\d+-/.test(last) ? last : undefined;
    const platform = info !== undefined && ('os' in info || 'cpu' in info) ? info : undefined;
    out.set(key, { deps: deps.sort(), integrity, info: platform });
  }
  return out;
}

function ours(lock: BunLock): Map<string, { deps: string[]; integrity: string | undefined; info: unknown }> {
  return new Map(
    lock.packages.map((pkg) => [
      pkg.key,
      { deps: [...pkg.deps].sort(), integrity: bunIntegrity(pkg), info: bunInfo(pkg) },
    ]),
  );
}

test('package lines: dependency names, integrity and platform info are what bun.lock as JSON says', () => {
  const lock = readBunLock(LOCK, '/w/bun.lock');
  // The line layout was read (a package's text is its line's tuple, not canonical JSON).
  assert.ok(lock.packages[0]?.text.startsWith('["x@1.0.0", "", {'));
  assert.deepEqual(ours(lock), oracle(LOCK));
  assert.deepEqual(lock.packages.find((pkg) => pkg.key === 'o')?.deps, ['d@x', 'q'], 'escaped names are decoded');
  assert.equal(
    bunIntegrity(lock.packages.find((pkg) => pkg.key === 'o') as never),
    `sha512-o+${'A'.repeat(84)}==`,
    'an escaped integrity is decoded',
  );
  assert.deepEqual(
    lock.workspaces.map((workspace) => [workspace.path, workspace.name, workspace.deps]),
    [
      ['', 'root', ['x']],
      ['packages/e', 'e', ['d@x', 'q', 'p']],
    ],
  );
  // A workspace's text is its block as the file has it.
  assert.ok(LOCK.includes(`\n${lock.workspaces[1]?.text}\n`));
  assert.ok(lock.workspaces[1]?.text.startsWith('    "packages/e": {') && lock.workspaces[1]?.text.endsWith('    },'));
});

test('the same file in a layout bun does not write is read whole, with the same names, integrities and info', () => {
  const reflowed = LOCK.replace(
    '"q": ["q@1.0.0", "", {}, "sha512-qAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="]',
    '"q": ["q@1.0.0", "",\n      {}, "sha512-qAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="]',
  );
  assert.notEqual(reflowed, LOCK);
  const lock = readBunLock(reflowed, '/w/bun.lock');
  assert.ok(lock.packages[0]?.text.startsWith('["x@1.0.0","",{'), 'read whole: canonical JSON');
  assert.deepEqual(ours(lock), oracle(LOCK));
  assert.deepEqual(
    lock.workspaces.map((workspace) => workspace.deps),
    [['x'], ['d@x', 'q', 'p']],
  );
});

test('a package line that is not one flat dependency map in bun layout sends the file through the whole read', () => {
  for (const odd of [
    '{ "dependencies": { "d": 1 } }',
    '{ "dependencies": { "d":"1" } }',
    '{ "dependencies": { d: "1" } }',
  ]) {
    const text = LOCK.replace('{ "os": ["linux"], "cpu": ["x64"] }', odd);
    assert.notEqual(text, LOCK);
    // Read whole: either canonical texts, or a clear refusal for what is not JSON.
    try {
      const lock = readBunLock(text, '/w/bun.lock');
      assert.ok(
        lock.packages.every((pkg) => !pkg.text.includes('", "')),
        odd,
      );
    } catch (error) {
      assert.equal((error as { code?: string }).code, 'ERR_LOCKGUARD_BROKEN_LOCKFILE', odd);
    }
  }
});
