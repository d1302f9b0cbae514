// yarn berry's reader against what the real yarn 4.18.1 does with the same bytes (measured with `yarn install
// --immutable` on the lockfile it wrote, test/fixtures/lockfiles/yarn-berry-workspace): every mutant yarn
// cannot read (a YAML error, an entry without resolution or linkType, an invalid locator) or reads otherwise
// than its lines say is refused with ERR_LOCKGUARD_BROKEN_LOCKFILE and its line; what yarn reads the same
// (CRLF, a BOM, blank and comment lines between entries, keys split as yarn splits them) slices the same.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { slicesFromLockfile } from '../../../../lib/core/slices/index.js';
import { fixturesDir } from '../../../helpers/fixtures.js';

const GOOD = readFileSync(join(fixturesDir(), 'yarn-berry-workspace', 'yarn.lock'), 'utf8');

function slices(text: string): Map<string, string> {
  return new Map(
    slicesFromLockfile(Buffer.from(text), { lockfile: 'yarn.lock', root: '/nonexistent', names: false }).slices.map(
      (slice) => [slice.importer, slice.digest],
    ),
  );
}

function refusal(text: string): { code?: string; line?: number } {
  try {
    slices(text);
  } catch (error) {
    const { code, position } = error as { code?: string; position?: { line: number } };
    return { ...(code === undefined ? {} : { code }), ...(position === undefined ? {} : { line: position.line }) };
  }
  return {};
}

/** Edit `GOOD` by one replacement that must apply. */
function edit(from: string, to: string): string {
  assert.ok(GOOD.includes(from), from);
  return GOOD.replace(from, to);
}

const B_DEPS = '    dep: "file:../../vendor/dep-7.0.0.tgz"\n  languageName: unknown\n  linkType: soft\n\n"c@';

// Each refused by yarn 4.18.1: "YAMLException: bad indentation", "Assertion failed: ... resolution",
// "Cannot read properties of undefined (reading 'toUpperCase')", "Invalid locator", or YN0028 (yarn reads
// the file otherwise than its lines say, and refuses it under --immutable).
const REFUSED: Readonly<Record<string, string>> = {
  'a dependency line indented 3 spaces (lockguard 0.1 read its name as "ep")': edit(
    B_DEPS,
    ` ${B_DEPS.slice(2)}`.replace(/^ {3}dep/, '   dep'),
  ),
  'a dependency indented 5 spaces': edit('    a: "workspace:*"', '     a: "workspace:*"'),
  'a field indented 1 space': edit(
    '  languageName: unknown\n  linkType: soft\n\n"b@',
    ' languageName: unknown\n  linkType: soft\n\n"b@',
  ),
  'a tab for indentation': edit(
    '  languageName: unknown\n  linkType: soft\n\n"b@',
    '\tlanguageName: unknown\n  linkType: soft\n\n"b@',
  ),
  'a field given twice': edit('  linkType: soft\n\n"b@', '  linkType: soft\n  linkType: hard\n\n"b@'),
  'a dependency given twice': edit('    a: "workspace:*"\n', '    a: "workspace:*"\n    a: "workspace:^"\n'),
  'an entry given twice': `${GOOD}\n"c@workspace:packages/c":\n  version: 0.0.0-use.local\n  resolution: "c@workspace:packages/c"\n  languageName: unknown\n  linkType: soft\n`,
  'a descriptor in two entries': edit('"root@workspace:.":', '"root@workspace:., a@workspace:*":'),
  'a NUL in a value': edit('languageName: unknown', 'languageName: unk\0nown'),
  'a NUL in a comment': edit('# Manual', '# Man\0ual'),
  'a control character': edit('languageName: unknown', 'languageName: unk\x01nown'),
  'single quotes': edit('a: "workspace:*"', "a: 'workspace:*'"),
  'a comment after a value': edit('linkType: hard', 'linkType: hard # x'),
  'a YAML escape JSON lacks': edit('"a@workspace:packages/a"', '"a@workspace:packages/\\x61"'),
  'an entry without resolution': edit('  resolution: "root@workspace:."\n', ''),
  'an entry without linkType': edit('  linkType: soft\n\n"b@', '\n"b@'),
  'a field with no value': edit(
    'languageName: unknown\n  linkType: soft\n\n"b@',
    'languageName:\n  linkType: soft\n\n"b@',
  ),
  'an entry that is a string': `${GOOD}\n"x@npm:1": foo\n`,
  'a blank line inside an entry': edit(
    '  languageName: unknown\n  linkType: soft\n\n"b@',
    '  languageName: unknown\n\n  linkType: soft\n\n"b@',
  ),
  'a line of spaces': edit(
    '  languageName: unknown\n  linkType: soft\n\n"b@',
    '  languageName: unknown\n   \n  linkType: soft\n\n"b@',
  ),
  'a comment inside an entry': edit(
    '  languageName: unknown\n  linkType: soft\n\n"b@',
    '  languageName: unknown\n  # hi\n  linkType: soft\n\n"b@',
  ),
  'a trailing space': edit('linkType: hard', 'linkType: hard  '),
  'a key without its range': edit('"root@workspace:.":', '"root":'),
  'an invalid locator': edit('resolution: "root@workspace:."', 'resolution: "root"'),
  'an anchor': edit('languageName: unknown', 'languageName: &x unknown'),
  'a dependency that is a mapping': edit('    a: "workspace:*"', '    a:\n      x: "workspace:*"'),
  'a flow mapping': edit(
    '  dependencies:\n    a: "workspace:*"\n    dep: "file:../../vendor/dep-7.0.0.tgz"\n',
    '  dependencies: {a: "workspace:*"}\n',
  ),
  'a document marker': `---\n${GOOD}`,
  'two __metadata blocks': `${GOOD}\n__metadata:\n  version: 10\n  cacheKey: 10c0\n`,
};

for (const [name, text] of Object.entries(REFUSED)) {
  test(`yarn berry: refused as yarn 4 refuses it: ${name}`, () => {
    assert.notEqual(text, GOOD);
    const found = refusal(text);
    assert.equal(found.code, 'ERR_LOCKGUARD_BROKEN_LOCKFILE', name);
    assert.ok((found.line ?? 0) >= 1, 'the refusal names a line');
  });
}

test('yarn berry: what yarn 4 reads as it reads the original slices as the original (CRLF, a BOM, blank and comment lines between entries, a key split without its space)', () => {
  const good = slices(GOOD);
  assert.equal(good.size, 4);
  // yarn install --immutable accepts CRLF (rc 0); the rest it reads the same (and rewrites).
  for (const text of [
    GOOD.replaceAll('\n', '\r\n'),
    `\uFEFF${GOOD}`,
    GOOD.replace('  linkType: soft\n\n"b@', '  linkType: soft\n\n\n# a comment\n\n"b@'),
    GOOD.replace('# Manual changes', '# Manual chonges'),
  ]) {
    assert.deepEqual(slices(text), good);
  }
  // `a@workspace:*,a@workspace:packages/a` is two descriptors to yarn (/ *, */): b's link to a still resolves.
  const unspaced = slices(
    GOOD.replace('"a@workspace:*, a@workspace:packages/a"', '"a@workspace:*,a@workspace:packages/a"'),
  );
  const graph = slicesFromLockfile(
    Buffer.from(GOOD.replace('"a@workspace:*, a@workspace:packages/a"', '"a@workspace:*,a@workspace:packages/a"')),
    { lockfile: 'yarn.lock', root: '/nonexistent', names: false },
  ).graph;
  assert.ok(
    graph.own.every((own) => !own.startsWith('leaf\nmissing a@')),
    'no leaf for a@workspace:*',
  );
  assert.equal(unspaced.size, 4);
});

test("yarn berry: the 3-space dependency line the fuzz found (yarn: 'bad indentation') is refused, not read as a slice without tiny-dep", () => {
  const lock = `__metadata:\n  version: 8\n  cacheKey: 10c0\n\n"b@workspace:packages/b":\n  version: 0.0.0-use.local\n  resolution: "b@workspace:packages/b"\n  dependencies:\n   tiny-dep: "npm:7.0.0"\n  languageName: unknown\n  linkType: soft\n\n"tiny-dep@npm:7.0.0":\n  version: 7.0.0\n  resolution: "tiny-dep@npm:7.0.0"\n  languageName: node\n  linkType: hard\n`;
  assert.deepEqual(refusal(lock), { code: 'ERR_LOCKGUARD_BROKEN_LOCKFILE', line: 9 });
  // Indented as yarn writes it, b reaches tiny-dep.
  const graph = slicesFromLockfile(Buffer.from(lock.replace('   tiny-dep', '    tiny-dep')), {
    lockfile: 'yarn.lock',
    root: '/nonexistent',
    names: false,
  }).graph;
  assert.deepEqual(graph.edges[graph.importers.get('packages/b') as number], [1]);
});

test("yarn berry: a key over 1,024 characters in yarn's own `? key` form is read", () => {
  const ranges = Array.from({ length: 120 }, (_, i) => `left-pad@npm:^1.${i}.0`);
  const lock = `__metadata:\n  version: 8\n  cacheKey: 10c0\n\n? "${ranges.join(', ')}"\n:\n  version: 1.3.0\n  resolution: "left-pad@npm:1.3.0"\n  languageName: node\n  linkType: hard\n\n"root@workspace:.":\n  version: 0.0.0-use.local\n  resolution: "root@workspace:."\n  dependencies:\n    left-pad: "npm:^1.7.0"\n  languageName: unknown\n  linkType: soft\n`;
  const graph = slicesFromLockfile(Buffer.from(lock), {
    lockfile: 'yarn.lock',
    root: '/nonexistent',
    names: false,
  }).graph;
  assert.deepEqual(graph.edges[graph.importers.get('.') as number], [0], 'root reaches the long-keyed entry');
  assert.equal(refusal(lock.replace('\n:\n', '\n')).code, 'ERR_LOCKGUARD_BROKEN_LOCKFILE');
});
