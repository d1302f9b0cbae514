// STAND-IN, not the real harness: the e2e branch owns test/bench/harness.ts with this exact API. This copy
// exists only so slices.bench.ts compiles on the `slices` branch; keep the other one when merging.

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

function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Run a and b alternately `runs` times each (after one warm-up each); the median wall time of each, in ms. */
export async function sideBySide(a: () => unknown, b: () => unknown, runs: number): Promise<[number, number]> {
  await a();
  await b();
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < runs; i++) {
    let start = performance.now();
    await a();
    ta.push(performance.now() - start);
    start = performance.now();
    await b();
    tb.push(performance.now() - start);
  }
  return [median(ta), median(tb)];
}
