// STAND-IN for the e2e branch's test/bench/harness.ts (same exported shapes), so withhold.bench.ts
// compiles on this branch. When merging, keep the e2e branch's file.

import { performance } from 'node:perf_hooks';

export interface BenchRow {
  group: string;
  subject: string;
  subjectMs: number;
  baseline: string;
  baselineMs: number;
  goal?: number;
  note?: string;
}

export interface BenchContext {
  tmp: string;
  fixturesDir: string | undefined;
  runs: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Run a and b alternately `runs` times; their median wall times in ms. */
export async function sideBySide(a: () => unknown, b: () => unknown, runs: number): Promise<[number, number]> {
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < runs; i++) {
    for (const [fn, out] of (i % 2 === 0 ? [[a, ta], [b, tb]] : [[b, tb], [a, ta]]) as [() => unknown, number[]][]) {
      const start = performance.now();
      await fn();
      out.push(performance.now() - start);
    }
  }
  return [median(ta), median(tb)];
}
