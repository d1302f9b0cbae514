// Benchmarks of the guarded run as a whole process (issues 3 and 4), on real installed workspaces:
// (a) `lockguard run -- true` (the bundle; pre-run check passes) vs `true` and vs `node -e 0`, sampled
//     together (goal: within 1.6× `node -e 0`);
// (b) instruction counts under callgrind (repeatable on a loaded machine, unlike wall time): `lockguard run
//     -- true` (goal 1.6×) and `lockguard verify` (issue 2's goal 1.3×) vs `node -e 0`; skipped with a note
//     when valgrind is not installed;
// (c) `lockguard run -- turbo run build` vs `turbo run build`, warm cache, full hits (goal: overhead under
//     10% of turbo's own time, i.e. ratio ≤ 1.1×).
// Invariants: writes only under ctx.tmp; every subject's exit code is checked once before it is timed;
// reports, never asserts.

import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from '../helpers/cli.js';
import { writeSyntheticWorkspace } from './generate.js';
import { countInstructions, hasValgrind, processRotation, type BenchContext, type BenchRow, type ProcessSpec } from './harness.js';
import { benchTools, turboExample } from './workspaces.js';

function mustPass(spec: ProcessSpec, expect?: RegExp): string {
  const result = spawnSync(spec.command, [...spec.args], { ...spec.options, encoding: 'utf8', timeout: 120_000 });
  const out = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`${spec.command} ${spec.args.join(' ')} exits ${result.status ?? result.signal}:\n${out}`);
  if (expect !== undefined && !expect.test(out)) throw new Error(`${spec.command} ${spec.args.join(' ')} did not print ${expect}:\n${out}`);
  return out;
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const tools = benchTools(ctx.tmp);
  const root = turboExample(ctx.tmp, tools);
  const options = { cwd: root, env: tools.env };
  const guarded: ProcessSpec = { command: process.execPath, args: [BIN, 'run', '--', 'true'], options };
  const bare: ProcessSpec = { command: 'true', args: [], options };
  const node: ProcessSpec = { command: process.execPath, args: ['-e', '0'], options };
  mustPass(guarded);

  // (a) wall time, three processes sampled together.
  const [guardedMs, trueMs, nodeMs] = processRotation([guarded, bare, node], ctx.runs);
  const small = 'examples/turbo-monorepo, installed';
  rows.push(
    { group: 'run', subject: `lockguard run -- true (${small})`, subjectMs: guardedMs ?? Number.NaN, baseline: 'node -e 0', baselineMs: nodeMs ?? Number.NaN, goal: 1.6 },
    { group: 'run', subject: 'lockguard run -- true', subjectMs: guardedMs ?? Number.NaN, baseline: 'true', baselineMs: trueMs ?? Number.NaN, note: 'the whole wrapper (Node start, table read, pre-run check, ledger, spawn, final check) over the bare child' },
  );

  // (a2) guarding every configured runner cache: turbo and nx both configured; against the same run guarding
  // none (--runner none: no resolution, no listing, as lockguard 0.1 did for `true`).
  const both = turboExample(join(ctx.tmp, 'turbo-and-nx'), tools, { 'nx.json': '{"targetDefaults":{"build":{"cache":true}}}\n' });
  const bothOptions = { cwd: both, env: tools.env };
  const guardsBoth: ProcessSpec = { command: process.execPath, args: [BIN, 'run', '--', 'true'], options: bothOptions };
  const guardsNone: ProcessSpec = { command: process.execPath, args: [BIN, 'run', '--runner', 'none', '--', 'true'], options: bothOptions };
  mustPass(guardsBoth);
  const [bothMs, noneMs] = processRotation([guardsBoth, guardsNone], ctx.runs);
  rows.push({
    group: 'run',
    subject: 'lockguard run -- true, turbo and nx configured (both caches resolved and listed)',
    subjectMs: bothMs ?? Number.NaN,
    baseline: 'lockguard run --runner none -- true (no runner cache)',
    baselineMs: noneMs ?? Number.NaN,
    note: `guarding every configured cache costs ${((bothMs ?? 0) - (noneMs ?? 0)).toFixed(1)} ms (goal: at most 2 ms)`,
  });

  const turbo: ProcessSpec = { command: 'turbo', args: ['run', 'build'], options };
  const wrapped: ProcessSpec = { command: process.execPath, args: [BIN, 'run', '--', 'turbo', 'run', 'build'], options };

  // (b) instruction counts: one callgrind run each (node -e 0 repeated within about 0.5% here).
  const verifyRoot = join(ctx.tmp, 'verify-pnpm');
  const lockfile = writeSyntheticWorkspace(verifyRoot, { manager: 'pnpm', importers: 200, packages: 2000, projects: false });
  mustPass({ command: process.execPath, args: [BIN, 'snapshot'], options: { cwd: verifyRoot, env: tools.env } });
  const verify: ProcessSpec = { command: process.execPath, args: [BIN, 'verify'], options: { cwd: verifyRoot, env: tools.env } };
  mustPass(verify);
  const verifyLabel = `lockguard verify (pnpm, ${(statSync(lockfile).size / 1e6).toFixed(2)} MB lockfile, as in the cli rows)`;
  if (hasValgrind()) {
    // Counted at once: instruction counts do not depend on the load.
    const [nodeCount, runCount, verifyCount, wrappedCount, bothCount, noneCount] = await Promise.all([node, guarded, verify, wrapped, guardsBoth, guardsNone].map(countInstructions));
    const note = 'valgrind --tool=callgrind, one run each; the child (`true`) is not traced; counts do not depend on the load';
    rows.push(
      { group: 'run', subject: `lockguard run -- true (${small})`, subjectMs: runCount ?? Number.NaN, baseline: 'node -e 0', baselineMs: nodeCount ?? Number.NaN, goal: 1.6, unit: 'instructions', note },
      {
        group: 'run',
        subject: 'lockguard run -- turbo run build (the wrapper process only)',
        subjectMs: wrappedCount ?? Number.NaN,
        baseline: 'lockguard run -- true',
        baselineMs: runCount ?? Number.NaN,
        unit: 'instructions',
        note: 'what knowing turbo adds to the wrapper: runner detection, cache listing before and after, the withholding pass; turbo itself (a child) is not traced',
      },
      { group: 'cli', subject: verifyLabel, subjectMs: verifyCount ?? Number.NaN, baseline: 'node -e 0', baselineMs: nodeCount ?? Number.NaN, goal: 1.3, unit: 'instructions' },
      {
        group: 'run',
        subject: 'lockguard run -- true, turbo and nx configured',
        subjectMs: bothCount ?? Number.NaN,
        baseline: 'lockguard run --runner none -- true',
        baselineMs: noneCount ?? Number.NaN,
        unit: 'instructions',
        note: `resolving and listing both caches: ${(((bothCount ?? 0) - (noneCount ?? 0)) / 1e6).toFixed(1)} M instructions`,
      },
    );
  } else {
    const note = 'skipped: valgrind is not installed (apt-get install valgrind)';
    rows.push(
      { group: 'run', subject: 'lockguard run -- true, instructions', subjectMs: Number.NaN, baseline: 'node -e 0', baselineMs: Number.NaN, goal: 1.6, unit: 'instructions', note },
      { group: 'cli', subject: 'lockguard verify, instructions', subjectMs: Number.NaN, baseline: 'node -e 0', baselineMs: Number.NaN, goal: 1.3, unit: 'instructions', note },
    );
  }

  // (c) around turbo with a warm cache: both must be full cache hits.
  mustPass(turbo, /FULL TURBO/);
  mustPass(wrapped, /FULL TURBO/);
  const [wrappedMs, turboMs] = processRotation([wrapped, turbo], ctx.runs);
  mustPass(turbo, /FULL TURBO/);
  rows.push({
    group: 'run',
    subject: 'lockguard run -- turbo run build (warm cache, 2/2 hits)',
    subjectMs: wrappedMs ?? Number.NaN,
    baseline: 'turbo run build',
    baselineMs: turboMs ?? Number.NaN,
    goal: 1.1,
    note: `turbo 2.11 as the repo's node_modules/.bin/turbo (its Node launcher, then the native binary); overhead ${((wrappedMs ?? 0) - (turboMs ?? 0)).toFixed(0)} ms`,
  });
  return rows;
}
