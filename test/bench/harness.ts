// STAND-IN for the bench harness on the e2e branch (test/bench/harness.ts there): only what
// pnpmfile.bench.ts needs, with the same names and shapes, so this branch compiles on its own. When the
// branches meet, the e2e branch's file wins and this one is dropped.

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

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Median ms of `a` and of `b`, alternating (order flips each round) after one warm-up of each. */
export async function sideBySide(a: () => unknown, b: () => unknown, runs: number): Promise<[number, number]> {
  await a();
  await b();
  const as: number[] = [];
  const bs: number[] = [];
  const timed = async (fn: () => unknown): Promise<number> => {
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      as.push(await timed(a));
      bs.push(await timed(b));
    } else {
      bs.push(await timed(b));
      as.push(await timed(a));
    }
  }
  return [median(as), median(bs)];
}
