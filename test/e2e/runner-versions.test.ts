// The poisoning scenario (test/helpers/runner-scenario.ts) on every pinned runner version besides the
// default ones (nx 24.0.6 and turbo 2.11.11 run it in poisoning.test.ts and guarded-runners.test.ts): nx
// 20.8.4, 21.6.11, 22.6.3, 23.0.0, turbo 2.0.14 and 2.5.8, pnpm 12.21.0's pipeline (test/helpers/runner-versions.ts). One workspace
// per version: first the control without lockguard (the runner replays b's stale 6.0.0 after going back),
// then, from an empty runner cache and task DB, `lockguard run -- <runner>` (the real bin): b's save is
// withheld, and after going back the runner really rebuilds b with what is installed (7.0.0), never a
// `[local cache]` / cache hit with nothing restored. These are the README's "Supported runner versions".

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import { resolvePipelineCache } from '../../lib/integrations/runners/index.js';
import { scenario } from '../helpers/runner-scenario.js';
import type { ScenarioOptions, Tool } from '../helpers/scenario-workspace.js';
import { installed, NX_PACKAGES, PNPM_1221, TURBO_PACKAGES, type RunnerVersion } from '../helpers/runner-versions.js';

interface Case {
  readonly tool: Tool;
  readonly runner: RunnerVersion;
}

const CASES: readonly Case[] = [
  ...NX_PACKAGES.filter((pkg) => pkg !== 'nx').map((pkg) => ({ tool: 'nx' as const, runner: installed(pkg) })),
  ...TURBO_PACKAGES.filter((pkg) => pkg !== 'turbo').map((pkg) => ({ tool: 'turbo' as const, runner: installed(pkg) })),
  // pnpm 12.4.2's pipeline runs it in withhold.test.ts and guarded-runners.test.ts.
  { tool: 'pnpm-pipeline', runner: installed(PNPM_1221) },
];

/**
 * b restored from the cache, as the runner prints it: nx `> nx run b:build  [local cache]`, turbo
 * `b:build: cache hit, replaying logs <hash>`; the pipeline names no task: `2 passed (2 from cache)`.
 */
function bRestored(tool: Tool, stdout: string): boolean {
  if (tool === 'pnpm-pipeline') return /2 passed \(2 from cache\)/.test(stdout);
  return tool === 'nx' ? /nx run b:build\s+\[(local|remote) cache\]/.test(stdout) : /b:build: cache hit/.test(stdout);
}

/** What says b really ran: nx's task header without a cache tag, turbo's miss, the pipeline's `(0 from cache)`. */
const B_RAN: Record<Tool, RegExp> = {
  nx: /> nx run b:build\s*\n/,
  turbo: /b:build: cache miss, executing/,
  'pnpm-pipeline': /2 passed \(0 from cache\)/,
};

function options(tool: Tool, runner: RunnerVersion): ScenarioOptions {
  if (tool === 'nx') return { nxPackage: runner.pkg };
  return tool === 'turbo' ? { turboPackage: runner.pkg } : { pnpm1221: true };
}

for (const { tool, runner } of CASES) {
  test(`${tool} ${runner.version}: without lockguard the stale b is replayed; with lockguard it is withheld and rebuilt with the installed version`, (t) => {
    const s = scenario(t, tool, options(tool, runner));
    const version = s.sh([tool === 'pnpm-pipeline' ? 'pnpm' : tool, '--version']);
    assert.match(
      version.stdout,
      new RegExp(runner.version.replaceAll('.', '\\.')),
      `the ${tool} on PATH is ${runner.version}:\n${version.stdout}`,
    );
    {
      // Control: the runner alone keys b on S0 before a installs 6.0.0, and replays it after going back.
      s.runner();
      assert.equal(s.out(), '6.0.0');
      s.goBack();
      const replay = s.runner();
      assert.equal(s.installed(), '7.0.0');
      assert.ok(bRestored(tool, replay.stdout), `b is a cache hit:\n${replay.stdout}`);
      assert.equal(s.out(), '6.0.0', 'the stale output is replayed');
    }
    // Start over: an empty runner cache and task DB, a#build armed again.
    for (const dir of [join(s.root, '.nx'), join(s.root, '.turbo'), resolvePipelineCache(s.root, s.env).dir])
      rmSync(dir, { recursive: true, force: true });
    s.arm();
    {
      const run = s.sh([process.execPath, BIN, 'run', '--', ...s.runnerArgv()]);
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
      const lines = run.stderr.split('\n').filter((line) => line.startsWith('[lockguard] a task'));
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0] ?? '', /\d+ cache saves? made after it (was|were) withheld/);
      assert.doesNotMatch(lines[0] ?? '', /left in the cache|cannot be guarded/);
      assert.equal(s.out(), '6.0.0', 'the run itself built against the new install');
    }
    {
      s.goBack();
      const rebuild = s.runner();
      assert.equal(s.installed(), '7.0.0');
      assert.ok(!bRestored(tool, rebuild.stdout), `b is not a cache hit after the withholding:\n${rebuild.stdout}`);
      assert.match(rebuild.stdout, B_RAN[tool]);
      assert.equal(s.out(), '7.0.0', 'b was rebuilt with what is installed');
    }
    {
      // The rebuilt entry is a plain hit again (the task DB row was rewritten by nx itself).
      s.sh(['rm', '-rf', join(s.root, 'packages', 'b', 'dist')]);
      const again = s.runner();
      assert.ok(bRestored(tool, again.stdout), again.stdout);
      assert.equal(s.out(), '7.0.0');
    }
  });
}
