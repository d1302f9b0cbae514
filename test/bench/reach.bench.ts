// Precision of the reach on real histories (issue 29): per real lockfile change, the share of project keys
// each design keeps, read from `../shared/fixtures/history/<repo>/NN-<commit>.yaml` (consecutive real changes,
// 01 the newest; its README) when that folder is there, "skipped: no history" otherwise.
// Designs, per project present before and after a change (a key "moves" when its text would change):
// - own slice: the project's closure only (exact, not sound under hoisting: issue 29's bug);
// - slice files before the reach (lockguard-slice/1): own slice + the root importer's slice;
// - design A (lockguard-slice/2, chosen): + the hoisted pool's digest, for projects that install a package;
// - design B: own + root + only the hoisted entries named by what the project's installed packages require
//   without declaring (reach-design-b.ts, from test/bench/reach-phantoms.tsv: the real tarballs' code, scanned
//   by reach-scan.ts); and B where a computed require in the closure folds the whole pool (B's blind spot);
// - whole-lockfile key: every project's key moves on every change;
// - turbo's own keys (reach-turbo.ts): each revision rebuilt from its lockfile, `turbo run build --dry=json`,
//   its hashOfExternalDependencies and its task hash per package, and how many of the keys turbo kept a
//   design says moved (turbo's misses).
// Timing row: the reach's own cost (pool digest + which projects install a package) beside the whole slice
// pass of astro's newest lockfile, in process. Writes nothing.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { closureDigests } from '../../lib/core/slices/merkle.js';
import { installsPackages, poolDigest } from '../../lib/core/slices/reach.js';
import { slicesFromLockfileAsync, type LockfileSlices } from '../../lib/core/slices/slices.js';
import { designBFolds, loadPhantoms, type DesignBFolds, type Phantoms } from './reach-design-b.js';
import { designBPass } from './reach-design-b-pass.js';
import { turboHashes, writeWorkspace } from './reach-turbo.js';
import { median, type BenchContext, type BenchRow } from './harness.js';

const REPOS = ['vue-core', 'astro'] as const;
/** Design B's map, made by reach-scan.ts (read from the sources: tsc does not copy it into dist/). */
const PHANTOMS = fileURLToPath(new URL('../../../test/bench/reach-phantoms.tsv', import.meta.url));

/** Per design: keys moved, over keys compared, across every change of one history. */
export interface HistoryShares {
  readonly changes: number;
  readonly keys: number;
  readonly own: number;
  readonly ownRoot: number;
  readonly designA: number;
  /** Changes that moved every project's key under design A. */
  readonly allMovedA: number;
  readonly designB: number;
  /** Design B, where a package with a computed require in the closure folds the whole pool. */
  readonly designBComputed: number;
  /** Design B's estimate with the unreadable registry tarballs read as code-free (not sound). */
  readonly designBCodeless: number;
  /** Design B in committed mode with a map one change behind (a bot's pull request: nothing rescanned). */
  readonly designBStale: number;
  readonly allMovedB: number;
  /** Project keys (summed over revisions compared) whose closure held a package the map does not know. */
  readonly unknownB: number;
  /** Project keys whose closure held a package with a computed require or import. */
  readonly dynamicB: number;
  /** turbo's own hashes for the same changes, where turbo ran. */
  readonly turbo?: TurboShares;
}

/** turbo's per-package keys over the importers turbo plans a build for (every importer but the root). */
export interface TurboShares {
  keys: number;
  /** `hashOfExternalDependencies` unchanged across the change. */
  externalKept: number;
  /** The build task's hash unchanged (it folds the root's external dependencies and `^build`'s hashes). */
  taskKept: number;
  /** Of the keys turbo's external hash kept: how many a design says moved. */
  readonly externalMissed: { own: number; b: number };
  /** Of the keys turbo's task hash kept: how many a design says moved (turbo's misses: stale replays). */
  readonly taskMissed: { own: number; b: number; a: number };
}

const emptyTurboShares = (): TurboShares => ({
  ...{ keys: 0, externalKept: 0, taskKept: 0 },
  ...{ externalMissed: { own: 0, b: 0 }, taskMissed: { own: 0, b: 0, a: 0 } },
});

function mainDocument(text: string): string {
  return (
    text
      .split(/^---[ \t]*$/m)
      .filter((part) => part.trim() !== '')
      .at(-1) ?? ''
  ).replace(/^\r?\n/, '');
}

async function slicesOf(file: string): Promise<LockfileSlices> {
  const bytes = Buffer.from(mainDocument(readFileSync(file, 'utf8')));
  return slicesFromLockfileAsync(bytes, { lockfile: 'pnpm-lock.yaml', root: '/nonexistent', names: false });
}

type TurboMap = Map<string, { external: string; task: string }>;

interface Revision {
  readonly sliced: LockfileSlices;
  readonly main: string;
  readonly folds: DesignBFolds;
  readonly turbo?: TurboMap;
}

/** The one-pass fold must equal the walk per project (the definition) on every revision: else the bench stops. */
function sameFolds(pass: DesignBFolds, walk: DesignBFolds, file: string): void {
  for (const variant of ['plain', 'computed', 'codeless'] as const)
    for (const [importer, digest] of walk[variant])
      if (pass[variant].get(importer) !== digest)
        throw new Error(`design B's one-pass fold differs from the walk: ${file}, ${importer}, ${variant}`);
}

/** One revision: its slices, design B's folds and, given a folder to rebuild it in, turbo's hashes. */
async function revision(file: string, phantoms: Map<string, Phantoms>, turboDir?: string): Promise<Revision> {
  const sliced = await slicesOf(file);
  const main = mainDocument(readFileSync(file, 'utf8'));
  const folds = designBPass(sliced, phantoms, main);
  sameFolds(folds, designBFolds(sliced, phantoms, main), file);
  if (turboDir === undefined) return { sliced, main, folds };
  writeWorkspace(join(turboDir, 'ws'), main);
  return { sliced, main, folds, turbo: turboHashes(join(turboDir, 'ws'), join(turboDir, 'home')) };
}

type Counts = { -readonly [K in keyof HistoryShares]: HistoryShares[K] };

/** Per importer present before and after one change: which designs moved its key. */
interface Moved {
  readonly own: boolean;
  readonly ownRoot: boolean;
  readonly a: boolean;
  readonly b: boolean;
}

/** Add one change (before -> after) to the counts: which designs moved each project's key. */
function countChange(counts: Counts, before: Revision, after: Revision): Map<string, Moved> {
  const old = new Map(before.sliced.slices.map((slice) => [slice.importer, slice]));
  const rootMoved = old.get('.')?.digest !== after.sliced.slices.find((slice) => slice.importer === '.')?.digest;
  const moved = new Map<string, Moved>();
  for (const slice of after.sliced.slices) {
    const was = old.get(slice.importer);
    if (was === undefined) continue;
    const own = was.digest !== slice.digest;
    const ownRoot = own || (slice.importer !== '.' && rootMoved);
    const a = ownRoot || was.reach !== slice.reach;
    const b = ownRoot || before.folds.plain.get(slice.importer) !== after.folds.plain.get(slice.importer);
    const bc = ownRoot || before.folds.computed.get(slice.importer) !== after.folds.computed.get(slice.importer);
    moved.set(slice.importer, { own, ownRoot, a, b });
    counts.own += own ? 1 : 0;
    counts.ownRoot += ownRoot ? 1 : 0;
    counts.designA += a ? 1 : 0;
    counts.designB += b ? 1 : 0;
    counts.designBComputed += bc ? 1 : 0;
    const bx = ownRoot || before.folds.codeless.get(slice.importer) !== after.folds.codeless.get(slice.importer);
    counts.designBCodeless += bx ? 1 : 0;
    counts.unknownB += after.folds.unknown.has(slice.importer) ? 1 : 0;
    counts.dynamicB += after.folds.dynamic.has(slice.importer) ? 1 : 0;
  }
  const all = [...moved.values()];
  counts.keys += all.length;
  counts.changes++;
  if (all.every((m) => m.a)) counts.allMovedA++;
  if (all.every((m) => m.b)) counts.allMovedB++;
  return moved;
}

/** Per importer: the importers it reaches through workspace links (itself included): what `^build` folds. */
function workspaceClosures(sliced: LockfileSlices): Map<string, string[]> {
  const { importers, edges } = sliced.graph;
  const idOf = new Map([...importers].map(([id, node]) => [node, id]));
  const out = new Map<string, string[]>();
  for (const [id, start] of importers) {
    const seen = new Set([start]);
    const queue = [start];
    for (let node = queue.pop(); node !== undefined; node = queue.pop())
      for (const next of edges[node] ?? [])
        if (idOf.has(next) && !seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
    out.set(
      id,
      [...seen].map((node) => idOf.get(node) as string),
    );
  }
  return out;
}

/** Add one change to turbo's counts: what its hashes kept, and which of those kept keys a design moved. */
function countTurbo(counts: TurboShares, before: Revision, after: Revision, moved: Map<string, Moved>): void {
  const [old, now] = [before.turbo as TurboMap, after.turbo as TurboMap];
  const ownTaskMoved = (id: string): boolean => old.get(id)?.task !== now.get(id)?.task;
  const closures = workspaceClosures(after.sliced);
  for (const [importer, hashes] of now) {
    const was = old.get(importer);
    const design = moved.get(importer);
    if (was === undefined || design === undefined) continue;
    counts.keys++;
    const extKept = was.external === hashes.external;
    const taskKept = !(closures.get(importer) ?? [importer]).some(ownTaskMoved);
    counts.externalKept += extKept ? 1 : 0;
    counts.taskKept += taskKept ? 1 : 0;
    if (extKept) counts.externalMissed.own += design.own ? 1 : 0;
    if (extKept) counts.externalMissed.b += design.b ? 1 : 0;
    if (!taskKept) continue;
    counts.taskMissed.own += design.own ? 1 : 0;
    counts.taskMissed.b += design.b ? 1 : 0;
    counts.taskMissed.a += design.a ? 1 : 0;
  }
}

/**
 * Design B's moves where the map was committed with the revision before (committed mode after a change nobody
 * rescanned, e.g. a bot's pull request): the versions the change brings are unknown, so projects that reach
 * one fold the whole pool.
 */
function staleMoves(moved: Map<string, Moved>, before: Revision, after: Revision, phantoms: Map<string, Phantoms>) {
  const known = new Map<string, Phantoms>();
  const { graph } = before.sliced;
  for (let node = 0; node < graph.own.length; node++) {
    const label = graph.label(node);
    const key = label.kind === 'package' ? `${label.name}@${label.version}` : undefined;
    const scan = key === undefined ? undefined : phantoms.get(key);
    if (key !== undefined && scan !== undefined) known.set(key, scan);
  }
  const stale = designBPass(after.sliced, known, after.main);
  let count = 0;
  for (const [importer, design] of moved)
    count += design.ownRoot || before.folds.plain.get(importer) !== stale.plain.get(importer) ? 1 : 0;
  return count;
}

/** Count, over consecutive revisions of one history folder, how many project keys each design moves. */
export async function historyShares(
  dir: string,
  phantoms: Map<string, Phantoms>,
  turboDir?: string,
): Promise<HistoryShares> {
  const files = readdirSync(dir)
    .filter((name) => /^\d+-.*\.yaml$/.test(name))
    .sort()
    .reverse();
  const counts: Counts = {
    ...{ changes: 0, keys: 0, own: 0, ownRoot: 0, designA: 0, allMovedA: 0 },
    ...{ designB: 0, designBComputed: 0, designBCodeless: 0, designBStale: 0, allMovedB: 0, unknownB: 0, dynamicB: 0 },
  };
  const turbo = turboDir === undefined ? undefined : emptyTurboShares();
  let before = await revision(join(dir, files[0] as string), phantoms, turboDir);
  for (const file of files.slice(1)) {
    const after = await revision(join(dir, file), phantoms, turboDir);
    const moved = countChange(counts, before, after);
    counts.designBStale += staleMoves(moved, before, after, phantoms);
    if (turbo && before.turbo && after.turbo) countTurbo(turbo, before, after, moved);
    before = after;
  }
  return turbo === undefined ? counts : { ...counts, turbo };
}

const pct = (moved: number, keys: number): string => `${(100 * (1 - moved / keys)).toFixed(1)}%`;

function sharesRows(repo: string, shares: HistoryShares): BenchRow[] {
  const { changes, keys, own, ownRoot, designA, allMovedA, designB, designBComputed, allMovedB } = shares;
  const base = {
    group: 'reach',
    baseline: 'keys compared (a whole-lockfile key keeps none)',
    baselineMs: keys,
  } as const;
  return [
    {
      ...base,
      subject: `${repo}: project keys kept across ${changes} real changes, design A (lockguard-slice/2)`,
      subjectMs: keys - designA,
      unit: 'keys',
      note: `keys kept of ${keys}: own slice ${pct(own, keys)}, own + root (lockguard-slice/1) ${pct(ownRoot, keys)}, design A ${pct(designA, keys)} (${allMovedA} of ${changes} changes moved every key), design B ${pct(designB, keys)}, whole lockfile 0.0%`,
    },
    {
      ...base,
      subject: `${repo}: project keys kept across ${changes} real changes, design B (phantom requires, scanned tarballs)`,
      subjectMs: keys - designB,
      unit: 'keys',
      note: `keys kept of ${keys}: design B ${pct(designB, keys)} (${allMovedB} of ${changes} changes moved every key); B where a computed require folds the pool ${pct(designBComputed, keys)}; of the keys compared, ${shares.unknownB} had a package the scan could not read in their closure (they fold the pool; were the unreadable registry tarballs code-free, B would keep ${pct(shares.designBCodeless, keys)}) and ${shares.dynamicB} a package with a computed require or import (B's blind spot); with the map one change behind (committed mode after a change nobody rescanned: its new versions fold the pool) B keeps ${pct(shares.designBStale, keys)}`,
    },
  ];
}

function turboRow(repo: string, shares: HistoryShares, turbo: TurboShares): BenchRow {
  const { keys, externalKept, taskKept, externalMissed, taskMissed } = turbo;
  return {
    group: 'reach',
    subject: `${repo}: turbo's own per-package keys kept across ${shares.changes} real changes (hashOfExternalDependencies)`,
    subjectMs: externalKept,
    baseline: 'keys compared (every importer turbo plans a build for: all but the root)',
    baselineMs: keys,
    unit: 'keys',
    note: `turbo 2.11 --dry=json on each revision rebuilt from its lockfile: hashOfExternalDependencies kept ${pct(keys - externalKept, keys)} (of those kept, the own slice says ${externalMissed.own} moved, design B ${externalMissed.b}); the build task's hash (the root's external dependencies, package.json, ^build composed over workspace dependencies) kept ${pct(keys - taskKept, keys)}; of the task keys turbo kept, the own slice says ${taskMissed.own} moved (turbo's misses of the lockfile), design B ${taskMissed.b} (the reach turbo cannot see), design A ${taskMissed.a}`,
  };
}

/** The reach's own cost beside the whole slice pass, in process, on astro's newest lockfile. */
async function costRow(dir: string, runs: number): Promise<BenchRow> {
  const file = readdirSync(dir).filter((name) => name.startsWith('01-'))[0] as string;
  const sliced = await slicesOf(join(dir, file));
  const pass: number[] = [];
  const reach: number[] = [];
  for (let i = 0; i < runs; i++) {
    let start = performance.now();
    await slicesOf(join(dir, file));
    pass.push(performance.now() - start);
    const closures = closureDigests(sliced.graph);
    start = performance.now();
    poolDigest(closures);
    installsPackages(sliced.graph);
    reach.push(performance.now() - start);
  }
  const total = median(pass);
  const own = median(reach);
  return {
    group: 'reach',
    subject: `astro (${sliced.slices.length} importers): the slice pass with the reach`,
    subjectMs: total,
    baseline: 'the same pass without the reach (pass minus the reach step)',
    baselineMs: total - own,
    goal: 1.2,
    note: `the reach step (pool digest + which projects install a package) takes ${own.toFixed(2)} ms of ${total.toFixed(1)} ms`,
  };
}

/** Design B's fold in one pass (reach-design-b-pass.ts) beside the slice pass, on astro's newest lockfile. */
async function designBCostRow(dir: string, runs: number, phantoms: Map<string, Phantoms>): Promise<BenchRow> {
  const file = join(dir, readdirSync(dir).filter((name) => name.startsWith('01-'))[0] as string);
  const main = mainDocument(readFileSync(file, 'utf8'));
  const sliced = await slicesOf(file);
  const pass: number[] = [];
  const fold: number[] = [];
  for (let i = 0; i < runs; i++) {
    let start = performance.now();
    await slicesOf(file);
    pass.push(performance.now() - start);
    start = performance.now();
    designBPass(sliced, phantoms, main);
    fold.push(performance.now() - start);
  }
  return {
    group: 'reach',
    subject: `astro (${sliced.slices.length} importers): design B's fold in one pass, the map in memory`,
    subjectMs: median(fold),
    baseline: 'the slice pass (design A)',
    baselineMs: median(pass),
    note: 'the phantom names unioned per strongly connected component (bitsets), closed per importer, one digest per distinct name set; equal to the walk per project on every revision of both histories (checked as the shares are counted)',
  };
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const history = ctx.fixturesDir === undefined ? undefined : join(ctx.fixturesDir, '..', 'history');
  if (history === undefined || !existsSync(history))
    return [
      {
        group: 'reach',
        subject: 'real histories (vue-core, astro)',
        subjectMs: Number.NaN,
        baseline: '-',
        baselineMs: Number.NaN,
        note: 'skipped: no history (../shared/fixtures/history is not there)',
      },
    ];
  const rows: BenchRow[] = [];
  const phantoms = loadPhantoms(PHANTOMS);
  for (const repo of REPOS) {
    if (!existsSync(join(history, repo))) continue;
    const shares = await historyShares(join(history, repo), phantoms, join(ctx.tmp, `reach-turbo-${repo}`));
    rows.push(...sharesRows(repo, shares));
    if (shares.turbo !== undefined) rows.push(turboRow(repo, shares, shares.turbo));
  }
  if (existsSync(join(history, 'astro'))) rows.push(await costRow(join(history, 'astro'), ctx.runs));
  if (existsSync(join(history, 'astro'))) rows.push(await designBCostRow(join(history, 'astro'), ctx.runs, phantoms));
  return rows;
}
