// bun.lock's check against what the real bun 1.4.5 does with the same bytes (measured with `bun install
// --frozen-lockfile` on the lockfile it wrote, test/fixtures/lockfiles/bun-workspace): every mutant bun cannot
// read ("failed to parse lockfile") is refused, the fast path included; what bun reads as written (comments,
// trailing commas or none, CRLF, a BOM, any indentation) is read, with the same reach.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { slicesFromLockfile, type LockfileSlices } from '../../../../lib/core/slices/index.js';
import { fixturesDir } from '../../../helpers/fixtures.js';

const GOOD = readFileSync(join(fixturesDir(), 'bun-workspace', 'bun.lock'), 'utf8');
const DEP = '"dep": ["dep@../../vendor/dep-7.0.0.tgz", {}, "sha512-';

function read(text: string): LockfileSlices {
  return slicesFromLockfile(Buffer.from(text), { lockfile: 'bun.lock', root: '/nonexistent', names: false });
}

function codeOf(text: string): string | undefined {
  try {
    read(text);
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

function edit(from: string, to: string): string {
  assert.ok(GOOD.includes(from), from);
  return GOOD.replace(from, to);
}

/** Per importer, the own texts of the packages it reaches (what a slice folds), sorted. */
function reach(slices: LockfileSlices): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [importer, start] of slices.graph.importers) {
    const seen = new Set([start]);
    const todo = [start];
    while (todo.length > 0)
      for (const next of slices.graph.edges[todo.pop() as number] ?? [])
        if (!seen.has(next)) seen.add(next), todo.push(next);
    out[importer] = [...seen].map((node) => (slices.graph.own[node] ?? '').split('\n')[0] ?? '').sort();
  }
  return out;
}

// What bun 1.4.5 printed for each: "Unexpected ...", "Expected "," but found ...", "Syntax Error", "Expected an
// object / array / a string", "Missing package info", "Invalid lockfile version", "Duplicate key" (then the
// first wins: an empty "packages" first leaves no packages), "Failed to resolve prod dependency", "Unexpected
// resolution", "Unsupported or malformed integrity hash", "Expected a string name property", "Invalid semver".
const BROKEN: Readonly<Record<string, string>> = {
  'a word inside a package': edit(DEP, '"dep": ["dep@../../vendor/dep-7.0.0.tgz", {}, foo, "sha512-'),
  'a word after a package name': edit('"a": ["a@workspace:packages/a"]', '"a": ["a@workspace:packages/a" foo]'),
  'a missing comma': edit(DEP, '"dep": ["dep@../../vendor/dep-7.0.0.tgz" {}, "sha512-'),
  'a doubled comma': edit(DEP, '"dep": ["dep@../../vendor/dep-7.0.0.tgz",, {}, "sha512-'),
  'null in a package': edit(DEP, '"dep": ["dep@../../vendor/dep-7.0.0.tgz", null, "sha512-'),
  'an empty "packages" block before the real one': edit('  "packages": {', '  "packages": {},\n  "packages": {'),
  'an empty "workspaces" block before the real one': edit(
    '  "workspaces": {',
    '  "workspaces": {},\n  "workspaces": {',
  ),
  'a package key twice': edit(
    '    "c": ["c@workspace:packages/c"],',
    '    "c": ["x@workspace:packages/c"],\n\n    "c": ["c@workspace:packages/c"],',
  ),
  'a package key twice, in a file read whole (a comment)': edit(
    '    "c": ["c@workspace:packages/c"],',
    '    // c\n    "c": ["x@workspace:packages/c"],\n\n    "c": ["c@workspace:packages/c"],',
  ),
  'a workspace twice, in a file read whole (a comment)': edit(
    '    "packages/a": {',
    '    // a\n    "packages/a": {\n      "name": "zz",\n    },\n    "packages/a": {',
  ),
  'a workspace twice': edit(
    '    "packages/a": {',
    '    "packages/a": {\n      "name": "zz",\n    },\n    "packages/a": {',
  ),
  'a top-level key twice': edit('  "configVersion": 1,', '  "configVersion": 1,\n  "lockfileVersion": 2,'),
  'a dependency twice': edit('        "a": "workspace:*",', '        "a": "workspace:*",\n        "a": "workspace:*",'),
  'a key twice inside a package': edit('{}, "sha512-', '{ "bin": {}, "bin": {} }, "sha512-'),
  'a doubled trailing comma': edit('"a": ["a@workspace:packages/a"],', '"a": ["a@workspace:packages/a"],,'),
  'a NUL in a string': edit('"name": "root"', '"name": "ro\0ot"'),
  'a NUL between members': edit('  "packages": {', '\0  "packages": {'),
  'a tab in a string': edit('"name": "root"', '"name": "ro\tot"'),
  'an unknown escape': edit('"name": "root"', '"name": "ro\\qot"'),
  'an unquoted key': edit('"a": ["a@workspace:packages/a"]', 'a: ["a@workspace:packages/a"]'),
  'a package that is an object': edit('"a": ["a@workspace:packages/a"]', '"a": {"x": 1}'),
  'an empty package': edit('"a": ["a@workspace:packages/a"]', '"a": []'),
  'a package that starts with a number': edit('"a": ["a@workspace:packages/a"]', '"a": [1]'),
  'a dependency map that is an array': edit(
    DEP,
    '"dep": ["dep@../../vendor/dep-7.0.0.tgz", { "dependencies": [] }, "sha512-',
  ),
  'a dependency range that is a number': edit(
    DEP,
    '"dep": ["dep@../../vendor/dep-7.0.0.tgz", { "dependencies": { "x": 1 } }, "sha512-',
  ),
  'a string lockfileVersion': edit('"lockfileVersion": 2', '"lockfileVersion": "2"'),
  'no lockfileVersion': edit('  "lockfileVersion": 2,\n', ''),
  NaN: edit('"lockfileVersion": 2', '"lockfileVersion": NaN'),
  'a configVersion that is an array': edit('"configVersion": 1', '"configVersion": []'),
  'a workspaces array': edit('"workspaces": {', '"workspaces": ['),
  'a dependency no package resolves': edit('"dep": ["dep@', '"c/dep": ["dep@'),
  'a dev dependency no package resolves': edit(
    '"name": "a",',
    '"name": "a",\n      "devDependencies": {\n        "nope": "1",\n      },',
  ),
  'a resolution bun cannot read': edit('"dep@../../vendor/dep-7.0.0.tgz"', '"dep@../../vendor/dep-7.0.0.}tgz"'),
  'a malformed integrity': edit('"sha512-w06h52Xa9ma', '"sha512-w06h52Xa9m!'),
  'an integrity one character short': edit('0JjZUvnLerMy58bsA=="', '0JZUvnLerMy58bsA=="'),
  'a workspace without its name': edit('      "name": "a",\n', '      "n5ame": "a",\n'),
  'a workspace version that is not one': edit(
    '"version": "1.0.0",\n    },\n    "packages/b"',
    '"version": "1.a0.0",\n    },\n    "packages/b"',
  ),
  'a truncation': GOOD.slice(0, -30),
};

for (const [name, text] of Object.entries(BROKEN)) {
  test(`bun.lock: refused as bun refuses it: ${name}`, () => {
    assert.notEqual(text, GOOD);
    assert.equal(codeOf(text), 'ERR_LOCKGUARD_BROKEN_LOCKFILE', name);
  });
}

test('bun.lock: what bun reads but never writes is refused as a form lockguard does not read (single quotes, a hex number, text after the object)', () => {
  for (const text of [
    edit('"a": ["a@workspace:packages/a"]', "'a': ['a@workspace:packages/a']"),
    edit('"lockfileVersion": 2', '"lockfileVersion": 0x2'),
    `${GOOD.trimEnd()}\n{}\n`,
  ]) {
    assert.equal(codeOf(text), 'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE');
  }
});

test('bun.lock: what bun reads as written is read, with the same reach (comments, no trailing commas, CRLF, a BOM, other indentation, an optional dependency missing)', () => {
  const good = reach(read(GOOD));
  assert.deepEqual(Object.keys(good).sort(), ['.', 'packages/a', 'packages/b', 'packages/c']);
  const variants = [
    edit('  "packages": {', '  // a comment\n  "packages": {'),
    edit('  "packages": {', '  /* a comment */\n  "packages": {'),
    GOOD.replace(/,(\s*[}\]])/g, '$1'),
    edit('"a": ["a@workspace:packages/a"]', '"a": ["a@workspace:packages/a",]'),
    GOOD.replaceAll('\n', '\r\n'),
    `\uFEFF${GOOD}`,
    edit('    "a": ["a@workspace:packages/a"]', '"a": ["a@workspace:packages/a"]'),
    edit(DEP, '"dep": ["dep@../../vendor/dep-7.0.0.tgz",\n {}, "sha512-'),
  ];
  for (const text of variants) {
    const read2 = read(text);
    // A tuple read whole is canonical JSON: compare what each importer reaches by its package names.
    const names = (r: Record<string, string[]>): Record<string, number> =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.length]));
    assert.deepEqual(names(reach(read2)), names(good));
  }
  // The fast path and bun agree byte for byte on bun's own layout: the same digests with or without a BOM.
  assert.deepEqual(read(`\uFEFF${GOOD}`).slices, read(GOOD).slices);
  assert.equal(
    codeOf(edit('"name": "a",', '"name": "a",\n      "optionalDependencies": {\n        "nope": "1",\n      },')),
    undefined,
  );
});
