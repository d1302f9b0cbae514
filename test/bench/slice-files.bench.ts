// Benchmarks of the per-project slice files (issue 20):
// (a) a warm `lockguard run -- true` where nothing changed and the workspace uses slice files (the record is
//     current: one read and an lstat per project) vs the same run in a copy that does not use them (today's
//     `lockguard run -- true`): the median of the paired differences, goal at most 1 ms; and the same two
//     under callgrind when valgrind is here (instructions do not depend on the load);
// (b) where the lockfile changed, on astro's lockfile (../shared/fixtures; skipped when absent): the pass
//     (every project's slice computed, each file read and compared, the record written) vs the slice pass
//     `lockguard key --projects` makes (package names read), in process: goal at most 1.1x.
// Invariants: writes only under ctx.tmp; reports, never asserts.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileDigest } from '../../lib/core/digest.js';
import { slicesFromLockfile } from '../../lib/core/slices/slices.js';
import { applySliceFiles } from '../../lib/ledger/slice-files-write.js';
import { BIN } from '../helpers/cli.js';
import {
  countInstructions,
  hasValgrind,
  median,
  medianPairRatio,
  perOp,
  processSamples,
  timeProcess,
  type BenchContext,
  type BenchRow,
  type ProcessSpec,
} from './harness.js';
import { benchTools, turboExample } from './workspaces.js';

function mustPass(spec: ProcessSpec): void {
  const result = spawnSync(spec.command, [...spec.args], { ...spec.options, encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0)
    throw new Error(
      `${spec.command} ${spec.args.join(' ')} exits ${result.status ?? result.signal}:\n${result.stdout}${result.stderr}`,
    );
}

/** astro's lockfile (main document) in a workspace with every importer's folder and package.json. */
function astroWorkspace(ctx: BenchContext, fixtures: string): { root: string; bytes: Buffer } {
  const root = join(ctx.tmp, 'slice-files-astro');
  mkdirSync(root, { recursive: true });
  const text = readFileSync(join(fixtures, 'astro', 'pnpm-lock.yaml'), 'utf8');
  const main = (
    text
      .split(/^---[ \t]*$/m)
      .filter((part) => part.trim() !== '')
      .at(-1) ?? ''
  ).replace(/^\r?\n/, '');
  writeFileSync(join(root, 'pnpm-lock.yaml'), main);
  writeFileSync(join(root, 'package.json'), '{"name":"bench-root","private":true}\n');
  const bytes = readFileSync(join(root, 'pnpm-lock.yaml'));
  for (const slice of slicesFromLockfile(bytes, { lockfile: 'pnpm-lock.yaml', root, names: false }).slices) {
    if (slice.importer === '.' || slice.importer.startsWith('..')) continue;
    mkdirSync(join(root, slice.importer), { recursive: true });
    writeFileSync(
      join(root, slice.importer, 'package.json'),
      JSON.stringify({ name: slice.importer.replaceAll('/', '-') }),
    );
  }
  return { root, bytes };
}

/**
 * The same pass as the user runs it, whole process: `lockguard key --write-slices` after a lockfile change
 * (the record's digest set apart before each sample, so the memo cannot skip the pass) against `lockguard
 * key --projects`, alternating, in the astro workspace.
 */
function wholeProcessPass(root: string, runs: number): BenchRow {
  const record = join(root, '.lockguard', 'slice-files.json');
  const changed = (): void => {
    const parsed = JSON.parse(readFileSync(record, 'utf8')) as { digest: string | null };
    writeFileSync(record, `${JSON.stringify({ ...parsed, digest: null })}\n`);
  };
  const write: ProcessSpec = {
    command: process.execPath,
    args: [BIN, 'key', '--write-slices'],
    options: { cwd: root },
  };
  const projects: ProcessSpec = { command: process.execPath, args: [BIN, 'key', '--projects'], options: { cwd: root } };
  changed();
  mustPass(write);
  mustPass(projects);
  const subject: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? [true, false] : [false, true];
    for (const isSubject of order) {
      if (isSubject) changed();
      (isSubject ? subject : baseline).push(timeProcess(isSubject ? write : projects));
    }
  }
  return {
    group: 'slice-files',
    subject: 'lockguard key --write-slices after a lockfile change (astro), whole process',
    subjectMs: median(subject),
    baseline: 'lockguard key --projects, whole process',
    baselineMs: median(baseline),
    pairRatio: medianPairRatio(subject, baseline),
    goal: 1.1,
    note: 'the pass as a user runs it: Node start, the lockfile read, every slice, every project file compared, the record written; the baseline prints every project slice with its name',
  };
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const tools = benchTools(ctx.tmp);
  // (a) Two installed copies of examples/turbo-monorepo: one uses slice files (written once, seen by a run).
  const plain = turboExample(join(ctx.tmp, 'slices-off'), tools);
  const adopted = turboExample(join(ctx.tmp, 'slices-on'), tools);
  mustPass({
    command: process.execPath,
    args: [BIN, 'key', '--write-slices'],
    options: { cwd: adopted, env: tools.env },
  });
  const before: ProcessSpec = {
    command: process.execPath,
    args: [BIN, 'run', '--', 'true'],
    options: { cwd: plain, env: tools.env },
  };
  const withFiles: ProcessSpec = {
    command: process.execPath,
    args: [BIN, 'run', '--', 'true'],
    options: { cwd: adopted, env: tools.env },
  };
  mustPass(withFiles);
  mustPass(before);
  const [withSamples = [], beforeSamples = []] = processSamples([withFiles, before], ctx.runs);
  const difference = median(withSamples.map((value, i) => value - (beforeSamples[i] ?? Number.NaN)));
  const projects = readFileSync(join(adopted, '.lockguard', 'slice-files.json'), 'utf8').split('"importer"').length - 1;
  rows.push({
    group: 'slice-files',
    subject: `lockguard run -- true, slice files current (${projects} projects)`,
    subjectMs: median(withSamples),
    baseline: 'lockguard run -- true, no slice files',
    baselineMs: median(beforeSamples),
    pairRatio: medianPairRatio(withSamples, beforeSamples),
    note: `the slice files cost ${difference.toFixed(2)} ms on a warm run where nothing changed, the median of the paired differences (goal: at most 1 ms)`,
  });
  if (hasValgrind()) {
    const [withCount, beforeCount] = await Promise.all([withFiles, before].map(countInstructions));
    rows.push({
      group: 'slice-files',
      subject: 'lockguard run -- true, slice files current, instructions',
      subjectMs: withCount ?? Number.NaN,
      baseline: 'lockguard run -- true, no slice files',
      baselineMs: beforeCount ?? Number.NaN,
      unit: 'instructions',
      note: `callgrind, one run each: ${(((withCount ?? 0) - (beforeCount ?? 0)) / 1e6).toFixed(1)} M instructions more`,
    });
  }
  // (b) The pass where the lockfile changed, on astro's lockfile.
  if (ctx.fixturesDir !== undefined) {
    const { root, bytes } = astroWorkspace(ctx, ctx.fixturesDir);
    const digest = fileDigest(bytes);
    const options = { lockfile: 'pnpm-lock.yaml', root };
    // The files exist (as after an earlier write): the pass reads and compares each, and writes the record.
    applySliceFiles(root, slicesFromLockfile(bytes, { ...options, names: false }), digest);
    const importers = slicesFromLockfile(bytes, { ...options, names: false }).slices.length;
    const [subjectMs, baselineMs] = await perOp(
      () => applySliceFiles(root, slicesFromLockfile(bytes, { ...options, names: false }), digest),
      () => slicesFromLockfile(bytes, options),
      ctx.runs,
    );
    rows.push({
      group: 'slice-files',
      subject: `slice-file pass, lockfile changed (astro, ${importers} importers)`,
      subjectMs,
      baseline: 'the slice pass of lockguard key --projects (names read)',
      baselineMs,
      goal: 1.1,
      note: 'in process: every slice computed, every project file read and compared, the record written; the baseline computes the same slices and reads each package.json for its name',
    });
    rows.push(wholeProcessPass(root, ctx.runs));
  }
  return rows;
}
