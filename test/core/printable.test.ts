// core/printable.ts, the one owner of printable output: a seeded fuzz of printed fields (values mixing ASCII,
// controls, line breaks, `::` and `##[`, bidi controls, separators, astral characters, long runs), and
// the invariants every channel relies on.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  printable,
  printableJson,
  printableText,
  RECORD_VALUE_MAX,
  recordJson,
  VALUE_MAX,
} from '../../lib/core/printable.js';
import { outputFaults } from '../helpers/output-scan.js';
import { prng } from '../helpers/prng.js';

const PIECES = [
  'a',
  'Z',
  '9',
  ' ',
  '\t',
  '\n',
  '\r',
  '::',
  ' ::warning::x',
  '##[error]',
  '\u001b',
  '\u001b[31m',
  '\u0007',
  '\u0085',
  '\u009b',
  '\u007f',
  '\u2028',
  '\u2029',
  '\u202e',
  '\u2066',
  '\u200f',
  '\u061c',
  '😀',
  'é',
  '%',
  '\\u001b',
];

function field(random: () => number): string {
  let text = '';
  const length = Math.floor(random() * 40);
  for (let i = 0; i < length; i++) text += PIECES[Math.floor(random() * PIECES.length)] ?? '';
  if (random() < 0.05) text += 'x'.repeat(Math.floor(random() * 100_000));
  return text;
}

test('seeded fuzz: a printed field is one printable line, bounded, a fixed point; a write holds no forged line', () => {
  for (const seed of [1, 2, 3, 30, 2026]) {
    const random = prng(seed);
    for (let i = 0; i < 400; i++) {
      const value = field(random);
      const shown = printable(value);
      assert.deepEqual(
        outputFaults(`seed ${seed} #${i} value`, `name: ${shown}`),
        [],
        JSON.stringify(value.slice(0, 80)),
      );
      assert.equal(shown.includes('\n'), false);
      assert.ok(shown.length <= VALUE_MAX * 6 + 40, `seed ${seed} #${i}: ${shown.length}`);
      if (shown.length <= VALUE_MAX) assert.equal(printable(shown), shown, 'a fixed point');
      // A whole write made of lockguard's words and the raw value (a message built without printable).
      const write = `lockguard: the lockfile at "${value}" is broken\n${value}\n`;
      const printed = printableText(write);
      assert.deepEqual(outputFaults(`seed ${seed} #${i} write`, printed, { maxLine: 70_000 }), []);
      if (printed.length <= 60_000) assert.equal(printableText(printed), printed, 'a fixed point');
      // JSON stays JSON with the same value.
      const json = printableJson(JSON.stringify({ value }));
      assert.deepEqual(JSON.parse(json), { value });
      assert.deepEqual(outputFaults(`seed ${seed} #${i} json`, json, { maxLine: 1e7 }), []);
    }
  }
});

test('text with nothing to escape comes back unchanged; lockguard colours survive only when painted', () => {
  const plain = 'lockguard: nothing moved since run-1: the cache may be saved\n  judged on inputs\n';
  assert.equal(printableText(plain), plain);
  assert.equal(printable('packages/a'), 'packages/a');
  assert.equal(printableText('\u001b[31mlockguard:\u001b[0m x\n', true), '\u001b[31mlockguard:\u001b[0m x\n');
  assert.equal(printableText('\u001b[31mx\n', false), '\\u001b[31mx\n');
  assert.equal(printableText('\u001b]0;PWNED\u0007\n', true), '\\u001b]0;PWNED\\u0007\n');
  assert.equal(printableText('ok\n  ::stop-commands::abc\n'), 'ok\n  \\u003a:stop-commands::abc\n');
  assert.equal(printable(`9.0${'x'.repeat(300)}`).endsWith('…(103 more characters)'), true);
});

test('a record caps each string at RECORD_VALUE_MAX, keeps every shorter one (a path) exactly and stays JSON', () => {
  const path = `/${'d/'.repeat(2047)}f`; // 4096 characters: PATH_MAX
  const big = `7.0.0${'x'.repeat(2_000_000)}`;
  const text = recordJson({ path, version: big, list: [big, 'ok'], n: 1 });
  const back = JSON.parse(text) as { path: string; version: string; list: string[]; n: number };
  assert.equal(back.path, path);
  assert.equal(back.n, 1);
  assert.equal(back.list[1], 'ok');
  for (const value of [back.version, back.list[0] as string]) {
    assert.ok(value.length < RECORD_VALUE_MAX + 40, `${value.length}`);
    assert.ok(value.startsWith('7.0.0xxx'));
    assert.match(value, /…\(\d+ more characters\)$/);
  }
  assert.ok(text.length < 3 * RECORD_VALUE_MAX, `${text.length}`);
});
