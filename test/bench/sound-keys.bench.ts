// Sound keys' cost to turbo: a warm `turbo run build` (every task a cache hit) with each package's
// `.lockguard-slice` folded into its tasks' hashes vs the same workspace without (issue 20's budget: ≤ 1.02×),
// in both modes: ignored (gitignored files named in `inputs`, turbo.json as `lockguard init --sound-keys`
// edits it) and committed (the files committed, no `inputs` entry: `init --sound-keys=committed`).
//
// Three copies of one workspace (60 packages, 20 source files each, a slice file each, a git repository as
// in real use), every cache warmed, then the three warm runs rotate (medians, and the median of the pair
// ratios, each against the same round's run without). turbo hashes `$TURBO_DEFAULT$` from git and globs each named extra input in the
// package folder: the cost is that walk (any extra input pays it), about 0.1 to 0.5 ms a task here.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { soundKeysEdits, writeEdits } from '../../lib/integrations/sound-keys/index.js';
import { type BenchContext, type BenchRow, median, medianPairRatio, processSamples } from './harness.js';
import { benchTools, mustRun } from './workspaces.js';

const PACKAGES = 60;
const FILES_PER_PACKAGE = 20;

function workspace(root: string, env: Record<string, string>): void {
  for (let i = 0; i < PACKAGES; i++) {
    const dir = join(root, 'packages', `p${i}`);
    mkdirSync(join(dir, 'src'), { recursive: true });
    const dependencies = i > 0 ? { [`p${i - 1}`]: 'workspace:*' } : {};
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        name: `p${i}`,
        version: '1.0.0',
        private: true,
        dependencies,
        scripts: {
          build:
            "node -e \"require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/out.txt','x')\"",
        },
      }),
    );
    for (let f = 0; f < FILES_PER_PACKAGE; f++)
      writeFileSync(join(dir, 'src', `f${f}.js`), `export const v${f} = ${i * 100 + f};\n`);
    writeFileSync(join(dir, '.lockguard-slice'), `lockguard-slice v1 ${String(i).padStart(64, '0')}\n`);
  }
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ name: 'sound-keys-bench', private: true, packageManager: 'pnpm@10.34.8' }),
  );
  writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages:\n  - "packages/*"\n');
  writeFileSync(join(root, '.gitignore'), 'node_modules\n.turbo\ndist\n.lockguard-slice\n');
  writeFileSync(
    join(root, 'turbo.json'),
    JSON.stringify({ tasks: { build: { dependsOn: ['^build'], outputs: ['dist/**'] } } }, null, 2),
  );
  mustRun(['pnpm', 'install', '--offline'], root, env);
}

function git(root: string, env: Record<string, string>): void {
  for (const argv of [
    ['git', 'init', '-q', '.'],
    ['git', 'add', '-A'],
    ['git', '-c', 'user.name=bench', '-c', 'user.email=bench@lockguard.invalid', 'commit', '-qm', 'S0'],
  ])
    mustRun(argv, root, env);
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const tools = benchTools(ctx.tmp);
  const template = join(ctx.tmp, 'template');
  const without = join(ctx.tmp, 'without');
  const folded = join(ctx.tmp, 'folded');
  const committed = join(ctx.tmp, 'committed');
  mkdirSync(template, { recursive: true });
  workspace(template, tools.env);
  // Every side a copy of one template: the same on-disk layout, only turbo.json and .gitignore differ.
  for (const copy of [without, folded, committed]) cpSync(template, copy, { recursive: true, verbatimSymlinks: true });
  writeEdits(folded, soundKeysEdits(folded));
  // Committed mode: the .gitignore line goes, turbo.json stays (build's inputs are turbo's default).
  writeEdits(committed, soundKeysEdits(committed, 'committed'));
  for (const root of [without, folded, committed]) {
    git(root, tools.env);
    mustRun(['turbo', 'run', 'build', '--output-logs=none'], root, tools.env);
  }
  for (const root of [folded, committed]) {
    const check = spawnSync('turbo', ['run', 'build', '--dry=json'], {
      cwd: root,
      env: tools.env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (!check.stdout.includes('".lockguard-slice"'))
      throw new Error(`the ${root} copy's dry run does not hash .lockguard-slice: the bench would measure nothing`);
  }
  const run = (cwd: string) => ({
    command: 'turbo',
    args: ['run', 'build', '--output-logs=none'],
    options: { cwd, env: tools.env },
  });
  const [foldedSamples = [], committedSamples = [], withoutSamples = []] = processSamples(
    [run(folded), run(committed), run(without)],
    ctx.runs,
  );
  return [
    {
      group: 'sound keys',
      subject: `warm turbo run build, ${PACKAGES} packages, each task folding its .lockguard-slice`,
      subjectMs: median(foldedSamples),
      baseline: 'the same without the slice files in inputs',
      baselineMs: median(withoutSamples),
      pairRatio: medianPairRatio(foldedSamples, withoutSamples),
      goal: 1.02,
      note: 'every task a cache hit (FULL TURBO) on both sides',
    },
    {
      group: 'sound keys',
      subject: `warm turbo run build, ${PACKAGES} packages, .lockguard-slice committed (no inputs entry: init --sound-keys=committed)`,
      subjectMs: median(committedSamples),
      baseline: 'the same without the slice files (gitignored, not in inputs)',
      baselineMs: median(withoutSamples),
      pairRatio: medianPairRatio(committedSamples, withoutSamples),
      goal: 1.02,
      note: 'every task a cache hit (FULL TURBO) on both sides; turbo hashes a committed file from the git index like any other',
    },
  ];
}
