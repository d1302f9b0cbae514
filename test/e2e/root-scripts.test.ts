// The poisoning scenario (test/helpers/runner-scenario.ts) started the way most repositories start their runner: a root script
// (`"build": "turbo run build"`, `"build": "nx run-many -t build"`) run as `pnpm run build`, `pnpm build` or
// `npm run build`, with the real pnpm 10 and 12, turbo and nx. The stale entry is withheld and the runner then
// rebuilds with what is installed; with a remote configured, the remote decision applies through the script.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import { installOncePerFile, scenario } from '../helpers/runner-scenario.js';
import type { Tool } from '../helpers/scenario-workspace.js';

// One install per scenario for the file, a private copy per test (runner-scenario.ts).
installOncePerFile();

const SCRIPT: Record<'turbo' | 'nx', string> = {
  turbo: 'turbo run build --summarize',
  nx: 'nx run-many -t build --output-style=static',
};
const B_TASK: Record<'turbo' | 'nx', string> = { turbo: 'b#build', nx: 'b:build' };

interface Status {
  report: { withheld: { task: string | null }[]; runner: string; caches: { runner: string; started: boolean }[] };
}

const CASES: ReadonlyArray<readonly [tool: 'turbo' | 'nx', pnpm: 10 | 12, start: readonly string[]]> = [
  ['turbo', 10, ['pnpm', 'run', 'build']],
  ['turbo', 10, ['pnpm', 'build']],
  ['turbo', 10, ['npm', 'run', 'build']],
  ['turbo', 12, ['pnpm', 'build']],
  ['nx', 10, ['pnpm', 'run', 'build']],
  ['nx', 10, ['npm', 'run', 'build']],
  ['nx', 12, ['pnpm', 'build']],
];

for (const [tool, pnpm, start] of CASES) {
  test(`lockguard run -- ${start.join(' ')} (root script "${SCRIPT[tool]}", pnpm ${pnpm}): b's stale save is withheld, then ${tool} rebuilds it`, (t) => {
    const s = scenario(t, tool as Tool, { pnpm, rootScripts: { build: SCRIPT[tool] } });
    {
      const run = s.sh([process.execPath, BIN, 'run', '--', ...start]);
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
      const lines = run.stderr.split('\n').filter((line) => line.startsWith('[lockguard] a task'));
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0] ?? '', /cache saves? made after it (was|were) withheld/);
      assert.match(lines[0] ?? '', /lockguard status --run \S+-run-/, 'the line names the run');
      assert.equal(s.out(), '6.0.0', 'the run itself built against the new install');
    }
    {
      const status = JSON.parse(s.sh([process.execPath, BIN, 'status', '--json']).stdout) as Status;
      assert.equal(status.report.runner, tool, 'the script was followed to the runner');
      assert.ok(status.report.caches.some((cache) => cache.runner === tool && cache.started));
      assert.ok(
        status.report.withheld.some((entry) => entry.task === B_TASK[tool]),
        JSON.stringify(status.report.withheld),
      );
      // verify with no --run judges this run (the latest of the workspace), not a missing snapshot.
      const verify = s.sh([process.execPath, BIN, 'verify']);
      assert.equal(verify.status, 1, `${verify.stdout}\n${verify.stderr}`);
    }
    {
      s.goBack();
      s.runner();
      assert.equal(s.installed(), '7.0.0');
      assert.equal(s.out(), '7.0.0', `${tool} rebuilt b with what is installed`);
    }
  });
}

test('a runner started through a script the command does not show (node build.js) is still guarded: turbo.json configures it', (t) => {
  const s = scenario(t, 'turbo', { rootScripts: { build: 'node run-turbo.cjs' } });
  writeFileSync(
    join(s.root, 'run-turbo.cjs'),
    "require('child_process').execFileSync('turbo', ['run', 'build', '--summarize'], { stdio: 'inherit' });\n",
  );
  const run = s.sh([process.execPath, BIN, 'run', '--', 'pnpm', 'build']);
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, /cache saves? made after it (was|were) withheld/);
  const status = JSON.parse(s.sh([process.execPath, BIN, 'status', '--json']).stdout) as Status;
  assert.deepEqual(
    status.report.caches.map((cache) => [cache.runner, cache.started]),
    [['turbo', false]],
  );
  assert.ok(status.report.withheld.some((entry) => entry.task === null || entry.task === 'b#build'));
  s.goBack();
  s.runner();
  assert.equal(s.out(), '7.0.0');
});

test('--runner none: nothing is withheld and the line says so, without sounding like protection', (t) => {
  const s = scenario(t, 'turbo', { rootScripts: { build: SCRIPT.turbo } });
  const run = s.sh([process.execPath, BIN, 'run', '--runner', 'none', '--', 'pnpm', 'build']);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /no runner cache is guarded here .*nothing was withheld/);
  assert.doesNotMatch(run.stderr, /\d+ cache saves? (keyed before|made after) it/);
});

test('with a remote cache configured, --remote auto applies through the root script', (t) => {
  // a#build visibly installs (the plan sees it through turbo's dry run); TURBO_API points at a dead port.
  const s = scenario(t, 'turbo', { rootScripts: { build: SCRIPT.turbo } });
  const manifest = join(s.root, 'packages', 'a', 'package.json');
  const a = JSON.parse(readFileSync(manifest, 'utf8')) as { scripts: Record<string, string> };
  a.scripts['build'] =
    `pnpm --filter b add tiny-dep@file:../../vendor/tiny-dep-6.0.0.tgz && ${a.scripts['build'] ?? ''}`;
  writeFileSync(manifest, JSON.stringify(a, null, 2));
  const env = { ...s.env, TURBO_API: 'http://127.0.0.1:9', TURBO_TOKEN: 'planted-token-value', TURBO_TEAM: 'team' };
  // auto: the remote gate stands in front of it (found through the script); uploads after the move are refused.
  const run = spawnSync(process.execPath, [BIN, 'run', '--', 'pnpm', 'build'], {
    cwd: s.root,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.match(run.stderr, /remote uploads? made after it (was|were) refused/, run.stderr);
  assert.doesNotMatch(run.stderr, /TURBO_CACHE=/, 'no up-front switch under the gate');
  assert.doesNotMatch(`${run.stdout}${run.stderr}`, /planted-token-value/);
  // off keeps its meaning: the runner's own switch, through the script too.
  const s2 = scenario(t, 'turbo', { rootScripts: { build: SCRIPT.turbo } });
  const off = spawnSync(process.execPath, [BIN, 'run', '--remote', 'off', '--', 'pnpm', 'build'], {
    cwd: s2.root,
    env: { ...s2.env, TURBO_API: 'http://127.0.0.1:9', TURBO_TOKEN: 'planted-token-value', TURBO_TEAM: 'team' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.match(off.stderr, /\[lockguard\] turbo remote cache off for this run \(TURBO_CACHE=local:rw\)/, off.stderr);
  assert.doesNotMatch(`${off.stdout}${off.stderr}`, /planted-token-value/);
});
