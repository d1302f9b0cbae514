// The after-run withholding pass on a moon cache of 10,000 entries (`.moon/cache/outputs/<hash>.tar.gz`, each
// with its `hashes/<hash>.json`) vs a bare readdir of `outputs/` plus one lstat per entry (goal: within 1.5x,
// issue 32). Nothing moved: the pass lists (two readdirs: the cache dir, then `outputs/`), stats each archive
// and compares it with the before-listing; no lastRun state is read when nothing is withheld.

import { lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { resolveMoonCache } from '../../lib/integrations/runners/moon/cache.js';
import type { BenchContext, BenchRow } from './harness.js';
import { withholdRows } from './withhold-rows.js';

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
  const bare = (): void => {
    for (const name of readdirSync(outputs)) lstatSync(join(outputs, name));
  };
  const baseline = 'readdir of outputs/ + one lstat per entry';
  return withholdRows(ctx, { label: 'moon', entries: ENTRIES, root, cache, bare, baseline });
}
