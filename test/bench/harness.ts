// The benchmark harness: side-by-side medians (subject vs its physical-limit baseline), the result rows,
// and the markdown table with the machine it ran on.
//
// Owns: `BenchRow`, `BenchContext`, `sideBySide` / `perOp` (in-process), `processSideBySide` / `processRotation` /
// `processMedian` (whole processes), `countInstructions` (callgrind), `formatTable`, `machineLine`. Bench modules export `bench(ctx): Promise<BenchRow[]>`.
// Invariants: subject and baseline always run alternately in the same loop after a warm-up (a loaded
// machine slows both alike); results are medians, never means; nothing here asserts on time (a benchmark
// reports, tests never time).

import { execFile, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { performance } from 'node:perf_hooks';

/** One line of the table. ratio = subjectMs / baselineMs; `goal` is the highest acceptable ratio. */
export interface BenchRow {
  group: string;
  subject: string;
  subjectMs: number;
  baseline: string;
  baselineMs: number;
  goal?: number;
  note?: string;
  /** What subjectMs/baselineMs hold: wall milliseconds (default) or counted instructions (callgrind). */
  unit?: 'ms' | 'instructions' | 'keys';
  /** Samples taken in pairs (subject, baseline, alternating): the median of the pair ratios, which a machine whose speed drifts between pairs moves less than the ratio of the two medians. */
  pairRatio?: number;
}

export interface BenchContext {
  /** A temp folder for this bench run (removed by the runner). */
  tmp: string;
  /** The real lockfiles (`../shared/fixtures/lockfiles`), or undefined when that folder is not there. */
  fixturesDir: string | undefined;
  /** Samples per measurement (each sample runs subject and baseline once). */
  runs: number;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

async function timed(fn: () => unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * Median ms of `a` and of `b`, run alternately (the order flips each round) after one warm-up of each.
 * Async functions are awaited.
 */
export async function sideBySide(a: () => unknown, b: () => unknown, runs: number): Promise<[number, number]> {
  await a();
  await b();
  const as: number[] = [];
  const bs: number[] = [];
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

/** Repeat `fn` enough times per sample that one sample takes about `targetMs` (timer resolution). */
export function repeatFor(fn: () => unknown, targetMs = 20): { inner: number; run: () => void } {
  const start = performance.now();
  fn();
  const once = Math.max(performance.now() - start, 0.001);
  const inner = Math.max(1, Math.min(10_000, Math.round(targetMs / once)));
  return {
    inner,
    run: () => {
      for (let i = 0; i < inner; i++) fn();
    },
  };
}

/** `sideBySide` per operation for fast synchronous functions: each sample repeats them (see repeatFor). */
export async function perOp(subject: () => unknown, baseline: () => unknown, runs: number): Promise<[number, number]> {
  const s = repeatFor(subject);
  const b = repeatFor(baseline);
  const [subjectMs, baselineMs] = await sideBySide(s.run, b.run, runs);
  return [subjectMs / s.inner, baselineMs / b.inner];
}

/** A process to time: spawned with spawnSync, stdio ignored. */
export interface ProcessSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly options?: SpawnSyncOptions;
}

/** Wall time of one process run, in ms; throws when it fails (a failing subject measures nothing). */
export function timeProcess(spec: ProcessSpec): number {
  const start = performance.now();
  const result = spawnSync(spec.command, [...spec.args], { stdio: 'ignore', timeout: 60_000, ...spec.options });
  const ms = performance.now() - start;
  if (result.error !== undefined) throw result.error;
  return ms;
}

/** Median wall time of a process over `runs` runs, after one warm-up. */
export function processMedian(spec: ProcessSpec, runs: number): number {
  timeProcess(spec);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(timeProcess(spec));
  return median(times);
}

/** `sideBySide` for whole processes: median wall times of `a` and `b`, alternating. */
export function processSideBySide(a: ProcessSpec, b: ProcessSpec, runs: number): Promise<[number, number]> {
  return sideBySide(
    () => timeProcess(a),
    () => timeProcess(b),
    runs,
  );
}

/**
 * Median wall times of several processes sampled together: one warm-up each, then every sample runs each
 * once, the starting process rotating from sample to sample.
 */
export function processRotation(specs: readonly ProcessSpec[], runs: number): number[] {
  return processSamples(specs, runs).map(median);
}

/** Every sample of `processRotation` (index-aligned: sample i of each spec was taken in the same round). */
export function processSamples(specs: readonly ProcessSpec[], runs: number): number[][] {
  for (const spec of specs) timeProcess(spec);
  const times: number[][] = specs.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (let j = 0; j < specs.length; j++) {
      const k = (i + j) % specs.length;
      const spec = specs[k];
      if (spec !== undefined) times[k]?.push(timeProcess(spec));
    }
  }
  return times;
}

/** Whether `valgrind` runs here (instruction counts need it). */
export function hasValgrind(): boolean {
  return spawnSync('valgrind', ['--version'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
}

/**
 * Instructions a process executes (its own, not its children's), counted by callgrind. The count does not
 * depend on the machine's load, so several counts may run at once (Promise.all). Rejects when the process
 * fails.
 */
export function countInstructions(spec: ProcessSpec): Promise<number> {
  const argv = ['--tool=callgrind', '--callgrind-out-file=/dev/null', spec.command, ...spec.args];
  const { cwd, env } = spec.options ?? {};
  return new Promise((resolve, reject) => {
    execFile(
      'valgrind',
      argv,
      {
        ...(cwd === undefined ? {} : { cwd }),
        ...(env === undefined ? {} : { env }),
        timeout: 300_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, _stdout, stderr) => {
        const collected = /Collected\s*:\s*(\d+)/.exec(stderr)?.[1];
        if (error !== null || collected === undefined)
          reject(
            new Error(
              `callgrind of ${spec.command} ${spec.args.join(' ')} failed (${error?.message ?? 'no count'}):\n${stderr.slice(-2000)}`,
            ),
          );
        else resolve(Number(collected));
      },
    );
  });
}

function ms(value: number, unit: BenchRow['unit'] = 'ms'): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (unit === 'instructions') return `${(value / 1e6).toFixed(0)} M instr`;
  if (unit === 'keys') return `${value.toFixed(0)} keys`;
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 1) return `${value.toFixed(1)} ms`;
  return `${(value * 1000).toFixed(0)} µs`;
}

export function ratioOf(row: BenchRow): number {
  return row.pairRatio ?? row.subjectMs / row.baselineMs;
}

/** The median of subject[i] / baseline[i] over samples taken in pairs. */
export function medianPairRatio(subject: readonly number[], baseline: readonly number[]): number {
  return median(subject.map((value, i) => value / (baseline[i] ?? Number.NaN)));
}

export function verdictOf(row: BenchRow): string {
  if (row.goal === undefined) return '';
  const ratio = ratioOf(row);
  if (!Number.isFinite(ratio)) return 'n/a';
  return ratio <= row.goal ? 'ok' : 'over';
}

/** The markdown table: group | subject | median | baseline | median | ratio | goal | verdict, notes below. */
export function formatTable(rows: readonly BenchRow[]): string {
  const lines = [
    '| group | subject | median | baseline | median | ratio | goal | verdict |',
    '|---|---|---:|---|---:|---:|---:|---|',
  ];
  const notes: string[] = [];
  for (const row of rows) {
    const ratio = ratioOf(row);
    const mark = row.note === undefined ? '' : ` [${notes.push(row.note)}]`;
    lines.push(
      `| ${row.group} | ${row.subject}${mark} | ${ms(row.subjectMs, row.unit)} | ${row.baseline} | ${ms(row.baselineMs, row.unit)} | ` +
        `${Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : 'n/a'} | ${row.goal === undefined ? '' : `≤ ${row.goal}×`} | ${verdictOf(row)} |`,
    );
  }
  if (notes.length > 0) lines.push('', ...notes.map((note, i) => `[${i + 1}] ${note}`));
  return lines.join('\n');
}

/** `CPU model, N cores, Node vX` (CPU model from /proc/cpuinfo where there is one). */
export function machineLine(): string {
  let model = cpus()[0]?.model ?? 'unknown CPU';
  try {
    const found = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (found?.[1] !== undefined) model = found[1].trim();
  } catch {
    // Not Linux: os.cpus() said what it could.
  }
  return `${model}, ${availableParallelism()} cores, Node ${process.version} (${process.platform} ${process.arch})`;
}
