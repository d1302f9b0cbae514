// Benchmarks of yarn and bun slices, each a whole process against the tool's own parser on the same file
// (goal <= 1.0x): `lockguard key --projects` vs a process that only parses the lockfile with
// @yarnpkg/parsers (parseSyml: yarn's own), on jest's yarn berry lockfile (when the shared fixtures are
// there) and a synthetic 1,000 workspaces / 20,000 packages one; and vs JSON.parse of bun.lock after its
// trailing commas are stripped, on a synthetic bun.lock of the same shape. Peak RSS of both in the note.
// Writes only under ctx.tmp.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sideBySide, type BenchContext, type BenchRow } from './harness.js';
import { generateBunLockfile, generateYarnBerryLockfile } from './slices-generate-yarn-bun.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BIN = join(REPO, 'dist', 'lockguard.cjs');
const PARSERS = join(REPO, 'node_modules', '@yarnpkg', 'parsers');
const MAXRSS =
  "data:text/javascript,process.on('exit',()=>process.stderr.write('\\nLOCKGUARD_MAXRSS '+process.resourceUsage().maxRSS+'\\n'))";

function run(argv: readonly string[], cwd: string): string {
  const result = spawnSync(argv[0] as string, argv.slice(1), {
    cwd,
    encoding: 'utf8',
    timeout: 180_000,
    maxBuffer: 64 * 1024 * 1024,
    env: { PATH: process.env['PATH'] ?? '', HOME: cwd },
  });
  if (result.status !== 0)
    throw new Error(`${argv.join(' ')} exited ${String(result.status)}: ${result.stderr.slice(0, 300)}`);
  return result.stderr;
}

function peakMb(args: readonly string[], cwd: string): number {
  const kb = Number(
    /LOCKGUARD_MAXRSS (\d+)/.exec(run([process.execPath, '--import', MAXRSS, ...args], cwd))?.[1] ?? Number.NaN,
  );
  return Math.round(kb / 1024);
}

function workspace(ctx: BenchContext, name: string, file: string, text: string): string {
  const dir = join(ctx.tmp, `slices-${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), text);
  writeFileSync(join(dir, 'package.json'), '{"name":"bench-root","private":true,"workspaces":["packages/**"]}\n');
  return dir;
}

async function row(ctx: BenchContext, name: string, dir: string, file: string): Promise<BenchRow> {
  const parse = join(ctx.tmp, `parse-only-${file}.cjs`);
  const body =
    file === 'yarn.lock'
      ? `require(${JSON.stringify(PARSERS)}).parseSyml(require('fs').readFileSync(process.argv[2], 'utf8'))`
      : `JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8').replace(/,(\\s*[}\\]])/g, '$1'))`;
  writeFileSync(parse, `${body}\n`);
  const subject = [BIN, 'key', '--projects'];
  const baseline = [parse, join(dir, file)];
  const [subjectMs, baselineMs] = await sideBySide(
    () => run([process.execPath, ...subject], dir),
    () => run([process.execPath, ...baseline], dir),
    ctx.runs,
  );
  const bytes = readFileSync(join(dir, file)).length;
  const note = `${(bytes / 1e6).toFixed(2)} MB; peak RSS ${peakMb(subject, dir)} MB vs ${peakMb(baseline, dir)} MB`;
  return {
    group: 'slices',
    subject: `lockguard key --projects (${name})`,
    subjectMs,
    baseline:
      file === 'yarn.lock' ? '@yarnpkg/parsers parseSyml only' : 'JSON.parse of bun.lock, trailing commas stripped',
    baselineMs,
    goal: 1.0,
    note,
  };
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  if (ctx.fixturesDir !== undefined) {
    const jest = readFileSync(join(ctx.fixturesDir, 'jest', 'yarn.lock'), 'utf8');
    rows.push(
      await row(ctx, 'jest, yarn berry, 71 workspaces', workspace(ctx, 'jest', 'yarn.lock', jest), 'yarn.lock'),
    );
  }
  rows.push(
    await row(
      ctx,
      'synthetic yarn berry, 1,000 workspaces / 20,000 packages',
      workspace(ctx, 'yarn-synthetic', 'yarn.lock', generateYarnBerryLockfile()),
      'yarn.lock',
    ),
  );
  rows.push(
    await row(
      ctx,
      'synthetic bun.lock, 1,000 workspaces / 20,000 packages',
      workspace(ctx, 'bun-synthetic', 'bun.lock', generateBunLockfile()),
      'bun.lock',
    ),
  );
  return rows;
}
