// Benchmarks of the slices and the plan, each a whole process against the baseline the issue names:
// - `lockguard key --projects` vs a process that only parses the same lockfile with @pnpm/lockfile-file
//   (goal <= 1.0x), on the largest real pnpm lockfiles and a synthetic 1,000 importers / 20,000 packages;
//   peak RSS of both in the note. Two-document files are given to both as their main document (the
//   baseline refuses the two-document form).
// - `lockguard plan -- <runner>` vs the runner's own dry run as the user starts it (`node_modules/.bin/turbo`
//   is turbo's Node launcher): whole process, goal <= 1.5x for turbo (issue 13), <= 1.2x for nx and pnpm
//   pipeline; in process (`planFor`), goal <= 1.2x.
// Writes only under ctx.tmp.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isolatedEnv } from '../helpers/env.js';
import { sideBySide, type BenchContext, type BenchRow } from './harness.js';
import { generateLockfile } from './slices-generate.js';
import { planFor } from '../../lib/integrations/plan/index.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
// The executable users run (dist/lockguard.cjs and the command's bundle).
const BIN = join(REPO, 'dist', 'lockguard.cjs');
const LOCKFILE_FILE = join(REPO, 'node_modules', '@pnpm', 'lockfile-file');
const PNPM12 = join(REPO, 'node_modules', 'pnpm12', 'pnpm');
const MAXRSS =
  "data:text/javascript,process.on('exit',()=>process.stderr.write('\\nLOCKGUARD_MAXRSS '+process.resourceUsage().maxRSS+'\\n'))";

function run(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv): string {
  const result = spawnSync(argv[0] as string, argv.slice(1), {
    cwd,
    env,
    encoding: 'utf8',
    timeout: 180_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0)
    throw new Error(`${argv.join(' ')} exited ${String(result.status)}: ${result.stderr.slice(0, 300)}`);
  return result.stderr;
}

/** Peak RSS (MB) of one node process run with the exit hook. */
function peakMb(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): number {
  const stderr = run([process.execPath, '--import', MAXRSS, ...args], cwd, env);
  const kb = Number(/LOCKGUARD_MAXRSS (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
  return Math.round(kb / 1024);
}

/** The main document of a (possibly two-document) pnpm lockfile. */
function mainDocument(text: string): string {
  return (
    text
      .split(/^---[ \t]*$/m)
      .filter((part) => part.trim() !== '')
      .at(-1) ?? ''
  ).replace(/^\r?\n/, '');
}

async function sliceRow(name: string, dir: string, ctx: BenchContext, env: NodeJS.ProcessEnv): Promise<BenchRow> {
  const parse = join(ctx.tmp, 'parse-only.cjs');
  writeFileSync(
    parse,
    `require(${JSON.stringify(LOCKFILE_FILE)}).readWantedLockfile(process.argv[2], { ignoreIncompatible: false }).then((l) => { if (!l) process.exit(1) })\n`,
  );
  const subject = [BIN, 'key', '--projects'];
  const baseline = [parse, dir];
  const [subjectMs, baselineMs] = await sideBySide(
    () => run([process.execPath, ...subject], dir, env),
    () => run([process.execPath, ...baseline], dir, env),
    ctx.runs,
  );
  const bytes = readFileSync(join(dir, 'pnpm-lock.yaml')).length;
  const note = `${(bytes / 1e6).toFixed(2)} MB; peak RSS ${peakMb(subject, dir, env)} MB vs ${peakMb(baseline, dir, env)} MB`;
  return {
    group: 'slices',
    subject: `lockguard key --projects (${name})`,
    subjectMs,
    baseline: '@pnpm/lockfile-file parse only',
    baselineMs,
    goal: 1.0,
    note,
  };
}

function lockfileWorkspace(ctx: BenchContext, name: string, text: string, from?: string): string {
  const dir = join(ctx.tmp, `slices-${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'pnpm-lock.yaml'), text);
  writeFileSync(
    join(dir, 'pnpm-workspace.yaml'),
    from === undefined ? 'packages:\n  - "packages/**"\n' : readFileSync(join(from, 'pnpm-workspace.yaml')),
  );
  writeFileSync(join(dir, 'package.json'), '{"name":"bench-root","private":true}\n');
  return dir;
}

// pnpm 12 would try to fetch a pinned pnpm@10 (packageManager) before its dry run: the pipeline's copy pins none.
function fieldNotesWorkspace(ctx: BenchContext, packageManager: string | undefined): string {
  const dir = join(ctx.tmp, `plan-field-notes-${packageManager ?? 'unpinned'}`);
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write(
    'package.json',
    JSON.stringify({ name: 'root', private: true, ...(packageManager === undefined ? {} : { packageManager }) }),
  );
  write(
    'pnpm-workspace.yaml',
    'packages:\n  - "packages/*"\ntasks:\n  build:\n    dependsOn: ["^build"]\npipelines:\n  default: [build]\n',
  );
  // No pnpm-lock.yaml: nx refuses a pnpm lockfile without an installed node_modules (turbo only warns).
  write('turbo.json', JSON.stringify({ tasks: { build: { dependsOn: ['^build'], outputs: ['dist/**'] } } }));
  write('nx.json', JSON.stringify({ targetDefaults: { build: { dependsOn: ['^build'], cache: true } } }));
  for (let i = 0; i < 20; i++) {
    const deps = i === 0 ? {} : { [`p${i - 1}`]: 'workspace:*' };
    write(
      `packages/p${i}/package.json`,
      JSON.stringify({
        name: `p${i}`,
        version: '1.0.0',
        dependencies: deps,
        scripts: { build: i === 0 ? 'pnpm --filter p1 add is-number@6.0.0' : 'node -e 1' },
      }),
    );
  }
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(join(REPO, 'node_modules', 'nx'), join(dir, 'node_modules', 'nx'));
  return dir;
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const env = isolatedEnv(ctx.tmp, { settings: 'home', path: [join(REPO, 'node_modules', '.bin')] });
  const rows: BenchRow[] = [];
  if (ctx.fixturesDir !== undefined) {
    const lockfiles = ctx.fixturesDir; // run.ts hands the lockfiles folder itself
    for (const name of ['astro', 'pnpm', 'vite']) {
      const from = join(lockfiles, name);
      rows.push(
        await sliceRow(
          `${name}, main document`,
          lockfileWorkspace(ctx, name, mainDocument(readFileSync(join(from, 'pnpm-lock.yaml'), 'utf8')), from),
          ctx,
          env,
        ),
      );
    }
    const manyDeps = join(
      lockfiles,
      'pnpm-many-deps-fixture',
      'pnpm11',
      'deps',
      'inspection',
      'list',
      'test',
      '__fixtures__',
      'many-deps',
      'pnpm-lock.yaml',
    );
    rows.push(
      await sliceRow(
        'many-deps, 2.8 MB, 1 importer',
        lockfileWorkspace(ctx, 'many-deps', readFileSync(manyDeps, 'utf8')),
        ctx,
        env,
      ),
    );
  }
  rows.push(
    await sliceRow(
      'synthetic 1,000 importers / 20,000 packages',
      lockfileWorkspace(ctx, 'synthetic', generateLockfile({ importers: 1000, packages: 20_000 })),
      ctx,
      env,
    ),
  );

  const pinned = fieldNotesWorkspace(ctx, 'pnpm@10.34.8');
  const unpinned = fieldNotesWorkspace(ctx, undefined);
  const plans: [string, string[], string[]][] = [
    ['turbo', ['turbo', 'run', 'build'], [join(REPO, 'node_modules', '.bin', 'turbo'), 'run', 'build', '--dry=json']],
    [
      'nx',
      ['nx', 'run-many', '-t', 'build'],
      [join(REPO, 'node_modules', '.bin', 'nx'), 'run-many', '-t', 'build', '--graph=stdout'],
    ],
    ['pnpm pipeline', [PNPM12, 'pipeline'], [PNPM12, 'pipeline', '--dry-run', '--json']],
  ];
  for (const [name, command, dry] of plans) {
    const ws = name === 'pnpm pipeline' ? unpinned : pinned;
    const planOnce = (): void => {
      const result = spawnSync(process.execPath, [BIN, 'plan', '--', ...command], {
        cwd: ws,
        env,
        encoding: 'utf8',
        timeout: 180_000,
      });
      if (result.status !== 1)
        throw new Error(
          `lockguard plan -- ${command.join(' ')} exited ${String(result.status)}: ${result.stderr.slice(0, 300)}`,
        );
    };
    const [subjectMs, baselineMs] = await sideBySide(
      planOnce,
      () => run(dry, ws, env),
      Math.max(1, Math.min(ctx.runs, name === 'nx' ? 3 : ctx.runs)),
    );
    rows.push({
      group: 'plan',
      subject: `lockguard plan -- ${name} (20 tasks, whole process)`,
      subjectMs,
      baseline: `${name} dry run alone`,
      baselineMs,
      goal: name === 'turbo' ? 1.5 : 1.2,
      note:
        name === 'turbo'
          ? "includes a Node process start; the baseline is node_modules/.bin/turbo (turbo's Node launcher, then its native binary); lockguard runs the native binary itself"
          : 'includes a Node process start',
    });
    // In-process, as `lockguard run` calls it: the runner's dry run plus lockguard's own work.
    const [inMs, dryMs] = await sideBySide(
      () => planFor(command, ws, env),
      () => run(dry, ws, env),
      Math.max(1, Math.min(ctx.runs, name === 'nx' ? 3 : ctx.runs)),
    );
    rows.push({
      group: 'plan',
      subject: `planFor(${name}) in process (20 tasks)`,
      subjectMs: inMs,
      baseline: `${name} dry run alone`,
      baselineMs: dryMs,
      goal: 1.2,
    });
  }
  return rows;
}
