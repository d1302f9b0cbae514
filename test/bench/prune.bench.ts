// `lockguard prune` on a ledger of 3,000 runs (keep 50) vs deleting the same 2,950 run folders and nothing
// else (the physical limit: the unlinks and rmdirs are the work; prune adds reading every record, so an
// unreadable one is kept, and one rename per run, so a kill never leaves half a run). In process, the
// ledger rebuilt before each sample, samples in pairs; no goal was set for it.

import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { createRun } from '../../lib/run/ledger.js';
import { pruneLedger } from '../../lib/run/prune.js';
import { median, type BenchContext, type BenchRow } from './harness.js';

const RUNS = 3000;
const KEEP = 50;
const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";

/** `RUNS` run folders cloned from one real run, oldest first; returns their ids. */
function buildLedger(root: string): string[] {
  rmSync(join(root, '.lockguard'), { recursive: true, force: true });
  const template = createRun({ kind: 'run', table: readWorkspaceFingerprints(root) });
  const files = readdirSync(template.dir).map((name) => [name, readFileSync(join(template.dir, name), 'utf8')] as const);
  const base = Date.now() - RUNS * 1000;
  const ids: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    const stamp = new Date(base + i * 1000).toISOString().replace(/[-:.]/g, '').replace('Z', '000Z');
    const id = `${stamp}-run-${i.toString(16).padStart(6, '0')}`;
    const dir = join(root, '.lockguard', 'runs', id);
    mkdirSync(dir);
    for (const [name, text] of files) writeFileSync(join(dir, name), text.replaceAll(template.record.id, id));
    ids.push(id);
  }
  rmSync(template.dir, { recursive: true });
  return ids;
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
    if (result.removed.length !== RUNS - KEEP) throw new Error(`expected ${RUNS - KEEP} removed, got ${result.removed.length}`);
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
