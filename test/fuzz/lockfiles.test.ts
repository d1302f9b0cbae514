// The seeded lockfile fuzz, bounded for CI: mutants of the real lockfiles in test/fixtures (truncations,
// flipped bytes, NULs, deep nesting, duplicate keys, BOM, CRLF, conflict blocks, YAML anchors, aliases and
// alias bombs...) through every command that reads a lockfile (key, key --projects, snapshot, verify, run,
// status after a move), in process through main() with a per-call watchdog, plus a sample through the real
// bin: 0 hangs, 0 exit 70, no exit code lockguard does not own, 0 leaks of the planted secret (stdout,
// stderr, the ledger's records, events and report). yarn berry, yarn v1 and bun.lock also against oracles:
// yarn's own parser (@yarnpkg/parsers, with the checks yarn makes of each entry) on mutants of jest's
// lockfile, and the real yarn 4.18.1, yarn 1.22.22 and bun 1.4.5 (frozen installs, offline, isolated) on a few
// mutants of lockfiles they wrote: none they cannot read is sliced. The seed is printed (LOCKGUARD_FUZZ_SEED
// overrides it). `npm run fuzz` runs the same thing longer: the suite keeps seeded samples (sizes and seeds
// below, and in README.md here), the volume is the fuzz command's.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliProcess } from '../helpers/cli.js';
import { scrubbedEnv } from '../helpers/env.js';
import { fixturePath, formatNamed } from './formats.js';
import { YAML_MUTATORS } from './mutate.js';
import { casesOf, fuzz, runCase, type CaseResult } from './harness.js';
import { toolOracle, toolOracleRun } from './oracle-tools.js';
import { yarnOracleRun } from './oracle-yarn.js';

const GIVEN_SEED = Number(process.env['LOCKGUARD_FUZZ_SEED'] ?? '') || undefined;
const SEED = GIVEN_SEED ?? 20_241_130;
/**
 * The in-process sample's seed: the first seed from 20241130 up whose first COUNT cases (formats and fixtures
 * in turn) draw every mutator in mutate.ts at least once, so the sample is small and still covers each kind of
 * damage (asserted below when no seed is given). The volume (1,000 mutants and more) is `npm run fuzz`'s.
 */
const SAMPLE_SEED = GIVEN_SEED ?? 20_241_141;
/** Mutants per real tool (each a frozen install: about a second for yarn on a loaded machine). */
const TOOL_SAMPLE = 4;
const PARSER_SAMPLE = 40;
/**
 * Eight mutants per format, every fixture in formats.ts and every mutator (SAMPLE_SEED): about 25 s on a
 * loaded 2-core machine (96 mutants took a minute and drew no mutator these 40 do not).
 */
const COUNT = 40;
/**
 * Through the real bin: the same main() as in process, bundled, so the sample proves the process boundary
 * (exit codes, stdout and stderr of the bundle, the watchdog's timeout): one YAML and one JSON format
 * (pnpm, then npm: casesOf takes formats in turn). Each mutant is 14 processes (about 6 s).
 */
const BIN_SAMPLE = 2;

function describeFailures(failures: readonly unknown[]): string {
  return JSON.stringify(failures.slice(0, 5), null, 2).slice(0, 4000);
}

test(`lockfile fuzz in process: ${COUNT} seeded mutants (seed ${SAMPLE_SEED}) through every lockfile-reading command`, async (t) => {
  const report = await fuzz({ seed: SAMPLE_SEED, count: COUNT });
  t.diagnostic(
    `cases ${report.cases}, calls ${report.calls}, exit codes ${JSON.stringify(report.byCode)}, mutators ${JSON.stringify(report.byMutator)}`,
  );
  assert.deepEqual(report.failures, [], describeFailures(report.failures));
  const steps = casesOf({ seed: SAMPLE_SEED, count: COUNT }).reduce(
    (sum, spec) =>
      sum +
      formatNamed(spec.format).scenarios.reduce(
        (n, scenario) => n + scenario.steps.filter((step) => 'argv' in step).length,
        0,
      ),
    0,
  );
  assert.equal(report.calls, steps, 'every scenario step ran for every case');
  // Not vacuous: some mutants were refused (exit 2) and some still read (exit 0 or a move, exit 1).
  assert.ok((report.byCode['2'] ?? 0) > 0 && (report.byCode['0'] ?? 0) > 0 && (report.byCode['1'] ?? 0) > 0);
  // The small sample still draws every kind of damage mutate.ts makes (the seed was chosen for it).
  if (GIVEN_SEED === undefined) assert.deepEqual(Object.keys(report.byMutator).sort(), [...YAML_MUTATORS].sort());
});

test(`lockfile fuzz through the real bin: ${BIN_SAMPLE} mutants`, async () => {
  const env = scrubbedEnv();
  const results: CaseResult[] = [];
  for (const spec of casesOf({ seed: SEED + 1, count: BIN_SAMPLE })) {
    results.push(
      await runCase(spec, async (argv, cwd, extra) => {
        const result = cliProcess(argv, cwd, { ...env, ...extra }, 30_000);
        // A process killed by the timeout is a hang: report it as an exit code lockguard never uses.
        return result.signal === null ? result : { ...result, code: 124 };
      }),
    );
  }
  const failures = results.flatMap((result) => result.failures);
  assert.deepEqual(failures, [], describeFailures(failures));
});

test(`yarn berry against yarn's own parser: ${PARSER_SAMPLE} mutants of jest's yarn.lock (seed ${SEED})`, (t) => {
  const counts = yarnOracleRun(readFileSync(fixturePath('yarn-berry-jest/yarn.lock'), 'utf8'), SEED, PARSER_SAMPLE);
  t.diagnostic(JSON.stringify(counts));
  assert.equal(counts.rejectedButSliced, 0, counts.offenders.join('\n'));
  assert.equal(counts.acceptedOtherReach, 0, counts.offenders.join('\n'));
  assert.ok(counts.rejected > 0 && counts.acceptedSameReach > 0, 'not vacuous: some mutants refused, some read alike');
});

for (const flavor of ['yarn-pnp', 'yarn1', 'bun'] as const) {
  test(`${flavor} against the real tool: ${TOOL_SAMPLE} mutants of its own lockfile (seed ${SEED})`, {
    timeout: 180_000,
  }, (t) => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), `lockguard-oracle-${flavor}-`)));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const oracle = toolOracle(flavor, dir);
    // The tool installs from its own lockfile, and lockguard slices it: the oracle can tell.
    assert.equal(oracle.verdict(Buffer.from(oracle.good)), 'installs');
    const counts = toolOracleRun(oracle, SEED, TOOL_SAMPLE);
    t.diagnostic(JSON.stringify(counts));
    assert.equal(counts.cannotReadButSliced, 0, counts.offenders.join('\n'));
  });
}
