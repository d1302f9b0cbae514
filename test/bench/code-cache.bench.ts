// The CLI's code cache (lib/cli/code-cache.ts), as a user gets it: on this Node and on another one than the
// build's (the oldest pinned in .ci/nodes), without NODE_EXTRA_CA_CERTS (most machines; with it every Node
// start parses a CA bundle and the ratios only look better):
// (a) instructions (callgrind, one run each; the child of `run` is not traced): `lockguard run -- true` and
//     `lockguard verify` from source (LOCKGUARD_CODE_CACHE=off), on the first run (which writes the cache)
//     and on the second (which reads it), against `node -e 0` of the same Node;
// (b) wall time with the cache warm, sampled in rounds with `node -e 0` of the same Node: the goals of issue
//     34, `run -- true` within 1.5× a Node start and `verify` within 1.3×; the median of the rounds' ratios.
// Invariants: writes only under ctx.tmp (the caches under its own XDG_CACHE_HOME per Node); reports, never
// asserts.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pinnedNodeBin, pinnedNodes } from '../helpers/ci-nodes.js';
import { BIN } from '../helpers/cli.js';
import {
  countInstructions,
  hasValgrind,
  median,
  medianPairRatio,
  processSamples,
  type BenchContext,
  type BenchRow,
  type ProcessSpec,
} from './harness.js';
import { benchTools, turboExample } from './workspaces.js';

/** A Node to measure: this one, and the oldest pinned in .ci/nodes when it is installed. */
function nodes(): { node: string; label: string }[] {
  const out = [{ node: process.execPath, label: `Node ${process.version} (the build's)` }];
  const [major] = [...pinnedNodes().keys()].sort((a, b) => a - b);
  if (major !== undefined && existsSync(pinnedNodeBin(major))) {
    const node = pinnedNodeBin(major);
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    out.push({ node, label: `Node ${version} (not the build's)` });
  }
  return out;
}

function mustPass(spec: ProcessSpec): void {
  const result = spawnSync(spec.command, [...spec.args], { ...spec.options, encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0)
    throw new Error(`${spec.command} ${spec.args.join(' ')} exits ${result.status}:\n${result.stdout}${result.stderr}`);
}

async function instructionRows(
  label: string,
  specs: {
    node: ProcessSpec;
    run: (env: Record<string, string>) => ProcessSpec;
    verify: (env: Record<string, string>) => ProcessSpec;
  },
  off: Record<string, string>,
  on: Record<string, string>,
  xdg: string,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const nodeCount = await countInstructions(specs.node);
  for (const [name, make, goal] of [
    ['run -- true', specs.run, 1.5],
    ['verify', specs.verify, 1.3],
  ] as const) {
    rmSync(xdg, { recursive: true, force: true });
    mkdirSync(xdg, { recursive: true });
    const source = await countInstructions(make(off));
    const first = await countInstructions(make(on));
    const second = await countInstructions(make(on));
    const row = (subject: string, count: number, note?: string): BenchRow => ({
      group: 'code cache',
      subject: `lockguard ${name}, ${subject}, ${label}`,
      subjectMs: count,
      baseline: 'node -e 0',
      baselineMs: nodeCount,
      goal,
      unit: 'instructions',
      ...(note === undefined ? {} : { note }),
    });
    rows.push(
      row('from source (LOCKGUARD_CODE_CACHE=off)', source),
      row('first run (writes the cache)', first, `${((first / source - 1) * 100).toFixed(0)}% over from source`),
      row('second run (reads it)', second, `${((1 - second / source) * 100).toFixed(0)}% under from source`),
    );
  }
  return rows;
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const tools = benchTools(ctx.tmp);
  const root = turboExample(ctx.tmp, tools);
  const base: Record<string, string> = { ...tools.env };
  delete base['NODE_EXTRA_CA_CERTS'];
  const rows: BenchRow[] = [];
  for (const [index, { node, label }] of nodes().entries()) {
    const xdg = join(ctx.tmp, `xdg-${index}`);
    const off = { ...base, LOCKGUARD_CODE_CACHE: 'off' };
    const on = { ...base, LOCKGUARD_CODE_CACHE: '', XDG_CACHE_HOME: xdg };
    const spec = (args: readonly string[], env: Record<string, string>): ProcessSpec => ({
      command: node,
      args,
      options: { cwd: root, env },
    });
    const specs = {
      node: spec(['-e', '0'], base),
      run: (env: Record<string, string>) => spec([BIN, 'run', '--', 'true'], env),
      verify: (env: Record<string, string>) => spec([BIN, 'verify'], env),
    };
    mustPass(spec([BIN, 'snapshot'], off));
    mustPass(specs.run(off));
    mustPass(specs.verify(off));
    if (hasValgrind()) rows.push(...(await instructionRows(label, specs, off, on, xdg)));

    // (b) wall time, the cache warm (written by the runs above, or by this one).
    mustPass(specs.run(on));
    mustPass(specs.verify(on));
    const [nodeSamples = [], runSamples = [], verifySamples = []] = processSamples(
      [specs.node, specs.run(on), specs.verify(on)],
      ctx.runs,
    );
    for (const [name, samples, goal] of [
      ['run -- true', runSamples, 1.5],
      ['verify', verifySamples, 1.3],
    ] as const)
      rows.push({
        group: 'code cache',
        subject: `lockguard ${name}, the cache warm, ${label}`,
        subjectMs: median(samples),
        baseline: 'node -e 0',
        baselineMs: median(nodeSamples),
        pairRatio: medianPairRatio(samples, nodeSamples),
        goal,
        note: "without NODE_EXTRA_CA_CERTS; ratio: median of the rounds' ratios",
      });
  }
  return rows;
}
