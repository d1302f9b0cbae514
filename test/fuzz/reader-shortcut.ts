// The pnpm YAML line reader's shortcut (the line shapes pnpm writes most) against its general path, on seeded
// mutants of real pnpm lockfiles: every line read alike (depth, key, value, kind), or the same refusal at the
// same place. test/core/package-managers/pnpm/yaml/reader.test.ts runs a sample; `npm run fuzz -- --reader N` the volume.
//
// Owns: `reading` (what the reader reports, as plain data) and `readerShortcutRun` (the seeded comparison).
// Invariants: deterministic per (seed, count): case i mutates fixture i mod 2 with the i-th draw of one rng;
// reads only the fixtures, writes nothing.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodePnpmLockfile, yamlDocuments } from '../../lib/core/package-managers/pnpm/yaml/text.js';
import { readYamlLines } from '../../lib/core/package-managers/pnpm/yaml/reader.js';
import { fixturesDir } from '../helpers/fixtures.js';
import { mutant, random } from './mutate.js';
import { ORACLE_MUTATORS } from './oracle.js';

/** The real lockfiles the mutants start from (the shortcut's comparison alternates the first two). */
export const READER_FIXTURES = ['vue-core/pnpm-lock.yaml', 'vite/pnpm-lock.yaml', 'astro/pnpm-lock.yaml'];

/** Every line the reader reports, as plain data, or the refusal (code and position). */
export function reading(bytes: Buffer, simple: boolean): string[] {
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

export interface ReaderCounts {
  readonly tried: number;
  /** Mutants the general path refuses (the shortcut must refuse them at the same place). */
  readonly refused: number;
  /** Mutants read differently, as "mutant <i> (<mutator>) of <fixture>: line <n>: <general> / <shortcut>". */
  readonly differ: readonly string[];
}

/** `count` seeded mutants (seed), each read by the general path and by the shortcut. */
export function readerShortcutRun(seed: number, count: number): ReaderCounts {
  const rng = random(seed);
  const texts = READER_FIXTURES.slice(0, 2).map((fixture) => readFileSync(join(fixturesDir(), fixture), 'utf8'));
  let refused = 0;
  const differ: string[] = [];
  for (let i = 0; i < count; i++) {
    const made = mutant(
      texts[i % 2] as string,
      rng,
      [...ORACLE_MUTATORS, 'alias', 'bom', 'crlf', 'lone-cr', 'deep'],
      'yaml',
      (source) => ({ text: source, at: rng.int(source.length) }),
    );
    const general = reading(made.bytes, false);
    if (general.at(-1)?.startsWith('refused') === true) refused++;
    const shortcut = reading(made.bytes, true);
    const at = general.findIndex((line, n) => shortcut[n] !== line);
    if (at !== -1 || shortcut.length !== general.length)
      differ.push(
        `mutant ${i} (${made.mutator}) of ${READER_FIXTURES[i % 2]}: line ${at}: ${general[at] ?? '(none)'} / ${shortcut[at === -1 ? general.length : at] ?? '(none)'}`,
      );
  }
  return { tried: count, refused, differ };
}
