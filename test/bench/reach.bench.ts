// Precision of the reach on real histories (issue 29): per real lockfile change, the share of project keys
// each design keeps, read from `../shared/fixtures/history/<repo>/NN-<commit>.yaml` (consecutive real changes,
// 01 the newest; its README) when that folder is there, "skipped: no history" otherwise.
// Designs, per project present before and after a change (a key "moves" when its text would change):
// - own slice: the project's closure only (exact, not sound under hoisting: issue 29's bug);
// - slice files before the reach (lockguard-slice/1): own slice + the root importer's slice;
// - design A (lockguard-slice/2, chosen): + the hoisted pool's digest, for projects that install a package;
// - whole-lockfile key: every project's key moves on every change.
// Design B (only the hoisted packages that installed packages require without declaring) needs the installed
// packages' code, which the histories do not have: its share kept lies between design A's and the slice files
// before the reach (it folds a subset of the pool, and at least the own and root slices).
// Timing row: the reach's own cost (pool digest + which projects install a package) beside the whole slice
// pass of astro's newest lockfile, in process. Writes nothing.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { closureDigests } from '../../lib/core/slices/merkle.js';
import { installsPackages, poolDigest } from '../../lib/core/slices/reach.js';
import { slicesFromLockfileAsync, type LockfileSlices } from '../../lib/core/slices/slices.js';
import { median, type BenchContext, type BenchRow } from './harness.js';

const REPOS = ['vue-core', 'astro'] as const;

/** Per design: keys moved, over keys compared, across every change of one history. */
export interface HistoryShares {
  readonly changes: number;
  readonly keys: number;
  readonly own: number;
  readonly ownRoot: number;
  readonly designA: number;
  /** Changes that moved every project's key under design A. */
  readonly allMovedA: number;
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

/** Count, over consecutive revisions of one history folder, how many project keys each design moves. */
export async function historyShares(dir: string): Promise<HistoryShares> {
  const files = readdirSync(dir)
    .filter((name) => /^\d+-.*\.yaml$/.test(name))
    .sort()
    .reverse();
  let [changes, keys, own, ownRoot, designA, allMovedA] = [0, 0, 0, 0, 0, 0];
  let before = await slicesOf(join(dir, files[0] as string));
  for (const file of files.slice(1)) {
    const after = await slicesOf(join(dir, file));
    const old = new Map(before.slices.map((slice) => [slice.importer, slice]));
    const rootMoved = old.get('.')?.digest !== after.slices.find((slice) => slice.importer === '.')?.digest;
    let movedHere = 0;
    let compared = 0;
    for (const slice of after.slices) {
      const was = old.get(slice.importer);
      if (was === undefined) continue;
      compared++;
      const ownMoved = was.digest !== slice.digest;
      const withRoot = ownMoved || (slice.importer !== '.' && rootMoved);
      const withReach = withRoot || was.reach !== slice.reach;
      own += ownMoved ? 1 : 0;
      ownRoot += withRoot ? 1 : 0;
      designA += withReach ? 1 : 0;
      movedHere += withReach ? 1 : 0;
    }
    keys += compared;
    changes++;
    if (movedHere === compared) allMovedA++;
    before = after;
  }
  return { changes, keys, own, ownRoot, designA, allMovedA };
}

const pct = (moved: number, keys: number): string => `${(100 * (1 - moved / keys)).toFixed(1)}%`;

function sharesRow(repo: string, shares: HistoryShares): BenchRow {
  const { changes, keys, own, ownRoot, designA, allMovedA } = shares;
  return {
    group: 'reach',
    subject: `${repo}: project keys kept across ${changes} real changes, design A (lockguard-slice/2)`,
    subjectMs: keys - designA,
    baseline: 'keys compared (a whole-lockfile key keeps none)',
    baselineMs: keys,
    unit: 'keys',
    note: `keys kept of ${keys}: own slice ${pct(own, keys)}, own + root (lockguard-slice/1) ${pct(ownRoot, keys)}, design A ${pct(designA, keys)} (${allMovedA} of ${changes} changes moved every key), whole lockfile 0.0%; design B lies between A and own + root`,
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
  for (const repo of REPOS) {
    if (!existsSync(join(history, repo))) continue;
    rows.push(sharesRow(repo, await historyShares(join(history, repo))));
  }
  if (existsSync(join(history, 'astro'))) rows.push(await costRow(join(history, 'astro'), ctx.runs));
  return rows;
}
