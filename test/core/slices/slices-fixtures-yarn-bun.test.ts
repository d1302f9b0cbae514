// yarn berry (jest), yarn v1 (webpack) and bun slices against an independent oracle: every importer reaches
// exactly what a naive walk over yarn's own parser (@yarnpkg/parsers parseSyml) or over bun.lock as JSON
// reaches, and a one-entry change changes exactly the slices that reach it.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { slicesFromLockfile, type LockfileSlices } from '../../../lib/core/slices/index.js';
import { graphReach } from '../../fuzz/oracle.js';
import { repoRoot } from '../../helpers/fixtures.js';
import { tempWorkspace } from '../../helpers/workspace.js';
import {
  bunReach,
  parseBunLock,
  parseSyml,
  yarnBerryReach,
  yarnClassicReach,
} from '../../helpers/slices-reach-yarn-bun.js';

const FIXTURES = join(repoRoot(), 'test', 'fixtures', 'lockfiles');

function changed(before: LockfileSlices, after: LockfileSlices): string[] {
  const old = new Map(before.slices.map((slice) => [slice.importer, slice.digest]));
  return after.slices
    .filter((slice) => old.get(slice.importer) !== slice.digest)
    .map((slice) => slice.importer)
    .sort();
}

/** The reached node that splits the importers most evenly. */
function splitter(reach: Map<string, Set<string>>, accept: (node: string) => boolean): string {
  const counts = new Map<string, number>();
  for (const nodes of reach.values())
    for (const node of nodes) if (accept(node)) counts.set(node, (counts.get(node) ?? 0) + 1);
  let best = '';
  let score = -1;
  for (const [node, count] of [...counts].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const s = Math.min(count, reach.size - count);
    if (s > score) [best, score] = [node, s];
  }
  assert.ok(score > 0, 'some entry is reached by some importers and not others');
  return best;
}

const berryName = (own: string): string => /^ {2}resolution: "?(.*?)"?$/m.exec(own)?.[1] ?? own.replace(/^leaf\n/, '');

test("yarn berry (jest): one slice per workspace, each reaching what yarn's own parser says", () => {
  const text = readFileSync(join(FIXTURES, 'yarn-berry-jest', 'yarn.lock'), 'utf8');
  const ours = slicesFromLockfile(Buffer.from(text), {
    lockfile: 'yarn.lock',
    root: join(FIXTURES, 'yarn-berry-jest'),
    names: false,
  });
  assert.equal(ours.format, 'yarn');
  const oracle = yarnBerryReach(parseSyml(text));
  assert.equal(ours.slices.length, 71);
  assert.deepEqual(ours.slices.map((slice) => slice.importer).sort(), [...oracle.keys()].sort());
  const reach = graphReach(ours, berryName);
  for (const [importer, nodes] of oracle)
    assert.deepEqual([...(reach.get(importer) ?? [])].sort(), [...nodes].sort(), importer);
  assert.ok(ours.slices.every((slice) => /^[0-9a-f]{64}$/.test(slice.digest)));
  assert.equal(new Set(ours.slices.map((slice) => slice.digest)).size, 71, 'distinct workspaces have distinct slices');
});

test("yarn berry (jest): changing one entry's checksum changes exactly the slices that reach it", () => {
  const text = readFileSync(join(FIXTURES, 'yarn-berry-jest', 'yarn.lock'), 'utf8');
  const root = join(FIXTURES, 'yarn-berry-jest');
  const oracle = yarnBerryReach(parseSyml(text));
  const target = splitter(oracle, (node) => !node.includes('@workspace:') && !node.startsWith('missing '));
  const header = text.indexOf(`  resolution: "${target}"`);
  assert.ok(header > 0, target);
  const checksum = text.indexOf('  checksum: ', header);
  const edited = `${text.slice(0, checksum + 12)}10/0${text.slice(checksum + 15)}`;
  assert.notEqual(edited, text);
  const before = slicesFromLockfile(Buffer.from(text), { lockfile: 'yarn.lock', root, names: false });
  const after = slicesFromLockfile(Buffer.from(edited), { lockfile: 'yarn.lock', root, names: false });
  const expected = [...oracle]
    .filter(([, nodes]) => nodes.has(target))
    .map(([importer]) => importer)
    .sort();
  assert.ok(expected.length > 0 && expected.length < oracle.size);
  assert.deepEqual(changed(before, after), expected);
});

test("yarn berry (jest): a dependency range moved to another entry changes exactly the dependents' slices", () => {
  const text = readFileSync(join(FIXTURES, 'yarn-berry-jest', 'yarn.lock'), 'utf8');
  const root = join(FIXTURES, 'yarn-berry-jest');
  // jest-util's entry: point one of its dependencies at a descriptor the lockfile lacks (a leaf).
  const at = text.indexOf('  resolution: "jest-util@workspace:packages/jest-util"');
  const deps = text.indexOf('  dependencies:\n', at);
  const line = text.indexOf('\n', deps + 17);
  const edited = `${text.slice(0, line)}\n    lockguard-missing: "npm:^1.0.0"${text.slice(line)}`;
  const before = slicesFromLockfile(Buffer.from(text), { lockfile: 'yarn.lock', root, names: false });
  const after = slicesFromLockfile(Buffer.from(edited), { lockfile: 'yarn.lock', root, names: false });
  const oracle = yarnBerryReach(parseSyml(text));
  const expected = [...oracle]
    .filter(([, nodes]) => nodes.has('jest-util@workspace:packages/jest-util'))
    .map(([importer]) => importer)
    .sort();
  assert.ok(expected.includes('packages/jest-util') && expected.length < oracle.size);
  assert.deepEqual(changed(before, after), expected);
  // The new leaf is reached exactly from there: the oracle agrees on the edited file too.
  const reach = graphReach(after, berryName);
  for (const [importer, nodes] of yarnBerryReach(parseSyml(edited)))
    assert.deepEqual([...(reach.get(importer) ?? [])].sort(), [...nodes].sort(), importer);
});

test("yarn v1 (webpack): the root reaches what yarn's own parser says, from package.json", () => {
  const root = join(FIXTURES, 'yarn-v1-webpack');
  const text = readFileSync(join(root, 'yarn.lock'), 'utf8');
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<
    string,
    Record<string, string> | undefined
  >;
  const ours = slicesFromLockfile(Buffer.from(text), { lockfile: 'yarn.lock', root });
  assert.deepEqual(
    ours.slices.map((slice) => [slice.importer, slice.name]),
    [['.', 'webpack']],
  );
  const deps = { ...manifest['dependencies'], ...manifest['devDependencies'], ...manifest['optionalDependencies'] };
  const oracle = yarnClassicReach(parseSyml(text), new Map([['.', { name: 'webpack', deps }]]));
  const reach = graphReach(ours, (own) =>
    own.startsWith('yarn-v1-workspace\n')
      ? `workspace ${own.split('\n')[1] ?? ''}`
      : own.startsWith('leaf\n')
        ? own.slice(5)
        : patternsOf(own),
  );
  assert.deepEqual([...(reach.get('.') ?? [])].sort(), [...(oracle.get('.') ?? [])].sort());
  assert.ok((oracle.get('.')?.size ?? 0) > 1000, 'webpack reaches most of its lockfile');
});

/** The sorted patterns of a v1 entry's own text (its key line). */
function patternsOf(own: string): string {
  const key = (own.split('\n')[1] ?? '').replace(/:$/, '');
  return (key.match(/"(?:[^"\\]|\\.)*"|[^,\s][^,]*/g) ?? [])
    .map((part) => part.trim().replace(/^"(.*)"$/, '$1'))
    .sort()
    .join(', ');
}

test("yarn v1 workspaces: importers come from the manifests' globs, links to other workspaces are followed", (t) => {
  const lock = `# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.
# yarn lockfile v1


"dep@file:vendor/dep-7.0.0.tgz":
  version "7.0.0"
  resolved "file:vendor/dep-7.0.0.tgz#25544741d9a0224d55895de349fed32358a2660e"

left-pad@^1.3.0:
  version "1.3.0"
  resolved "https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#5b8a3a7765dfe001261dde915589e782f8c94d1e"
  integrity sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQQ32FLQaYUAbEHSVbk1lEC9l5nglzIPpW9yiZZ9HbYHdPQ8A==
`;
  const root = tempWorkspace(t, {
    'package.json': JSON.stringify({ name: 'root', private: true, workspaces: ['packages/*', '!packages/skipped'] }),
    'yarn.lock': lock,
    packages: {
      a: { 'package.json': JSON.stringify({ name: 'a', version: '1.0.0', devDependencies: { 'left-pad': '^1.3.0' } }) },
      b: {
        'package.json': JSON.stringify({
          name: 'b',
          version: '1.0.0',
          dependencies: { a: '1.0.0', dep: 'file:../../vendor/dep-7.0.0.tgz' },
        }),
      },
      c: { 'package.json': JSON.stringify({ name: 'c', version: '1.0.0' }) },
      skipped: { 'package.json': JSON.stringify({ name: 'skipped', version: '1.0.0' }) },
      'no-manifest': {},
    },
  });
  const before = slicesFromLockfile(Buffer.from(lock), { lockfile: 'yarn.lock', root });
  assert.deepEqual(
    before.slices.map((slice) => [slice.importer, slice.name]),
    [
      ['.', 'root'],
      ['packages/a', 'a'],
      ['packages/b', 'b'],
      ['packages/c', 'c'],
    ],
  );
  const after = slicesFromLockfile(Buffer.from(lock.replace('left-pad-1.3.0.tgz#5b8a', 'left-pad-1.3.0.tgz#5b8b')), {
    lockfile: 'yarn.lock',
    root,
  });
  // left-pad is a's (dev) dependency, and b links a: exactly a and b move.
  assert.deepEqual(changed(before, after), ['packages/a', 'packages/b']);
  const dep = slicesFromLockfile(Buffer.from(lock.replace('dep-7.0.0.tgz#2554', 'dep-7.0.0.tgz#2555')), {
    lockfile: 'yarn.lock',
    root,
  });
  assert.deepEqual(
    changed(before, dep),
    ['packages/b'],
    'the file: range written relative to packages/b resolves to the root-relative entry',
  );
});

/** JSON with object keys sorted (so a tuple is named the same however its object was written). */
function canon(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}

/** Names our bun nodes as bunIds names the oracle's: `workspace <folder>`, or the tuple as JSON. */
function bunKeyOf(slices: LockfileSlices): (own: string) => string {
  void slices;
  return (own: string): string => {
    if (!own.startsWith('bun-workspace\n')) return canon(JSON.parse(own.slice(4)));
    const head = own.split('\n')[1] ?? '';
    return `workspace ${/^ {4}"(.*)": \{/.exec(head)?.[1] ?? /^\{"(.*?)":/.exec(head)?.[1] ?? ''}`;
  };
}

/** The oracle's reach with package keys replaced by their tuples as JSON (what a package is, wherever hoisted). */
function bunIds(text: string): Map<string, Set<string>> {
  const lock = parseBunLock(text);
  const out = new Map<string, Set<string>>();
  for (const [importer, nodes] of bunReach(lock))
    out.set(
      importer,
      new Set([...nodes].map((node) => (node.startsWith('workspace ') ? node : canon(lock.packages[node])))),
    );
  return out;
}

const BUN_LOCK = `{
  "lockfileVersion": 1,
  "configVersion": 1,
  "workspaces": {
    "": {
      "name": "root",
      "devDependencies": {
        "x": "^1.0.0",
      },
    },
    "packages/a": {
      "name": "a",
      "version": "1.0.0",
      "dependencies": {
        "dep": "7.0.0",
      },
    },
    "packages/b": {
      "name": "b",
      "version": "1.0.0",
      "dependencies": {
        "a": "workspace:*",
        "dep": "6.0.0",
      },
      "peerDependencies": {
        "dep": "*",
      },
    },
    "packages/c": {
      "name": "@s/c",
      "version": "1.0.0",
      "dependencies": {
        "@t/u": "^2.0.0",
      },
    },
  },
  "overrides": {
    "unused": "1.0.0",
  },
  "packages": {
    "@s/c": ["@s/c@workspace:packages/c"],

    "@t/u": ["@t/u@2.0.0", "", { "dependencies": { "dep": "^7" } }, "sha512-uAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="],

    "a": ["a@workspace:packages/a"],

    "b": ["b@workspace:packages/b"],

    "dep": ["dep@7.0.0", "", {}, "sha512-sevenAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="],

    "x": ["x@1.0.0", "", { "dependencies": { "dep": "6.0.0" }, "optionalDependencies": { "other": "1.0.0" }, "bin": { "x": "x.js" } }, "sha512-xAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="],

    "b/dep": ["dep@6.0.0", "", {}, "sha512-sixAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="],

    "x/dep": ["dep@6.0.0", "", {}, "sha512-sixAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="],
  }
}
`;

test('bun.lock: workspaces reach what a walk over bun.lock as JSON reaches (nested keys, scoped names, workspace links)', () => {
  const ours = slicesFromLockfile(Buffer.from(BUN_LOCK), { lockfile: 'bun.lock', root: '/nonexistent', names: false });
  assert.equal(ours.format, 'bun');
  assert.deepEqual(
    ours.slices.map((slice) => slice.importer),
    ['.', 'packages/a', 'packages/b', 'packages/c'],
  );
  const reach = graphReach(ours, bunKeyOf(ours));
  for (const [importer, nodes] of bunIds(BUN_LOCK))
    assert.deepEqual([...(reach.get(importer) ?? [])].sort(), [...nodes].sort(), importer);
  assert.deepEqual([...(bunReach(parseBunLock(BUN_LOCK)).get('packages/b') ?? [])].sort(), [
    'b/dep',
    'dep',
    'workspace packages/a',
    'workspace packages/b',
  ]);
  // One package line changes: exactly its reachers move; the overrides block moves nothing.
  const edited = slicesFromLockfile(
    Buffer.from(
      BUN_LOCK.replace(
        '"sha512-sevenAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="',
        '"sha512-seven2AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="',
      ),
    ),
    { lockfile: 'bun.lock', root: '/nonexistent', names: false },
  );
  assert.deepEqual(changed(ours, edited), ['packages/a', 'packages/b', 'packages/c']);
  const nested = slicesFromLockfile(
    Buffer.from(
      BUN_LOCK.replace(
        '"x/dep": ["dep@6.0.0", "", {}, "sha512-sixAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="]',
        '"x/dep": ["dep@6.0.1", "", {}, "sha512-six1AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="]',
      ),
    ),
    { lockfile: 'bun.lock', root: '/nonexistent', names: false },
  );
  assert.deepEqual(changed(ours, nested), ['.']);
  const overrides = slicesFromLockfile(Buffer.from(BUN_LOCK.replace('"unused": "1.0.0"', '"unused": "2.0.0"')), {
    lockfile: 'bun.lock',
    root: '/nonexistent',
    names: false,
  });
  assert.deepEqual(changed(ours, overrides), []);
  // The same package hoisted under another key (dep 7.0.0 moves from `dep` to `a/dep`, 6.0.0 up to `dep`):
  // what each workspace reaches is the same packages, so no slice moves... except where the reach changed.
  const rehoisted = BUN_LOCK.replace(
    '"dep": ["dep@7.0.0", "", {}, "sha512-sevenAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="],',
    '"dep": ["dep@6.0.0", "", {}, "sha512-sixAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="],',
  ).replace(
    '"b/dep": ["dep@6.0.0", "", {}, "sha512-sixAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="],',
    '"a/dep": ["dep@7.0.0", "", {}, "sha512-sevenAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="],\n\n    "@t/u/dep": ["dep@7.0.0", "", {}, "sha512-sevenAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="],',
  );
  const moved = slicesFromLockfile(Buffer.from(rehoisted), {
    lockfile: 'bun.lock',
    root: '/nonexistent',
    names: false,
  });
  for (const [importer, nodes] of bunIds(rehoisted))
    assert.deepEqual([...(graphReach(moved, bunKeyOf(moved)).get(importer) ?? [])].sort(), [...nodes].sort(), importer);
  assert.deepEqual(changed(ours, moved), [], 'every workspace reaches the same tuples as before');
});

test('bun.lock in a layout bun does not write (one package over several lines) is read whole, with the same reach', () => {
  const reflowed = BUN_LOCK.replace(
    '"x": ["x@1.0.0", "", { "dependencies": { "dep": "6.0.0" }, ',
    '"x": ["x@1.0.0", "",\n      { "dependencies": { "dep": "6.0.0" }, ',
  );
  assert.notEqual(reflowed, BUN_LOCK);
  const ours = slicesFromLockfile(Buffer.from(reflowed), { lockfile: 'bun.lock', root: '/nonexistent', names: false });
  const reach = graphReach(ours, bunKeyOf(ours));
  for (const [importer, nodes] of bunIds(reflowed))
    assert.deepEqual([...(reach.get(importer) ?? [])].sort(), [...nodes].sort(), importer);
});
