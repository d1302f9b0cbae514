// pnpm's own reader as the oracle: seeded structural mutants of real pnpm lockfiles (truncations, flipped,
// deleted and inserted bytes, indentation and tab damage, duplicated lines and entries, swapped lines, NULs).
// Whatever @pnpm/lockfile-file refuses, slices refuse (0 sliced as if sound; lockguard 0.1 sliced 210 of the
// first 220 of vue-core's); whatever both read, lockguard's graph reaches exactly what pnpm's parse reaches,
// importer by importer. What lockfile-file reads and lockguard refuses (a truncation that still parses, a form
// pnpm never writes) is the safe direction, counted in the diagnostics.
// The suite keeps a seeded sample of each (the first mutants of the same seeds); the volume, 220 and 60 refused
// mutants here before and 1,000 for `npm run fuzz -- --seed 1 --count 0 --format pnpm --oracle 1000 --tools 0`,
// is the fuzz command's (test/fuzz/README.md).

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { slicesFromLockfile } from '../../../lib/core/slices/slices.js';
import { fixturesDir } from '../../helpers/fixtures.js';
import { oracleRun } from '../../fuzz/oracle.js';

/** The first mutants of each seed until this many are refused: about 5 s each on a loaded 2-core machine. */
const CASES: [fixture: string, seed: number, rejected: number][] = [
  ['vue-core/pnpm-lock.yaml', 1, 80],
  ['astro/pnpm-lock.yaml', 7, 30],
];

for (const [fixture, seed, wanted] of CASES) {
  test(`${fixture}: of ${wanted} mutants pnpm refuses, none is sliced; where both read one, the reach is pnpm's`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'lockguard-oracle-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const text = readFileSync(join(fixturesDir(), fixture), 'utf8');
    const counts = await oracleRun(text, seed, wanted, dir, (bytes, root) =>
      slicesFromLockfile(bytes, { lockfile: 'pnpm-lock.yaml', root, names: false }),
    );
    t.diagnostic(JSON.stringify(counts));
    assert.equal(counts.rejected, wanted);
    assert.equal(counts.rejectedButSliced, 0, counts.offenders.join('\n'));
    assert.equal(counts.acceptedOtherReach, 0, counts.offenders.join('\n'));
    assert.ok(counts.acceptedSameReach > 0, 'some mutants are read by both: the comparison is not vacuous');
  });
}
