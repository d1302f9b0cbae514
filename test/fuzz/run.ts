// `npm run fuzz`: the lockfile fuzz of lockfiles.test.ts, longer, with its counts printed, and the oracle
// passes: pnpm (mutants @pnpm/lockfile-file refuses that lockguard still slices; mutants both read with another
// reach), yarn berry (the same against yarn's own parser), and the real yarn 4, yarn 1 and bun (`--tools N`
// mutants each of a lockfile the tool wrote, through its frozen install; none it cannot read may be sliced), and
// the pnpm YAML reader's shortcut against its general path (`--reader N` mutants, every line read alike).
//
// Usage: npm run fuzz -- [--seed N] [--count N] [--format pnpm,npm,yarn-berry,yarn-v1,bun] [--oracle N] [--tools N] [--reader N] [--timeout MS]
// Settings also from LOCKGUARD_FUZZ_SEED and LOCKGUARD_FUZZ_COUNT. Exit 1 when anything failed: every failure
// is printed with the seed, format, fixture and index that reproduce it.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { slicesFromLockfile } from '../../lib/core/slices/slices.js';
import { fixturePath, FORMATS } from './formats.js';
import { fuzz } from './harness.js';
import { oracleRun } from './oracle.js';
import { toolOracle, toolOracleRun } from './oracle-tools.js';
import { yarnOracleRun } from './oracle-yarn.js';
import { readerShortcutRun } from './reader-shortcut.js';

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new Error(`Expected ${name} to be a non-negative integer, got "${value}"`);
  return parsed;
}

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    count: { type: 'string' },
    format: { type: 'string' },
    oracle: { type: 'string' },
    tools: { type: 'string' },
    reader: { type: 'string' },
    timeout: { type: 'string' },
  },
  strict: true,
});
const seed = integer('--seed', values.seed ?? process.env['LOCKGUARD_FUZZ_SEED'], 1);
const count = integer('--count', values.count ?? process.env['LOCKGUARD_FUZZ_COUNT'], 1000);
const oracle = integer('--oracle', values.oracle, 500);
const tools = integer('--tools', values.tools, 100);
const reader = integer('--reader', values.reader, 2000);
const formats = values.format?.split(',') ?? FORMATS.map((format) => format.name);

const started = performance.now();
let done = 0;
const report = await fuzz({
  seed,
  count,
  formats,
  callTimeoutMs: integer('--timeout', values.timeout, 30_000),
  onCase: () => {
    done++;
    if (done % 50 === 0) process.stderr.write(`fuzz: ${done}/${count} cases\n`);
  },
});
const seconds = ((performance.now() - started) / 1000).toFixed(0);
const kinds = (kind: string): number => report.failures.filter((failure) => failure.kind === kind).length;
process.stdout.write(
  `lockfile fuzz, seed ${seed}: ${report.cases} mutants (${formats.join(', ')}), ${report.calls} calls in process through main(), ${seconds} s\n`,
);
process.stdout.write(
  `  hangs ${kinds('hang')}, exit 70 ${kinds('exit-70')}, other unexpected exit codes ${kinds('unexpected-code')}, leaks of the planted secret ${kinds('leak')}, harness errors ${kinds('harness-error')}\n`,
);
process.stdout.write(
  `  exit codes: ${Object.entries(report.byCode)
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ')}\n`,
);
process.stdout.write(
  `  mutators: ${Object.entries(report.byMutator)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, n]) => `${name} ${n}`)
    .join(', ')}\n`,
);
for (const failure of report.failures.slice(0, 20))
  process.stdout.write(`  FAILED ${JSON.stringify(failure).slice(0, 800)}\n`);

let oracleFailed = false;
if (oracle > 0 && formats.includes('pnpm')) {
  const pnpm = FORMATS.find((format) => format.name === 'pnpm');
  for (const fixture of pnpm?.fixtures ?? []) {
    const dir = mkdtempSync(join(tmpdir(), 'lockguard-oracle-'));
    try {
      const counts = await oracleRun(readFileSync(fixturePath(fixture), 'utf8'), seed, oracle, dir, (bytes, root) =>
        slicesFromLockfile(bytes, { lockfile: 'pnpm-lock.yaml', root, names: false }),
      );
      const refused = Object.values(counts.acceptedButRefused).reduce((sum, n) => sum + n, 0);
      process.stdout.write(
        `pnpm oracle (@pnpm/lockfile-file), ${fixture}: ${counts.tried} mutants; ${counts.rejected} refused by pnpm, of which sliced by lockguard: ${counts.rejectedButSliced}; ${counts.accepted} read by pnpm: ${counts.acceptedSameReach} sliced with pnpm's reach, ${counts.acceptedOtherReach} with another, ${refused} refused by lockguard\n`,
      );
      oracleFailed ||= counts.rejectedButSliced > 0 || counts.acceptedOtherReach > 0;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
if (oracle > 0 && formats.includes('yarn-berry')) {
  const counts = yarnOracleRun(readFileSync(fixturePath('yarn-berry-jest/yarn.lock'), 'utf8'), seed, oracle);
  process.stdout.write(
    `yarn berry oracle (@yarnpkg/parsers and yarn's entry checks), jest: ${counts.tried} mutants; ${counts.rejected} refused by yarn, of which sliced by lockguard: ${counts.rejectedButSliced}; ${counts.accepted} read by yarn: ${counts.acceptedSameReach} sliced with yarn's reach, ${counts.acceptedOtherReach} with another, ${counts.acceptedButRefused} refused by lockguard\n`,
  );
  oracleFailed ||= counts.rejectedButSliced > 0 || counts.acceptedOtherReach > 0;
}
const flavors = [
  formats.includes('yarn-berry') ? 'yarn-pnp' : '',
  formats.includes('yarn-v1') ? 'yarn1' : '',
  formats.includes('bun') ? 'bun' : '',
].filter((flavor) => flavor !== '') as ('yarn-pnp' | 'yarn1' | 'bun')[];
for (const flavor of tools > 0 ? flavors : []) {
  const dir = mkdtempSync(join(tmpdir(), 'lockguard-oracle-'));
  try {
    const counts = toolOracleRun(toolOracle(flavor, dir), seed, tools);
    process.stdout.write(
      `${flavor} oracle (the real tool's frozen install): ${counts.tried} mutants; ${counts.byVerdict['cannot-read']} it cannot read, of which sliced by lockguard: ${counts.cannotReadButSliced}; ${counts.byVerdict['out-of-date']} read but out of date; ${counts.byVerdict.installs} installed from, of which refused by lockguard: ${counts.installsButRefused}\n`,
    );
    for (const offender of counts.offenders.filter((line) => line.startsWith('cannot read')).slice(0, 10))
      process.stdout.write(`  ${offender}\n`);
    oracleFailed ||= counts.cannotReadButSliced > 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
if (reader > 0 && formats.includes('pnpm')) {
  const counts = readerShortcutRun(seed, reader);
  process.stdout.write(
    `pnpm YAML reader, shortcut against the general path: ${counts.tried} mutants, ${counts.refused} refused by both at the same place, ${counts.differ.length} read differently\n`,
  );
  for (const line of counts.differ.slice(0, 10)) process.stdout.write(`  ${line}\n`);
  oracleFailed ||= counts.differ.length > 0;
}
process.exitCode = report.failures.length > 0 || oracleFailed ? 1 : 0;
