// The two rows every runner's withholding bench reports (wireit, moon, lage): the after-run pass over a cache
// in which nothing moved, and the before-run listing (cacheState), each side by side with the bare file-system
// walk that is the physical limit.
// Invariants: the pass must withhold nothing (a cache that changed under it throws); removes `root` when done;
// reports, never asserts a time.

import { rmSync } from 'node:fs';
import { cacheState, withholdAfterRun, type RunnerCache } from '../../lib/integrations/runners/index.js';
import { sideBySide, type BenchContext, type BenchRow } from './harness.js';

export interface WithholdBench {
  /** The runner as the rows name it ("moon", or "wireit" with where its entries are: "... in 20 packages"). */
  readonly label: string;
  readonly entries: number;
  readonly root: string;
  readonly cache: RunnerCache;
  /** The bare walk: readdir of what holds the entries + one lstat per entry. */
  readonly bare: () => void;
  /** The bare walk in words (the rows' baseline). */
  readonly baseline: string;
}

export async function withholdRows(ctx: BenchContext, bench: WithholdBench): Promise<BenchRow[]> {
  const { cache, bare, entries, label } = bench;
  const before = cacheState(cache);
  if (before.entries.size !== entries) throw new Error(`the ${label} listing found ${before.entries.size} entries`);
  const now = Date.now();
  const summary = { source: undefined, tasks: [], runningAcrossMove: [], ownKeys: undefined, note: undefined };
  const window = { movedAt: now + 60_000, runStartedAt: now - 60_000, runEndedAt: now + 120_000, runId: 'bench' };
  const pass = async (): Promise<void> => {
    const result = await withholdAfterRun(cache, before, summary, window, {});
    if (result.withheld.length !== 0) throw new Error(`the ${label} bench cache changed under the pass`);
  };
  const [subjectMs, baselineMs] = await sideBySide(pass, bare, ctx.runs);
  const [listingMs, bareListing] = await sideBySide(() => cacheState(cache), bare, ctx.runs);
  rmSync(bench.root, { recursive: true, force: true });
  const [runner, ...where] = label.split(' ');
  const place = where.length === 0 ? '' : ` ${where.join(' ')}`;
  const row = (subject: string, subjectMs: number, baselineMs: number): BenchRow => ({
    group: 'withhold',
    subject,
    subjectMs,
    baseline: bench.baseline,
    baselineMs,
    goal: 1.5,
  });
  return [
    row(`withholding pass, ${entries} ${runner} entries${place}, none withheld`, subjectMs, baselineMs),
    row(`before-run listing (cacheState), ${entries} ${runner} entries${place}`, listingMs, bareListing),
  ];
}
