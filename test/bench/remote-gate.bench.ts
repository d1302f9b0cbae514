// The remote gate's cost: turbo through the gate vs straight to turborepo-remote-cache (a warm run that
// restores 200 artifacts of 256 KB, a cold one that uploads them), a 200 MB artifact streamed through the
// gate (the gate process's RSS high-water mark over its start), and the re-check before each request
// against one `moved()` after `wrote()`.
//
// Invariants: everything on 127.0.0.1, under ctx.tmp (removed by the runner); subject and baseline
// alternate; cold samples upload into a fresh team namespace each, warm ones restore from one filled once.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { FingerprintWatch } from '../../lib/core/watch.js';
import { GuardSession } from '../../lib/ledger/session.js';
import { median, medianPairRatio, perOp, type BenchContext, type BenchRow } from './harness.js';
import { benchTools, mustRun } from './workspaces.js';
import { artifactBody, startTurboRemoteCache } from '../helpers/cache-servers.js';

const TOKEN = 'bench-token';
const PACKAGES = 200;
const ARTIFACT_BYTES = 256 * 1024;
const GATE = fileURLToPath(new URL('./gate-process.js', import.meta.url));
const SPEC = fileURLToPath(new URL('../helpers/spec-cache-server.js', import.meta.url));

function waitLine(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within 30 s: ${seen}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const found = pattern.exec(seen);
      if (found !== null) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${seen}`)));
  });
}

/** 200 packages, each build writing 256 KB of random bytes to dist/ (incompressible: 256 KB artifacts). */
function wideTurbo(base: string, env: Record<string, string>): string {
  const root = join(base, 'wide-turbo');
  mkdirSync(root, { recursive: true });
  writeFileSync(
    join(root, 'gen.cjs'),
    `require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/out.bin',require('crypto').randomBytes(${ARTIFACT_BYTES}));\n`,
  );
  for (let i = 0; i < PACKAGES; i++) {
    const dir = join(root, 'packages', `p${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: `p${i}`, version: '1.0.0', private: true, scripts: { build: 'node ../../gen.cjs' } }),
    );
  }
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ name: 'wide-turbo', private: true, packageManager: 'pnpm@10.34.8' }),
  );
  writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages:\n  - "packages/*"\n');
  writeFileSync(join(root, 'turbo.json'), JSON.stringify({ tasks: { build: { outputs: ['dist/**'] } } }));
  mustRun(['pnpm', 'install', '--offline'], root, env);
  return root;
}

function turboRun(root: string, env: Record<string, string>, api: string, team: string): number {
  rmSync(join(root, '.turbo'), { recursive: true, force: true });
  for (let i = 0; i < PACKAGES; i++) rmSync(join(root, 'packages', `p${i}`, 'dist'), { recursive: true, force: true });
  const start = performance.now();
  const result = spawnSync('turbo', ['run', 'build', '--concurrency=4', '--output-logs=none'], {
    cwd: root,
    env: { ...env, TURBO_API: api, TURBO_TOKEN: TOKEN, TURBO_TEAM: team },
    stdio: 'ignore',
    timeout: 300_000,
  });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`turbo run build failed (${result.status ?? result.signal})`);
  return ms;
}

async function startGateProcess(
  protocol: string,
  upstream: string,
  root: string,
): Promise<{ url: string; child: ChildProcess; end(): Promise<{ rssStartKb: number; maxRssKb: number }> }> {
  const child = spawn(process.execPath, [GATE, protocol, upstream, root], { stdio: ['pipe', 'pipe', 'inherit'] });
  const found = await waitLine(child, /listening (\d+)/);
  return {
    url: `http://127.0.0.1:${found[1]}`,
    child,
    end: async () => {
      const line = waitLine(child, /(\{"rssStartKb".*\})\n/);
      child.stdin?.end();
      return JSON.parse((await line)[1] ?? '{}') as { rssStartKb: number; maxRssKb: number };
    },
  };
}

async function streamBig(url: string, size: number): Promise<void> {
  const body = artifactBody(size);
  await new Promise<void>((resolve, reject) => {
    const req = http.request(
      `${url}/v8/artifacts/big?slug=x`,
      { method: 'PUT', headers: { authorization: `Bearer ${TOKEN}`, 'content-length': size }, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 202 ? resolve() : reject(new Error(`PUT ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    body.pipe(req);
  });
  await new Promise<void>((resolve, reject) => {
    http
      .get(`${url}/v8/artifacts/big?slug=x`, { headers: { authorization: `Bearer ${TOKEN}` }, agent: false }, (res) => {
        let got = 0;
        res.on('data', (chunk: Buffer) => (got += chunk.length));
        res.on('end', () => (got === size ? resolve() : reject(new Error(`GET ${got} of ${size}`))));
      })
      .on('error', reject);
  });
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  mkdirSync(ctx.tmp, { recursive: true });
  const rows: BenchRow[] = [];
  const tools = benchTools(ctx.tmp);
  const root = wideTurbo(ctx.tmp, tools.env);
  {
    // 200 MB through a fresh gate process to the spec server: the gate's RSS high-water mark over its start.
    const spec = spawn(process.execPath, [SPEC, 'v8', join(ctx.tmp, 'big-store'), TOKEN], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const port = (await waitLine(spec, /listening (\d+)/))[1];
    const big = await startGateProcess('turbo-v8', `http://127.0.0.1:${port}`, root);
    const started = performance.now();
    await streamBig(big.url, 200 * 1024 * 1024);
    const ms = performance.now() - started;
    const usage = await big.end();
    spec.stdin?.end();
    spec.kill('SIGKILL');
    rmSync(join(ctx.tmp, 'big-store'), { recursive: true, force: true });
    const growthMb = (usage.maxRssKb - usage.rssStartKb) / 1024;
    process.stderr.write(`bench: 200MB rss growth ${((usage.maxRssKb - usage.rssStartKb) / 1024).toFixed(1)} MB\n`);
    rows.push({
      group: 'remote gate',
      subject: '200 MB artifact up and down through the gate: gate RSS growth (MB)',
      subjectMs: growthMb,
      baseline: 'goal 64 MB',
      baselineMs: 64,
      goal: 1,
      note: `RSS at start ${Math.round(usage.rssStartKb / 1024)} MB, peak ${Math.round(usage.maxRssKb / 1024)} MB; ${Math.round(ms)} ms for 400 MB`,
    });
  }
  {
    // The decision before each request (GuardSession.admits: a check through a fresh watch) vs one wrote(); moved().
    const table = readWorkspaceFingerprints(root);
    const session = new GuardSession(table, 'withhold', ['bench']);
    const watch = new FingerprintWatch(root, table, table.at);
    const decide = (): string => (session.admits() ? 'pass' : 'refuse');
    const [subjectMs, baselineMs] = await perOp(
      decide,
      () => {
        watch.wrote();
        return watch.moved();
      },
      ctx.runs,
    );
    session.stop();
    rows.push({
      group: 'remote gate',
      subject: 'the re-check before each upload or restore (per request)',
      subjectMs,
      baseline: 'one wrote(); moved()',
      baselineMs,
      goal: 2,
    });
  }
  // The test helpers' server, with the bench's own cleanup in place of a test context.
  const stops: (() => void)[] = [];
  const server = await startTurboRemoteCache({ after: (stop) => void stops.push(stop as () => void) }, ctx.tmp, TOKEN, {
    bodyLimit: 300 * 1024 * 1024,
  });
  const gate = await startGateProcess('turbo-v8', server.url, root);
  // A cold 200-task turbo run takes 15-60 s here: three samples each side. A warm one restores in well
  // under a second, and its ratio is the one near its goal: eleven samples each side.
  const runs = Math.min(ctx.runs, 3);
  const warmRuns = Math.min(ctx.runs, 11);
  try {
    // Warm first (the cleanest view of the gate: no task runs, 200 artifacts restored from one namespace
    // filled once, local cache emptied before each sample); then cold (every sample runs the 200 tasks and
    // uploads into an empty namespace). Rows are printed as they come: a loaded machine makes this slow.
    turboRun(root, tools.env, server.url, 'warm');
    turboRun(root, tools.env, gate.url, 'warm');
    // One row per kind: samples taken in pairs, alternating which side goes first.
    const pairedRow = (kind: 'warm' | 'cold', pairs: number, what: string): void => {
      const samples = { direct: [] as number[], gated: [] as number[] };
      for (let i = 0; i < pairs; i++) {
        const order = i % 2 === 0 ? (['direct', 'gated'] as const) : (['gated', 'direct'] as const);
        for (const mode of order)
          samples[mode].push(
            turboRun(
              root,
              tools.env,
              mode === 'direct' ? server.url : gate.url,
              kind === 'warm' ? 'warm' : `cold-${i}-${mode}`,
            ),
          );
      }
      const row: BenchRow = {
        group: 'remote gate',
        subject: `turbo ${kind} run through the gate (${what})`,
        subjectMs: median(samples.gated),
        baseline: 'straight to turborepo-remote-cache',
        baselineMs: median(samples.direct),
        pairRatio: medianPairRatio(samples.gated, samples.direct),
        goal: 1.05,
        note: `ratio: median of the pair ratios (ratio of the medians ${(median(samples.gated) / median(samples.direct)).toFixed(2)}×); samples gated ${samples.gated.map(Math.round).join('/')} direct ${samples.direct.map(Math.round).join('/')} ms`,
      };
      rows.push(row);
      process.stderr.write(`bench: ${JSON.stringify(row)}\n`);
    };
    pairedRow('warm', warmRuns, `${PACKAGES} restores of 256 KB`);
    pairedRow('cold', runs, `${PACKAGES} uploads of 256 KB`);
  } finally {
    await gate.end().catch(() => undefined);
    for (const stop of stops) stop();
  }
  return rows;
}
