// The seeded lockfile fuzz, bounded for CI: mutants of the real lockfiles in test/fixtures (truncations,
// flipped bytes, NULs, deep nesting, duplicate keys, BOM, CRLF, conflict blocks, YAML anchors, aliases and
// alias bombs...) through every command that reads a lockfile (key, key --projects, snapshot, verify, run,
// status after a move), in process through main() with a per-call watchdog, plus a sample through the real
// bin: 0 hangs, 0 exit 70, no exit code lockguard does not own, 0 leaks of the planted secret (stdout,
// stderr, the ledger's records, events and report). `npm run fuzz` runs the same thing longer.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cliProcess } from '../helpers/cli.js';
import { scrubbedEnv } from '../helpers/env.js';
import { formatNamed } from './formats.js';
import { casesOf, fuzz, runCase, type CaseResult } from './harness.js';

const SEED = 20_241_130;
/** About a minute on a loaded 2-core machine, spread over every format and fixture in formats.ts. */
const COUNT = 96;
const BIN_SAMPLE = 4;

function describeFailures(failures: readonly unknown[]): string {
  return JSON.stringify(failures.slice(0, 5), null, 2).slice(0, 4000);
}

test(`lockfile fuzz in process: ${COUNT} seeded mutants (seed ${SEED}) through every lockfile-reading command`, async (t) => {
  const report = await fuzz({ seed: SEED, count: COUNT });
  t.diagnostic(`cases ${report.cases}, calls ${report.calls}, exit codes ${JSON.stringify(report.byCode)}, mutators ${JSON.stringify(report.byMutator)}`);
  assert.deepEqual(report.failures, [], describeFailures(report.failures));
  const steps = casesOf({ seed: SEED, count: COUNT }).reduce((sum, spec) => sum + formatNamed(spec.format).scenarios.reduce((n, scenario) => n + scenario.steps.filter((step) => 'argv' in step).length, 0), 0);
  assert.equal(report.calls, steps, 'every scenario step ran for every case');
  // Not vacuous: some mutants were refused (exit 2) and some still read (exit 0 or a move, exit 1).
  assert.ok((report.byCode['2'] ?? 0) > 0 && (report.byCode['0'] ?? 0) > 0 && (report.byCode['1'] ?? 0) > 0);
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
