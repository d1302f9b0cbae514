// `npm run bench`: runs every bench module (an explicit list), prints one markdown table and the machine it
// ran on, and writes each module's rows into test/bench/README.md's generated part (report.ts).
//
// Settings: LOCKGUARD_BENCH_RUNS (samples per measurement, default 15), LOCKGUARD_BENCH_FIXTURES (the
// real lockfiles; default ../shared/fixtures/lockfiles next to the repo, skipped when absent),
// LOCKGUARD_BENCH_ONLY (comma-separated module names, e.g. `run,pnpmfile`; default all: then the page's
// generated part is rewritten whole, else only those modules' blocks), LOCKGUARD_BENCH_WRITE=0 (print only).
// Invariants: writes only under its own temp folder, removed at the end, and test/bench/README.md; a failing
// module is reported (and its block says so) and the others still run (exit code 1 then).

import { existsSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as fingerprint from './fingerprint.bench.js';
import * as precheck from './precheck.bench.js';
import * as run from './run.bench.js';
import * as codeCache from './code-cache.bench.js';
import * as withhold from './withhold.bench.js';
import * as withholdMoon from './withhold-moon.bench.js';
import * as withholdLage from './withhold-lage.bench.js';
import * as slices from './slices.bench.js';
import * as slicesYarnBun from './slices-yarn-bun.bench.js';
import * as pnpmfile from './pnpmfile.bench.js';
import * as remoteGate from './remote-gate.bench.js';
import * as prune from './prune.bench.js';
import * as soundKeys from './sound-keys.bench.js';
import * as sliceFiles from './slice-files.bench.js';
import * as reach from './reach.bench.js';
import * as readers from './readers.bench.js';
import * as scale from './scale.bench.js';
import { formatTable, machineLine, type BenchContext, type BenchRow } from './harness.js';
import { type ModuleResult, updatePage } from './report.js';

interface BenchModule {
  readonly name: string;
  bench(ctx: BenchContext): Promise<BenchRow[]>;
}

/** Add new bench modules here. */
const MODULES: readonly BenchModule[] = [
  { name: 'fingerprint', bench: fingerprint.bench },
  { name: 'withhold', bench: withhold.bench },
  { name: 'withhold-moon', bench: withholdMoon.bench },
  { name: 'withhold-lage', bench: withholdLage.bench },
  { name: 'run', bench: run.bench },
  { name: 'code-cache', bench: codeCache.bench },
  { name: 'precheck', bench: precheck.bench },
  { name: 'slices', bench: slices.bench },
  { name: 'slices-yarn-bun', bench: slicesYarnBun.bench },
  { name: 'pnpmfile', bench: pnpmfile.bench },
  { name: 'remote-gate', bench: remoteGate.bench },
  { name: 'prune', bench: prune.bench },
  { name: 'sound-keys', bench: soundKeys.bench },
  { name: 'slice-files', bench: sliceFiles.bench },
  { name: 'reach', bench: reach.bench },
  { name: 'readers', bench: readers.bench },
  { name: 'scale', bench: scale.bench },
];

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

function fixturesDir(): string | undefined {
  const configured = process.env['LOCKGUARD_BENCH_FIXTURES'];
  const dir =
    configured !== undefined && configured !== ''
      ? resolve(configured)
      : join(repoRoot, '..', 'shared', 'fixtures', 'lockfiles');
  return existsSync(dir) ? dir : undefined;
}

function runsSetting(): number {
  const value = Number(process.env['LOCKGUARD_BENCH_RUNS'] ?? '15');
  if (!Number.isInteger(value) || value < 1)
    throw new Error(
      `Expected LOCKGUARD_BENCH_RUNS to be a positive integer, got "${process.env['LOCKGUARD_BENCH_RUNS']}"`,
    );
  return value;
}

async function runAll(): Promise<number> {
  const only = (process.env['LOCKGUARD_BENCH_ONLY'] ?? '').split(',').filter((name) => name !== '');
  const unknown = only.filter((name) => !MODULES.some((module) => module.name === name));
  if (unknown.length > 0) {
    process.stderr.write(
      `bench: expected LOCKGUARD_BENCH_ONLY to name modules of ${MODULES.map((module) => module.name).join(', ')}, got "${unknown.join(',')}"\n`,
    );
    return 2;
  }
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'lockguard-bench-')));
  const rows: BenchRow[] = [];
  const results: ModuleResult[] = [];
  let failed = false;
  const started = performance.now();
  try {
    for (const module of MODULES.filter((candidate) => only.length === 0 || only.includes(candidate.name))) {
      const moduleTmp = join(tmp, module.name);
      const ctx: BenchContext = { tmp: moduleTmp, fixturesDir: fixturesDir(), runs: runsSetting() };
      let moduleRows: BenchRow[] | undefined;
      try {
        process.stderr.write(`bench: ${module.name}...\n`);
        moduleRows = await module.bench(ctx);
        rows.push(...moduleRows);
      } catch (error) {
        failed = true;
        process.stderr.write(
          `bench: ${module.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
        );
      }
      results.push({
        module: module.name,
        rows: moduleRows,
        at: new Date().toISOString(),
        machine: machineLine(),
        samples: runsSetting(),
      });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  process.stdout.write(
    `${formatTable(rows)}\n\nMachine: ${machineLine()}; ${runsSetting()} samples per row, medians; ${((performance.now() - started) / 1000).toFixed(0)} s in all.\n`,
  );
  if (process.env['LOCKGUARD_BENCH_WRITE'] !== '0') writeResults(results, only.length === 0);
  return failed ? 1 : 0;
}

/** Writes the results into test/bench/README.md (atomically: a stage file in the same folder, then rename). */
function writeResults(results: readonly ModuleResult[], full: boolean): void {
  const page = join(repoRoot, 'test', 'bench', 'README.md');
  const stage = `${page}.bench-${process.pid}`;
  writeFileSync(
    stage,
    updatePage(
      readFileSync(page, 'utf8'),
      results,
      full,
      MODULES.map((module) => module.name),
    ),
  );
  renameSync(stage, page);
  process.stderr.write(
    `bench: wrote ${full ? 'every module' : results.map((result) => result.module).join(', ')} into test/bench/README.md\n`,
  );
}

process.exitCode = await runAll();
