// lockguard around a warm runner on a workspace of real size (issue 34): 300 projects, 300 local packages
// (`file:` folders, as a registry's would be linked), each project on 12 of them and on one or two of its
// neighbours, installed with pnpm 10 (a lockfile pnpm wrote, an installed tree), turbo configured, its cache
// warmed (300 of 300 hits). Rows:
// - what `lockguard run -- turbo run build` adds over `turbo run build` alone, against a Node start in the
//   same round (goal: within 1.15x, the same goal as the two-project example in run.bench.ts);
// - `lockguard doctor` against turbo's own dry run (`turbo run build --dry=json`): goal within 2x;
// - where the time goes: the phases lockguard's wrapper runs before and after the runner, each as the
//   command that does it alone (`verify`: the table, read and compared; `key --projects`: every slice;
//   `status`: the ledger), against a Node start.
// Invariants: writes only under ctx.tmp; offline; every subject is run once and checked before it is timed;
// reports, never asserts.

import { spawnSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from '../helpers/cli.js';
import {
  median,
  medianPairRatio,
  processSamples,
  sideBySide,
  type BenchContext,
  type BenchRow,
  type ProcessSpec,
} from './harness.js';
import { benchTools, mustRun } from './workspaces.js';

export const SCALE = { projects: 300, packages: 300, depsPerProject: 12 } as const;

const pad = (n: number): string => String(n).padStart(3, '0');

/** The 300-project workspace, installed with pnpm 10 (offline) and its turbo cache warmed. */
export function scaleWorkspace(base: string, env: Record<string, string>): string {
  const root = join(base, 'scale');
  const write = (path: string, text: string): void => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  for (let v = 0; v < SCALE.packages; v++) {
    write(
      `vendor/v${pad(v)}/package.json`,
      `${JSON.stringify({ name: `v${pad(v)}`, version: '1.0.0', main: 'index.js' })}\n`,
    );
    write(`vendor/v${pad(v)}/index.js`, `module.exports = ${v};\n`);
  }
  const build =
    "node -e \"require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/out.txt','built')\"";
  for (let i = 0; i < SCALE.projects; i++) {
    const dependencies: Record<string, string> = {};
    for (let d = 0; d < SCALE.depsPerProject; d++) {
      const v = (i * 7 + d * 13) % SCALE.packages;
      dependencies[`v${pad(v)}`] = `file:../../vendor/v${pad(v)}`;
    }
    if (i > 0) dependencies[`p${pad(i - 1)}`] = 'workspace:*';
    if (i > 10) dependencies[`p${pad(i - 11)}`] = 'workspace:*';
    write(
      `packages/p${pad(i)}/package.json`,
      `${JSON.stringify({ name: `p${pad(i)}`, version: '1.0.0', private: true, dependencies, scripts: { build } }, null, 2)}\n`,
    );
    write(`packages/p${pad(i)}/src/index.js`, `export const p = ${i};\n`);
  }
  write(
    'package.json',
    `${JSON.stringify({ name: 'scale', private: true, packageManager: 'pnpm@10.34.8' }, null, 2)}\n`,
  );
  write('pnpm-workspace.yaml', 'packages:\n  - "packages/*"\nupdateNotifier: false\n');
  write(
    'turbo.json',
    `${JSON.stringify({ tasks: { build: { dependsOn: ['^build'], outputs: ['dist/**'] } } }, null, 2)}\n`,
  );
  const past = new Date(Date.now() - 3_600_000);
  utimesSync(join(root, 'package.json'), past, past);
  mustRun(['pnpm', 'install', '--offline'], root, env, 600_000);
  mustRun(['turbo', 'run', 'build', '--concurrency=4'], root, env, 600_000);
  return root;
}

function mustPass(spec: ProcessSpec, status: number, expect?: RegExp): string {
  const result = spawnSync(spec.command, [...spec.args], { ...spec.options, encoding: 'utf8', timeout: 300_000 });
  const out = `${result.stdout}${result.stderr}`;
  if (result.status !== status)
    throw new Error(
      `${spec.command} ${spec.args.join(' ')} exits ${result.status ?? result.signal}:\n${out.slice(0, 2000)}`,
    );
  if (expect !== undefined && !expect.test(out))
    throw new Error(`${spec.command} ${spec.args.join(' ')} did not print ${expect}:\n${out.slice(0, 2000)}`);
  return out;
}

function whereRow(name: string, spec: ProcessSpec, node: ProcessSpec, ctx: BenchContext, note: string): BenchRow {
  const [subject = [], baseline = []] = processSamples([spec, node], ctx.runs);
  return {
    group: 'scale',
    subject: name,
    subjectMs: median(subject),
    baseline: 'node -e 0',
    baselineMs: median(baseline),
    pairRatio: medianPairRatio(subject, baseline),
    note,
  };
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const tools = benchTools(ctx.tmp);
  const root = scaleWorkspace(ctx.tmp, tools.env);
  const options = { cwd: root, env: tools.env };
  const lockguard = (...args: string[]): ProcessSpec => ({ command: process.execPath, args: [BIN, ...args], options });
  const turbo: ProcessSpec = { command: 'turbo', args: ['run', 'build', '--concurrency=4'], options };
  const wrapped = lockguard('run', '--', 'turbo', 'run', 'build', '--concurrency=4');
  const node: ProcessSpec = { command: process.execPath, args: ['-e', '0'], options };
  const hits = new RegExp(`Cached:\\s+${SCALE.projects} cached, ${SCALE.projects} total`);
  mustPass(turbo, 0, hits);
  mustPass(wrapped, 0, hits);
  mustPass(turbo, 0, hits);

  const rows: BenchRow[] = [];
  const [wrappedSamples = [], bareSamples = [], nodeSamples = []] = processSamples([wrapped, turbo, node], ctx.runs);
  const added = wrappedSamples.map((ms, i) => ms - (bareSamples[i] ?? Number.NaN));
  rows.push({
    group: 'scale',
    subject: `lockguard run -- turbo run build, what it adds (${SCALE.projects} projects, ${SCALE.projects}/${SCALE.projects} hits)`,
    subjectMs: median(added),
    baseline: 'node -e 0',
    baselineMs: median(nodeSamples),
    pairRatio: medianPairRatio(added, nodeSamples),
    goal: 1.15,
    note: `turbo alone ${median(bareSamples).toFixed(0)} ms, wrapped ${median(wrappedSamples).toFixed(0)} ms; round by round: wrapped minus bare, against node -e 0 in the same round`,
  });

  const doctor = lockguard('doctor');
  const dry: ProcessSpec = { command: 'turbo', args: ['run', 'build', '--dry=json'], options };
  const doctorOut = mustPass(doctor, 0);
  mustPass(dry, 0);
  const run = (spec: ProcessSpec) => (): void =>
    void spawnSync(spec.command, [...spec.args], { ...spec.options, timeout: 300_000 });
  const [doctorMs, dryMs] = await sideBySide(run(doctor), run(dry), ctx.runs);
  rows.push({
    group: 'scale',
    subject: `lockguard doctor (${SCALE.projects} projects, turbo)`,
    subjectMs: doctorMs,
    baseline: 'turbo run build --dry=json',
    baselineMs: dryMs,
    goal: 2,
    note: `doctor's verdict lines: ${doctorOut.split('\n').filter((line) => /^\s*(ok|warn|fail)/.test(line)).length}`,
  });

  mustPass(lockguard('verify'), 0);
  rows.push(
    whereRow(
      'where the time goes: lockguard verify (the table, read and compared)',
      lockguard('verify'),
      node,
      ctx,
      'the check run makes before and after the runner',
    ),
  );
  mustPass(lockguard('key', '--projects'), 0);
  rows.push(
    whereRow(
      'where the time goes: lockguard key --projects (every slice)',
      lockguard('key', '--projects'),
      node,
      ctx,
      `${SCALE.projects + 1} slices`,
    ),
  );
  mustPass(lockguard('status'), 0);
  rows.push(
    whereRow(
      'where the time goes: lockguard status (the ledger)',
      lockguard('status'),
      node,
      ctx,
      'the last run, its moves and the retention',
    ),
  );
  return rows;
}
