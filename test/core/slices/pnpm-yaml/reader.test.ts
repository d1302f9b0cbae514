// The YAML line reader under the pnpm index: its shortcut for the line shapes pnpm writes most reads every
// line exactly as the general path does (same depth, key, value and kind, or the same refusal at the same
// place), on the real fixtures and on seeded mutants of them; and it holds its bounds (nesting, an alias bomb
// read in linear time, as text, never expanded).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { decodePnpmLockfile, yamlDocuments } from '../../../../lib/core/slices/pnpm-yaml/text.js';
import { readYamlLines } from '../../../../lib/core/slices/pnpm-yaml/reader.js';
import { fixturesDir } from '../../../helpers/fixtures.js';
import { mutant, random } from '../../../fuzz/mutate.js';
import { ORACLE_MUTATORS } from '../../../fuzz/oracle.js';

/** Every line the reader reports, as plain data, or the refusal (code and position). */
function reading(bytes: Buffer, simple: boolean): string[] {
  const out: string[] = [];
  try {
    const text = decodePnpmLockfile(bytes, '/w/pnpm-lock.yaml');
    for (const doc of yamlDocuments(text)) {
      readYamlLines(
        text,
        doc,
        '/w/pnpm-lock.yaml',
        (line) => {
          out.push(
            `${line.line} ${line.depth} ${line.item} ${line.key ?? '-'} ${line.kind} ${line.valueAt} ${line.valueEnd} ${line.end}`,
          );
        },
        { simple },
      );
    }
  } catch (error) {
    const { code, position } = error as { code?: string; position?: { line: number; column: number } };
    if (code === undefined) throw error;
    out.push(`refused ${code} ${position?.line}:${position?.column}`);
  }
  return out;
}

const FIXTURES = ['vue-core/pnpm-lock.yaml', 'vite/pnpm-lock.yaml', 'astro/pnpm-lock.yaml'];

test('the shortcut reads every line of the real lockfiles as the general path does', () => {
  for (const fixture of FIXTURES) {
    const bytes = readFileSync(join(fixturesDir(), fixture));
    const general = reading(bytes, false);
    assert.ok(general.length > 1000, `${fixture}: lines were read`);
    assert.deepEqual(reading(bytes, true), general, fixture);
  }
});

test('the shortcut reads seeded mutants as the general path does, refusals included', () => {
  const rng = random(42);
  let refused = 0;
  for (let i = 0; i < 400; i++) {
    const fixture = FIXTURES[i % 2] as string;
    const text = readFileSync(join(fixturesDir(), fixture), 'utf8');
    const made = mutant(
      text,
      rng,
      [...ORACLE_MUTATORS, 'alias', 'bom', 'crlf', 'lone-cr', 'deep'],
      'yaml',
      (source) => ({ text: source, at: rng.int(source.length) }),
    );
    const general = reading(made.bytes, false);
    if (general.at(-1)?.startsWith('refused') === true) refused++;
    assert.deepEqual(reading(made.bytes, true), general, `mutant ${i} (${made.mutator}) of ${fixture}`);
  }
  assert.ok(refused > 50 && refused < 400, `both refused and read mutants were compared (${refused} refused)`);
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
