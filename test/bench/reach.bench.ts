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
// - whole-lockfile key: every project's key moves on every change.
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
  readonly allMovedB: number;
  /** Project keys (summed over revisions compared) whose closure held a package the map does not know. */
  readonly unknownB: number;
  /** Project keys whose closure held a package with a computed require or import. */
  readonly dynamicB: number;
}

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

interface Revision {
  readonly sliced: LockfileSlices;
  readonly folds: DesignBFolds;
}

/** One revision: its slices and design B's folds. */
async function revision(file: string, phantoms: Map<string, Phantoms>): Promise<Revision> {
  const sliced = await slicesOf(file);
  const folds = designBFolds(sliced, phantoms, mainDocument(readFileSync(file, 'utf8')));
  return { sliced, folds };
}

type Counts = { -readonly [K in keyof HistoryShares]: HistoryShares[K] };

/** Add one change (before -> after) to the counts: which designs moved each project's key. */
function countChange(counts: Counts, before: Revision, after: Revision): void {
  const old = new Map(before.sliced.slices.map((slice) => [slice.importer, slice]));
  const rootMoved = old.get('.')?.digest !== after.sliced.slices.find((slice) => slice.importer === '.')?.digest;
  let [compared, movedA, movedB] = [0, 0, 0];
  for (const slice of after.sliced.slices) {
    const was = old.get(slice.importer);
    if (was === undefined) continue;
    compared++;
    const ownMoved = was.digest !== slice.digest;
    const withRoot = ownMoved || (slice.importer !== '.' && rootMoved);
    const withReach = withRoot || was.reach !== slice.reach;
    const b = withRoot || before.folds.plain.get(slice.importer) !== after.folds.plain.get(slice.importer);
    const bc = withRoot || before.folds.computed.get(slice.importer) !== after.folds.computed.get(slice.importer);
    counts.own += ownMoved ? 1 : 0;
    counts.ownRoot += withRoot ? 1 : 0;
    movedA += withReach ? 1 : 0;
    movedB += b ? 1 : 0;
    counts.designBComputed += bc ? 1 : 0;
    counts.unknownB += after.folds.unknown.has(slice.importer) ? 1 : 0;
    counts.dynamicB += after.folds.dynamic.has(slice.importer) ? 1 : 0;
  }
  counts.keys += compared;
  counts.changes++;
  counts.designA += movedA;
  counts.designB += movedB;
  if (movedA === compared) counts.allMovedA++;
  if (movedB === compared) counts.allMovedB++;
}

/** Count, over consecutive revisions of one history folder, how many project keys each design moves. */
export async function historyShares(dir: string, phantoms: Map<string, Phantoms>): Promise<HistoryShares> {
  const files = readdirSync(dir)
    .filter((name) => /^\d+-.*\.yaml$/.test(name))
    .sort()
    .reverse();
  const counts: Counts = {
    ...{ changes: 0, keys: 0, own: 0, ownRoot: 0, designA: 0, allMovedA: 0 },
    ...{ designB: 0, designBComputed: 0, allMovedB: 0, unknownB: 0, dynamicB: 0 },
  };
  let before = await revision(join(dir, files[0] as string), phantoms);
  for (const file of files.slice(1)) {
    const after = await revision(join(dir, file), phantoms);
    countChange(counts, before, after);
    before = after;
  }
  return counts;
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
      note: `keys kept of ${keys}: design B ${pct(designB, keys)} (${allMovedB} of ${changes} changes moved every key); B where a computed require folds the pool ${pct(designBComputed, keys)}; of the keys compared, ${shares.unknownB} had a package the scan could not read in their closure (they fold the pool) and ${shares.dynamicB} a package with a computed require or import (B's blind spot)`,
    },
  ];
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
    rows.push(...sharesRows(repo, await historyShares(join(history, repo), phantoms)));
  }
  if (existsSync(join(history, 'astro'))) rows.push(await costRow(join(history, 'astro'), ctx.runs));
  return rows;
}
