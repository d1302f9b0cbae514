// The lockfile readers compared like with like (issue 31): the whole-process rows of slices.bench.ts and
// slices-yarn-bun.bench.ts time `lockguard key --projects` against a process that loads and runs the tool's
// own parser, so each side's module load (about 200 ms for @pnpm/lockfile-file) decides the ratio. Here:
// - in one process, modules loaded and warmed: lockguard's whole slice pass (`slicesFromLockfile`: the shape
//   check, the reader, every project's slice digest) against the parse alone with the parser each tool reads
//   its lockfile with (js-yaml as @pnpm/lockfile-file bundles it, @yarnpkg/parsers' parseSyml, bun's JSONC
//   read as JSON.parse after its trailing commas are cut). The readers do more than the parse (they refuse what
//   each tool refuses and hash every closure), so the goal is at most 1.5x, not 1.0x.
// - the module load of each side, whole process against `node -e 0`: what the whole-process rows fold in.
// Writes only under ctx.tmp.

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { perOp, sideBySide, type BenchContext, type BenchRow } from './harness.js';
import { generateLockfile } from './slices-generate.js';
import { generateBunLockfile, generateYarnBerryLockfile } from './slices-generate-yarn-bun.js';
import { slicesFromLockfile } from '../../lib/core/slices/index.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const LOCKFILE_FILE = join(REPO, 'node_modules', '@pnpm', 'lockfile-file');
const PARSERS = join(REPO, 'node_modules', '@yarnpkg', 'parsers');
// The key command's code as the CLI ships it (lib/build/bundle.mjs writes one bundle per command).
const KEY_BUNDLE = join(REPO, 'dist', 'cli', 'key.cjs');

interface Reader {
  readonly name: string;
  readonly file: string;
  readonly text: string;
  readonly parser: string;
  parse(text: string): unknown;
}

function readers(): Reader[] {
  const yaml = createRequire(join(LOCKFILE_FILE, 'package.json'))('js-yaml') as { load(text: string): unknown };
  const syml = createRequire(join(PARSERS, 'package.json'))('@yarnpkg/parsers') as { parseSyml(text: string): unknown };
  return [
    {
      name: 'pnpm, synthetic 1,000 importers / 20,000 packages',
      file: 'pnpm-lock.yaml',
      text: generateLockfile({ importers: 1000, packages: 20_000 }),
      parser: "js-yaml load (@pnpm/lockfile-file's parser)",
      parse: (text) => yaml.load(text),
    },
    {
      name: 'yarn berry, synthetic 1,000 workspaces / 20,000 packages',
      file: 'yarn.lock',
      text: generateYarnBerryLockfile(),
      parser: "@yarnpkg/parsers parseSyml (yarn's own)",
      parse: (text) => syml.parseSyml(text),
    },
    {
      name: 'bun, synthetic 1,000 workspaces / 20,000 packages',
      file: 'bun.lock',
      text: generateBunLockfile(),
      parser: 'JSON.parse, trailing commas cut',
      parse: (text) => JSON.parse(text.replace(/,(\s*[}\]])/g, '$1')),
    },
  ];
}

async function passRow(ctx: BenchContext, reader: Reader): Promise<BenchRow> {
  const root = join(ctx.tmp, `readers-${reader.file}`);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"name":"bench-root","private":true,"workspaces":["packages/**"]}\n');
  const bytes = Buffer.from(reader.text);
  const options = { lockfile: reader.file, root, names: false, poolAtRoot: false } as const;
  const projects = slicesFromLockfile(bytes, options).slices.length;
  const [subjectMs, baselineMs] = await perOp(
    () => slicesFromLockfile(bytes, options),
    () => reader.parse(reader.text),
    ctx.runs,
  );
  return {
    group: 'readers',
    subject: `slice pass in process (${reader.name})`,
    subjectMs,
    baseline: `${reader.parser}, in process`,
    baselineMs,
    goal: 1.5,
    note: `${(bytes.length / 1e6).toFixed(2)} MB, ${projects} projects; both sides loaded and warmed: no module load on either side`,
  };
}

function nodeRun(args: readonly string[]): void {
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0)
    throw new Error(`node ${args.join(' ')} exited ${String(result.status)}: ${result.stderr.slice(0, 300)}`);
}

async function loadRow(ctx: BenchContext, what: string, path: string): Promise<BenchRow> {
  const load = ['-e', `require(${JSON.stringify(path)})`];
  const [subjectMs, baselineMs] = await sideBySide(
    () => nodeRun(load),
    () => nodeRun(['-e', '0']),
    ctx.runs,
  );
  return {
    group: 'readers',
    subject: `module load: ${what}`,
    subjectMs,
    baseline: 'node -e 0',
    baselineMs,
    note: `what the whole-process slices rows fold in: ${(subjectMs - baselineMs).toFixed(0)} ms over a Node start`,
  };
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const reader of readers()) rows.push(await passRow(ctx, reader));
  rows.push(await loadRow(ctx, '@pnpm/lockfile-file (the pnpm baseline process)', LOCKFILE_FILE));
  rows.push(await loadRow(ctx, '@yarnpkg/parsers (the yarn baseline process)', PARSERS));
  rows.push(await loadRow(ctx, "lockguard's key command bundle", KEY_BUNDLE));
  return rows;
}
