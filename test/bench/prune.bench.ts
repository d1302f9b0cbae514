// `lockguard prune` on a ledger of 3,000 runs (keep 50) vs deleting the same 2,950 run folders and nothing
// else (the physical limit: the unlinks and rmdirs are the work; prune adds reading every record, so an
// unreadable one is kept, and one rename per run, so a kill never leaves half a run). In process, the
// ledger rebuilt before each sample, samples in pairs (about 85 s); no goal was set for it.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pruneLedger } from '../../lib/ledger/prune.js';
import { cloneRuns } from '../helpers/ledger-runs.js';
import { median, type BenchContext, type BenchRow } from './harness.js';

const RUNS = 3000;
const KEEP = 50;
const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";

/** A fresh ledger of `RUNS` runs; returns their ids, oldest first. */
function buildLedger(root: string): string[] {
  rmSync(join(root, '.lockguard'), { recursive: true, force: true });
  return cloneRuns(root, RUNS);
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const root = join(ctx.tmp, 'prune-bench');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, 'node_modules', '.pnpm'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"name":"root","private":true}\n');
  writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages:\n  - "packages/*"\n');
  writeFileSync(join(root, 'pnpm-lock.yaml'), LOCK);
  const subject: number[] = [];
  const baseline: number[] = [];
  const ratios: number[] = [];
  const rounds = Math.max(3, Math.ceil(ctx.runs / 3));
  for (let i = 0; i < rounds; i++) {
    buildLedger(root);
    let start = performance.now();
    const result = pruneLedger(root, { keep: KEEP });
    const pruneMs = performance.now() - start;
    if (result.removed.length !== RUNS - KEEP)
      throw new Error(`expected ${RUNS - KEEP} removed, got ${result.removed.length}`);
    const ids = buildLedger(root);
    start = performance.now();
    for (const id of ids.slice(0, RUNS - KEEP)) rmSync(join(root, '.lockguard', 'runs', id), { recursive: true });
    const rmMs = performance.now() - start;
    subject.push(pruneMs);
    baseline.push(rmMs);
    ratios.push(pruneMs / rmMs);
  }
  rmSync(root, { recursive: true, force: true });
  return [
    {
      group: 'prune',
      subject: `prune --keep ${KEEP}, ${RUNS} runs`,
      subjectMs: median(subject),
      baseline: `rmSync of the same ${RUNS - KEEP} run folders`,
      baselineMs: median(baseline),
      pairRatio: median(ratios),
    },
  ];
}
