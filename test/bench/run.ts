// `npm run bench`: runs every bench module (an explicit list), then prints one markdown table and the
// machine it ran on.
//
// Settings: LOCKGUARD_BENCH_RUNS (samples per measurement, default 15), LOCKGUARD_BENCH_FIXTURES (the
// real lockfiles; default ../shared/fixtures/lockfiles next to the repo, skipped when absent),
// LOCKGUARD_BENCH_ONLY (comma-separated module names, e.g. `run,pnpmfile`; default all).
// Invariants: writes only under its own temp folder, removed at the end; a failing module is reported
// and the others still run (exit code 1 then).

import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as fingerprint from './fingerprint.bench.js';
import * as precheck from './precheck.bench.js';
import * as run from './run.bench.js';
import * as withhold from './withhold.bench.js';
import * as slices from './slices.bench.js';
import * as slicesYarnBun from './slices-yarn-bun.bench.js';
import * as pnpmfile from './pnpmfile.bench.js';
import * as remoteGate from './remote-gate.bench.js';
import * as prune from './prune.bench.js';
import { formatTable, machineLine, type BenchContext, type BenchRow } from './harness.js';

interface BenchModule {
  readonly name: string;
  bench(ctx: BenchContext): Promise<BenchRow[]>;
}

/** Add new bench modules here. */
const MODULES: readonly BenchModule[] = [
  { name: 'fingerprint', bench: fingerprint.bench },
  { name: 'withhold', bench: withhold.bench },
  { name: 'run', bench: run.bench },
  { name: 'precheck', bench: precheck.bench },
  { name: 'slices', bench: slices.bench },
  { name: 'slices-yarn-bun', bench: slicesYarnBun.bench },
  { name: 'pnpmfile', bench: pnpmfile.bench },
  { name: 'remote-gate', bench: remoteGate.bench },
  { name: 'prune', bench: prune.bench },
];

function fixturesDir(): string | undefined {
  const configured = process.env['LOCKGUARD_BENCH_FIXTURES'];
  const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
  const dir = configured !== undefined && configured !== '' ? resolve(configured) : join(repoRoot, '..', 'shared', 'fixtures', 'lockfiles');
  return existsSync(dir) ? dir : undefined;
}

function runsSetting(): number {
  const value = Number(process.env['LOCKGUARD_BENCH_RUNS'] ?? '15');
  if (!Number.isInteger(value) || value < 1) throw new Error(`Expected LOCKGUARD_BENCH_RUNS to be a positive integer, got "${process.env['LOCKGUARD_BENCH_RUNS']}"`);
  return value;
}

async function runAll(): Promise<number> {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'lockguard-bench-')));
  const rows: BenchRow[] = [];
  let failed = false;
  const started = performance.now();
  try {
    const only = (process.env['LOCKGUARD_BENCH_ONLY'] ?? '').split(',').filter((name) => name !== '');
    for (const module of MODULES.filter((candidate) => only.length === 0 || only.includes(candidate.name))) {
      const moduleTmp = join(tmp, module.name);
      const ctx: BenchContext = { tmp: moduleTmp, fixturesDir: fixturesDir(), runs: runsSetting() };
      try {
        process.stderr.write(`bench: ${module.name}...\n`);
        rows.push(...(await module.bench(ctx)));
      } catch (error) {
        failed = true;
        process.stderr.write(`bench: ${module.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  process.stdout.write(`${formatTable(rows)}\n\nMachine: ${machineLine()}; ${runsSetting()} samples per row, medians; ${((performance.now() - started) / 1000).toFixed(0)} s in all.\n`);
  return failed ? 1 : 0;
}

process.exitCode = await runAll();
