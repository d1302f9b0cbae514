// The YAML line reader under the pnpm index: its shortcut for the line shapes pnpm writes most reads every
// line exactly as the general path does (same depth, key, value and kind, or the same refusal at the same
// place), on the real fixtures and on seeded mutants of them; and it holds its bounds (nesting, an alias bomb
// read in linear time, as text, never expanded).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fixturesDir } from '../../../../helpers/fixtures.js';
import { READER_FIXTURES as FIXTURES, readerShortcutRun, reading } from '../../../../fuzz/reader-shortcut.js';

/**
 * Seeded mutants in the suite: a sample (about 3 s); `npm run fuzz -- --reader 2000` the volume (the suite ran
 * 400 here before, the same seed's first 400).
 */
const MUTANTS = 100;

test('the shortcut reads every line of the real lockfiles as the general path does', () => {
  for (const fixture of FIXTURES) {
    const bytes = readFileSync(join(fixturesDir(), fixture));
    const general = reading(bytes, false);
    assert.ok(general.length > 1000, `${fixture}: lines were read`);
    assert.deepEqual(reading(bytes, true), general, fixture);
  }
});

test('the shortcut reads seeded mutants as the general path does, refusals included', () => {
  const counts = readerShortcutRun(42, MUTANTS);
  assert.deepEqual(counts.differ, []);
  assert.ok(
    counts.refused > MUTANTS / 8 && counts.refused < MUTANTS,
    `both refused and read mutants were compared (${counts.refused} refused)`,
  );
});

test('bounds: nesting deeper than 64 levels is refused; an alias bomb is refused before anything expands it', () => {
  const deep = `lockfileVersion: '9.0'\n${Array.from({ length: 70 }, (_, i) => `${' '.repeat(2 * i)}k${i}:`).join('\n')}\n`;
  assert.equal(reading(Buffer.from(deep), true).at(-1), 'refused ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE 66:129');
  const flow = `lockfileVersion: '9.0'\nx: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`;
  assert.equal(reading(Buffer.from(flow), true).at(-1), 'refused ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE 2:68');
  const bomb = [
    "lockfileVersion: '9.0'",
    'a: &a [x, x, x, x, x, x, x, x, x]',
    ...Array.from(
      { length: 20 },
      (_, i) =>
        `b${i}: &b${i} [${Array(9)
          .fill(i === 0 ? '*a' : `*b${i - 1}`)
          .join(', ')}]`,
    ),
  ].join('\n');
  assert.equal(reading(Buffer.from(bomb), true).at(-1), 'refused ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE 2:4');
});
