// The after-run withholding pass on a moon cache of 10,000 entries (`.moon/cache/outputs/<hash>.tar.gz`, each
// with its `hashes/<hash>.json`) vs a bare readdir of `outputs/` plus one lstat per entry (goal: within 1.5x,
// issue 32). Nothing moved: the pass lists (two readdirs: the cache dir, then `outputs/`), stats each archive
// and compares it with the before-listing; no lastRun state is read when nothing is withheld.

import { lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { cacheState, withholdAfterRun } from '../../lib/integrations/runners/index.js';
import { resolveMoonCache } from '../../lib/integrations/runners/moon/cache.js';
import { sideBySide, type BenchContext, type BenchRow } from './harness.js';

const ENTRIES = 10_000;

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const root = join(ctx.tmp, 'withhold-moon-bench');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, '.moon'), { recursive: true });
  writeFileSync(join(root, '.moon', 'workspace.yml'), "projects: ['packages/*']\n");
  const cache = resolveMoonCache(root, [], {});
  const outputs = join(cache.dir, 'outputs');
  mkdirSync(outputs, { recursive: true });
  mkdirSync(join(cache.dir, 'hashes'), { recursive: true });
  mkdirSync(join(cache.dir, 'states'), { recursive: true });
  for (let i = 0; i < ENTRIES; i++) {
    const hash = createHash('sha256').update(`${i}`).digest('hex');
    writeFileSync(join(outputs, `${hash}.tar.gz`), `z${i}`);
    writeFileSync(join(cache.dir, 'hashes', `${hash}.json`), '[]');
  }
  const before = cacheState(cache);
  if (before.entries.size !== ENTRIES) throw new Error(`moon listing found ${before.entries.size} entries`);
  const bare = (): void => {
    for (const name of readdirSync(outputs)) lstatSync(join(outputs, name));
  };
  const now = Date.now();
  const summary = { source: undefined, tasks: [], runningAcrossMove: [], ownKeys: undefined, note: undefined };
  const window = { movedAt: now + 60_000, runStartedAt: now - 60_000, runEndedAt: now + 120_000, runId: 'bench' };
  const pass = async (): Promise<void> => {
    const result = await withholdAfterRun(cache, before, summary, window, {});
    if (result.withheld.length !== 0) throw new Error('the moon bench cache changed under the pass');
  };
  const [subjectMs, baselineMs] = await sideBySide(pass, bare, ctx.runs);
  const [listingMs, bareListing] = await sideBySide(() => cacheState(cache), bare, ctx.runs);
  rmSync(root, { recursive: true, force: true });
  const baseline = 'readdir of outputs/ + one lstat per entry';
  return [
    {
      group: 'withhold',
      subject: `withholding pass, ${ENTRIES} moon entries, none withheld`,
      subjectMs,
      baseline,
      baselineMs,
      goal: 1.5,
    },
    {
      group: 'withhold',
      subject: `before-run listing (cacheState), ${ENTRIES} moon entries`,
      subjectMs: listingMs,
      baseline,
      baselineMs: bareListing,
      goal: 1.5,
    },
  ];
}
