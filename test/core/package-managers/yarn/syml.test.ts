// syml.ts's plain-scalar test against yarn's own: for seeded random strings of the characters that
// matter, a string is accepted unquoted exactly when @yarnpkg/parsers' stringifySyml writes it unquoted, and a
// quoted one reads back as the string yarn wrote.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { symlLine, symlScalar, line } from '../../../../lib/core/package-managers/yarn/syml.js';
import { prng } from '../../../helpers/prng.js';

const require = createRequire(import.meta.url);
const { stringifySyml } = require('@yarnpkg/parsers') as { stringifySyml(value: unknown): string };

const CHARS = [...'ab1.-/@:#,?!&*|>\'"%`{}[]~ \t\\', '\u2028', 'é'];

test("a scalar is plain exactly where yarn's stringifySyml leaves it plain, and a quoted one reads back", () => {
  const next = prng(20_261_201);
  let plain = 0;
  for (let i = 0; i < 20_000; i++) {
    const length = 1 + Math.floor(next() * 6);
    let value = '';
    for (let k = 0; k < length; k++) value += CHARS[Math.floor(next() * CHARS.length)] as string;
    const written = stringifySyml({ k: value }).replace(/\n$/, '');
    const raw = written.slice(3);
    // yarn writes `k: <scalar>`; lockguard reads back the same string, and takes the unquoted form only where yarn writes it.
    assert.equal(symlLine(written, 0, written.length), undefined, JSON.stringify(value));
    assert.equal(line.value, value);
    if (raw.charCodeAt(0) !== 34) plain++;
    if (value.charCodeAt(0) !== 34) assert.equal(symlScalar(value) !== undefined, raw === value, JSON.stringify(value));
  }
  assert.ok(plain > 1000, 'not vacuous: many plain scalars');
});
