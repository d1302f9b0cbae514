// The after-run withholding pass on a turbo cache of 10,000 entries (30,000 files) vs a bare readdir plus
// one lstat per entry (goal: within 1.5x). Nothing moved: the pass lists, stats each entry's primary file
// and compares it with the before-listing. A second row withholds 100 of them (rename + sha256 of each
// file into quarantine, then put back between runs), for scale; it has no goal. wireit's rows: 10,000 entries
// spread over 10 packages' `.wireit/<hex>/cache/` (its adapter's listing and pass), against a bare readdir of
// each package's cache folder plus one lstat per entry (goal: within 1.5x, issue 32).

import { lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { cacheState, withhold, type RunnerCache } from '../../lib/integrations/runners/index.js';
import { resolveWireitCache } from '../../lib/integrations/runners/wireit/cache.js';
import { trustedPlaces } from '../../lib/ledger/trust.js';
import { restore } from '../../lib/ledger/quarantine/index.js';
import { sideBySide, type BenchContext, type BenchRow } from './harness.js';
import { withholdRows } from './withhold-rows.js';

const ENTRIES = 10_000;

function hashOf(i: number): string {
  return i.toString(16).padStart(16, '0');
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const root = join(ctx.tmp, 'withhold-bench');
  rmSync(root, { recursive: true, force: true });
  const cache: RunnerCache = { runner: 'turbo', root, dir: join(root, '.turbo', 'cache'), source: 'default' };
  mkdirSync(cache.dir, { recursive: true });
  for (let i = 0; i < ENTRIES; i++) {
    const hash = hashOf(i);
    writeFileSync(join(cache.dir, `${hash}.tar.zst`), `z${i}`);
    writeFileSync(join(cache.dir, `${hash}-meta.json`), '{}');
    writeFileSync(join(cache.dir, `${hash}-manifest.json`), '{}');
  }
  const before = cacheState(cache);
  const now = Date.now();
  const window = { movedAt: now + 60_000, runStartedAt: now - 60_000, runEndedAt: now + 120_000 };
  const bare = (): void => {
    for (const name of readdirSync(cache.dir)) if (name.endsWith('.tar.zst')) lstatSync(join(cache.dir, name));
  };
  const pass = async (): Promise<void> => {
    const result = await withhold(cache, before, { ...window, runId: 'bench' });
    if (result.withheld.length !== 0) throw new Error('the bench cache changed under the pass');
  };
  const [subjectMs, baselineMs] = await sideBySide(pass, bare, ctx.runs);
  const [listingMs, bareListing] = await sideBySide(() => cacheState(cache), bare, ctx.runs);

  // 100 fresh entries written after the move: withheld each run, restored between runs.
  const fresh = Array.from({ length: 100 }, (_, i) => hashOf(ENTRIES + i));
  const writeFresh = (): void => {
    for (const hash of fresh)
      for (const suffix of ['.tar.zst', '-meta.json', '-manifest.json'])
        writeFileSync(join(cache.dir, `${hash}${suffix}`), `fresh ${hash}`);
  };
  writeFresh();
  let n = 0;
  const withholding = async (): Promise<void> => {
    const runId = `bench-${n++}`;
    const result = await withhold(cache, before, { movedAt: 0, runStartedAt: 0, runEndedAt: Date.now() + 1000, runId });
    if (result.withheld.length !== fresh.length)
      throw new Error(`expected ${fresh.length} withheld, got ${result.withheld.length}`);
    restore(root, runId, { places: trustedPlaces(root, [{ runner: 'turbo', dir: cache.dir }]) });
  };
  const [withheldMs, bareAgain] = await sideBySide(withholding, bare, Math.max(3, Math.ceil(ctx.runs / 2)));
  rmSync(root, { recursive: true, force: true });
  const wireit = await wireitRows(ctx);
  return [
    {
      group: 'withhold',
      subject: `withholding pass, ${ENTRIES} turbo entries, none withheld`,
      subjectMs,
      baseline: `readdir + one lstat per entry`,
      baselineMs,
      goal: 1.5,
    },
    {
      group: 'withhold',
      subject: `before-run listing (cacheState), ${ENTRIES} turbo entries`,
      subjectMs: listingMs,
      baseline: `readdir + one lstat per entry`,
      baselineMs: bareListing,
      goal: 1.5,
    },
    {
      group: 'withhold',
      subject: `withholding pass, ${ENTRIES} entries, 100 withheld (+ restore)`,
      subjectMs: withheldMs,
      baseline: `readdir + one lstat per entry`,
      baselineMs: bareAgain,
      note: 'moves 300 files into quarantine with sha256, then restores them',
    },
    ...wireit,
  ];
}

const WIREIT_PACKAGES = 10;
const HEX_BUILD = Buffer.from('build').toString('hex');

/** A wireit workspace of 10 packages holding ENTRIES entries between them (one output file each). */
function wireitWorkspace(root: string): string[] {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, 'node_modules', 'wireit'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"name":"root"}');
  writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages:\n  - "packages/*"\n');
  const caches: string[] = [];
  for (let p = 0; p < WIREIT_PACKAGES; p++) {
    const dir = join(root, 'packages', `p${p}`);
    mkdirSync(dir, { recursive: true });
    const build = { command: 'tsc', files: ['src/**'], output: ['lib/**'] };
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `p${p}`, wireit: { build } }));
    const cache = join(dir, '.wireit', HEX_BUILD, 'cache');
    caches.push(cache);
    for (let i = 0; i < ENTRIES / WIREIT_PACKAGES; i++) {
      const key = createHash('sha256').update(`${p}-${i}`).digest('hex');
      mkdirSync(join(cache, key, 'lib'), { recursive: true });
      writeFileSync(join(cache, key, 'lib', 'out.js'), `${i}`);
    }
  }
  return caches;
}

async function wireitRows(ctx: BenchContext): Promise<BenchRow[]> {
  const root = join(ctx.tmp, 'withhold-wireit-bench');
  const caches = wireitWorkspace(root);
  const cache = resolveWireitCache(root, [], {});
  const bare = (): void => {
    for (const dir of caches) for (const name of readdirSync(dir)) lstatSync(join(dir, name));
  };
  const baseline = 'readdir of each package cache + one lstat per entry';
  const label = `wireit in ${WIREIT_PACKAGES} packages`;
  return withholdRows(ctx, { label, entries: ENTRIES, root, cache, bare, baseline });
}
