// yarn v1's reader against what the real yarn 1.22.22 does (measured with `yarn install --frozen-lockfile` on
// the lockfile it wrote, test/fixtures/lockfiles/yarn-v1-workspace): what yarn 1's own parser refuses is
// refused (yarn then tries YAML, a layout it never writes); what it reads, lockguard reads as it does (a key
// twice keeps its last value); workspace globs and symlinks out of the root read no manifest there.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { slicesFromLockfile } from '../../../../lib/core/slices/index.js';
import { fixturesDir } from '../../../helpers/fixtures.js';
import { tempWorkspace } from '../../../helpers/workspace.js';

const GOOD = readFileSync(join(fixturesDir(), 'yarn-v1-workspace', 'yarn.lock'), 'utf8');

function codeOf(text: string, root = '/nonexistent'): string | undefined {
  try {
    slicesFromLockfile(Buffer.from(text), { lockfile: 'yarn.lock', root, names: false });
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

function edit(from: string, to: string): string {
  assert.ok(GOOD.includes(from), from);
  return GOOD.replace(from, to);
}

// yarn 1.22.22: "SyntaxError: Unknown token", "Invalid value type", "TypeError: Invalid number of spaces",
// "Can't add "dep": invalid package version"; the rest it read only as YAML (never its own layout).
const REFUSED: Readonly<Record<string, string>> = {
  'a tab for indentation': edit('  uid', '\tuid'),
  'a NUL in a string': edit('version "7.0.0"', 'version "7.0\0.0"'),
  'a control character in a string': edit('version "7.0.0"', 'version "7.0\x01.0"'),
  'a key without its colon': edit('"dep@file:vendor/dep-7.0.0.tgz":', '"dep@file:vendor/dep-7.0.0.tgz"'),
  'a version that is a boolean': edit('version "7.0.0"', 'version true'),
  'a version that is a number': edit('version "7.0.0"', 'version 7'),
  'no version': edit('  version "7.0.0"\n', ''),
  'a dependency indented 3 spaces': edit('  resolved', '  dependencies:\n   foo "^1"\n  resolved'),
  'a field indented 3 spaces (yarn reads the file as YAML)': edit('  uid', '   uid'),
  'a blank line inside an entry (yarn stops reading there)': edit('  uid', '\n  uid'),
  'a value yarn cannot tokenize': edit('version "7.0.0"', "version '7.0.0'"),
  'an unclosed string': edit('version "7.0.0"', 'version "7.0.0'),
};

for (const [name, text] of Object.entries(REFUSED)) {
  test(`yarn v1: refused: ${name}`, () => {
    assert.equal(codeOf(text), 'ERR_LOCKGUARD_BROKEN_LOCKFILE', name);
  });
}

test('yarn v1: read as yarn 1 reads it: CRLF, a BOM, comments, a field given twice keeps its last value', () => {
  const at = (text: string): readonly string[] =>
    slicesFromLockfile(Buffer.from(text), { lockfile: 'yarn.lock', root: '/nonexistent', names: false }).graph.own;
  const good = at(GOOD);
  assert.deepEqual(at(GOOD.replaceAll('\n', '\r\n')), good);
  assert.deepEqual(at(`\uFEFF${GOOD}`), good);
  assert.equal(codeOf(edit('  uid', '  # a comment\n  uid')), undefined);
  // Two dependency maps: yarn keeps the second; so does the graph (one edge, to the entry the second names).
  const twice = `${GOOD}\n"top@1.0.0":\n  version "1.0.0"\n  dependencies:\n    dep "file:vendor/nothing.tgz"\n  dependencies:\n    dep "file:vendor/dep-7.0.0.tgz"\n`;
  const graph = slicesFromLockfile(Buffer.from(twice), {
    lockfile: 'yarn.lock',
    root: '/nonexistent',
    names: false,
  }).graph;
  const top = graph.own.findIndex((own) => own.startsWith('yarn-v1\n"top@1.0.0"'));
  assert.deepEqual(
    (graph.edges[top] ?? []).map((node) => graph.own[node]?.split('\n')[1]),
    ['"dep@file:vendor/dep-7.0.0.tgz":'],
  );
});

test('yarn v1 workspaces: a glob out of the root (../*, an absolute path) and a symlink out of it read no manifest there (yarn 1 reads them: measured)', (t) => {
  const outside = tempWorkspace(t, {
    x: { 'package.json': JSON.stringify({ name: 'x', version: '1.0.0', dependencies: { secretdep: '1.0.0' } }) },
  });
  const root = tempWorkspace(t, {
    'package.json': JSON.stringify({
      name: 'root',
      private: true,
      workspaces: ['packages/*', `../${outside.split('/').pop() ?? ''}/*`, `${outside}/*`, 'linked'],
    }),
    'yarn.lock': GOOD,
    packages: { a: { 'package.json': JSON.stringify({ name: 'a', version: '1.0.0' }) } },
  });
  symlinkSync(join(outside, 'x'), join(root, 'linked'));
  mkdirSync(join(root, 'packages', 'b'));
  symlinkSync(join(outside, 'x', 'package.json'), join(root, 'packages', 'b', 'package.json'));
  const slices = slicesFromLockfile(Buffer.from(GOOD), { lockfile: 'yarn.lock', root });
  assert.deepEqual(
    slices.slices.map((slice) => slice.importer),
    ['.', 'packages/a'],
  );
  // An in-root workspace is still read.
  writeFileSync(
    join(root, 'packages', 'a', 'package.json'),
    JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { dep: 'file:../../vendor/dep-7.0.0.tgz' } }),
  );
  assert.ok(
    slicesFromLockfile(Buffer.from(GOOD), { lockfile: 'yarn.lock', root }).slices.some(
      (slice) => slice.importer === 'packages/a',
    ),
  );
});
