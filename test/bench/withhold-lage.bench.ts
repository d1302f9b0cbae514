// The after-run withholding pass on a lage cache of 10,000 entries (`node_modules/.cache/lage/cache/<hash[:4]>/
// <hash>/`, each with its `logs/<hash[:4]>/<hash>.log`) vs a bare readdir of `cache/` and of each shard plus one
// lstat per entry (goal: within 1.5x, issue 32). Nothing moved: the pass lists (the cache dir, `cache/`, each
// shard), stats each entry and compares it with the before-listing.
// And what detecting the runners a workspace does not configure costs a guarded run (issue 32: "nothing
// measurable"): wireit's, moon's and lage's `configuredAt` and Rush's check, in process, on a pnpm workspace
// with turbo only, against a Node start (`node -e 0`): goal at most 1% of it.

import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveLageCache } from '../../lib/integrations/runners/lage/cache.js';
import { RUNNERS } from '../../lib/integrations/runners/registry.js';
import { rushHere } from '../../lib/integrations/runners/rush.js';
import { median, processSamples, type BenchContext, type BenchRow } from './harness.js';
import { withholdRows } from './withhold-rows.js';

const ENTRIES = 10_000;

async function lageRows(ctx: BenchContext): Promise<BenchRow[]> {
  const root = join(ctx.tmp, 'withhold-lage-bench');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'lage.config.js'), 'module.exports = { pipeline: { build: [] } };\n');
  const cache = resolveLageCache(root, [], {});
  for (let i = 0; i < ENTRIES; i++) {
    const hash = createHash('sha1').update(`${i}`).digest('hex');
    const prefix = hash.slice(0, 4);
    mkdirSync(join(cache.dir, 'cache', prefix, hash), { recursive: true });
    mkdirSync(join(cache.dir, 'logs', prefix), { recursive: true });
    writeFileSync(join(cache.dir, 'logs', prefix, `${hash}.log`), 'log');
  }
  const shards = join(cache.dir, 'cache');
  const bare = (): void => {
    for (const prefix of readdirSync(shards))
      for (const name of readdirSync(join(shards, prefix))) lstatSync(join(shards, prefix, name));
  };
  const baseline = 'readdir of cache/ and of each shard + one lstat per entry';
  return withholdRows(ctx, { label: 'lage', entries: ENTRIES, root, cache, bare, baseline });
}

function detectionRow(ctx: BenchContext): BenchRow {
  const root = join(ctx.tmp, 'detect-bench');
  mkdirSync(join(root, 'packages', 'a'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"name":"root","private":true,"devDependencies":{"turbo":"2.11.11"}}\n');
  writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\n');
  writeFileSync(join(root, 'turbo.json'), '{"tasks":{"build":{}}}\n');
  writeFileSync(join(root, 'packages', 'a', 'package.json'), '{"name":"a"}\n');
  const others = RUNNERS.filter((runner) => !['turbo', 'nx', 'pnpm-pipeline'].includes(runner.name));
  const detect = (): void => {
    for (const runner of others) if (runner.configuredAt(root, {})) throw new Error(`${runner.name} detected`);
    if (rushHere(root, () => []) !== undefined) throw new Error('Rush detected');
  };
  const rounds = 2_000;
  const samples: number[] = [];
  for (let i = 0; i < ctx.runs; i++) {
    const start = process.hrtime.bigint();
    for (let j = 0; j < rounds; j++) detect();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6 / rounds);
  }
  const [node = []] = processSamples([{ command: process.execPath, args: ['-e', '0'] }], ctx.runs);
  rmSync(root, { recursive: true, force: true });
  return {
    group: 'run',
    subject: `detecting ${others.map((runner) => runner.name).join(', ')} and Rush where none is configured (in process, once a run)`,
    subjectMs: median(samples),
    baseline: 'node -e 0',
    baselineMs: median(node),
    goal: 0.01,
    note: `the median of ${ctx.runs} rounds of ${rounds} detections each; spawnSync-free`,
  };
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  return [...(await lageRows(ctx)), detectionRow(ctx)];
}
