// Withhold what moved, not everything (integrations/runners/affected.ts), with the real pnpm 10 and turbo
// through `lockguard run`: the poisoning scenario (test/helpers/runner-scenario.ts) plus c, which depends on
// nothing and saves only after a's install rewrote the lockfile, and d, which depends on b. The install moves
// only b's slice (and so d's): b's and d's saves are withheld, a's and c's kept, and the next run restores
// them (turbo says cache hit) and rebuilds b with what is installed. A root-importer change, a hoisted layout
// and a turbo.json that orders tasks across packages (without a run summary) withhold every save after the move.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startTurboRemoteCache } from '../helpers/cache-servers.js';
import { BIN } from '../helpers/cli.js';
import { latestRunDir, spawnGuard } from '../helpers/crash.js';
import { installOncePerFile, scenario, type Scenario } from '../helpers/runner-scenario.js';
import type { ScenarioOptions } from '../helpers/scenario-workspace.js';

// One install per scenario for the file, a private copy per test (runner-scenario.ts).
installOncePerFile();

interface Status {
  report: {
    withheld: { task: string | null; key: string }[];
    withholdScope?: { kind: string; reasons: string[]; kept: { runner: string; key: string; task: string }[] };
  };
}

const STATUS = /^\[lockguard\] a task rewrote (.+) during the run, which every key folds: (.*)$/;

/**
 * The status line of a guarded run, split: the moved files (in the order the checks found them, so as a
 * set) and the rest of the line, which the tests assert exactly.
 */
function guarded(
  s: Scenario,
  argv: readonly string[] = ['turbo', 'run', 'build', '--summarize'],
): { moved: string[]; line: string; runId: string; stderr: string } {
  const run = s.sh([process.execPath, BIN, 'run', '--', ...argv]);
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  const lines = run.stderr.split('\n').filter((line) => line.startsWith('[lockguard] a task'));
  assert.equal(lines.length, 1, run.stderr);
  const runId = /--run (\S+) for details\)$/.exec(lines[0] ?? '')?.[1];
  const parts = STATUS.exec(lines[0] ?? '');
  assert.ok(runId !== undefined && parts !== null, lines[0]);
  const moved = (parts[1] ?? '').replace(' and ', ', ').split(', ').sort();
  return { moved, line: parts[2] ?? '', runId, stderr: run.stderr };
}

// The line names what a runner key folds: the install markers that mirror the lockfile are no key's input.
const ADDED = ['pnpm-lock.yaml'];

function status(s: Scenario): Status {
  return JSON.parse(s.sh([process.execPath, BIN, 'status', '--json']).stdout) as Status;
}

const PRECISE: ScenarioOptions = { withC: true, cAfterMove: true, withDependent: true };

const CASES: ReadonlyArray<readonly [pnpm: 10 | 12, summarize: boolean]> = [
  [10, true],
  [10, false],
  [12, true],
];

for (const [pnpm, summarize] of CASES) {
  test(`turbo, pnpm ${pnpm}${summarize ? ' (--summarize)' : " (no run summary: the entries' manifests)"}: only b's and its dependent's saves are withheld, the unrelated c's is kept and restored next time`, (t) => {
    const s = scenario(t, 'turbo', { ...PRECISE, pnpm });
    const argv = summarize ? ['turbo', 'run', 'build', '--summarize'] : ['turbo', 'run', 'build'];
    {
      // a's install moved only b's slice (d's through b): b and d withheld, a and c (saved after the move) kept.
      const { moved, line, runId, stderr } = guarded(s, argv);
      if (pnpm === 10) assert.deepEqual(moved, ADDED);
      else assert.ok(moved.includes('pnpm-lock.yaml'), moved.join(', '));
      assert.equal(
        line,
        `2 cache saves made after it were withheld (b#build, d#build, whose projects' slices moved); 2 kept (a#build, c#build: their projects' slices and reach did not move) (lockguard status --run ${runId} for details)`,
      );
      assert.match(
        stderr,
        /pnpm-lock\.yaml moved: the slices of 2 projects changed: packages\/b \(tiny-dep .*\), packages\/d \(through its dependencies: tiny-dep .*\); 3 other projects unchanged/,
      );
      const report = status(s).report;
      assert.deepEqual(report.withheld.map((entry) => entry.task).sort(), ['b#build', 'd#build']);
      assert.equal(report.withholdScope?.kind, 'projects');
      assert.deepEqual(report.withholdScope?.kept.map((entry) => entry.task).sort(), ['a#build', 'c#build']);
      assert.equal(readFileSync(join(s.base, 'c-ran'), 'utf8'), 'x');
      const human = s.sh([process.execPath, BIN, 'status']).stdout;
      assert.match(
        human,
        /^kept {5}2 cache saves after the move, their projects' slices and reach did not move:$/m,
        human,
      );
    }
    {
      // Back on S0: turbo restores a's and c's kept entries (cache hit; c does not run) and rebuilds b with 7.0.0.
      s.goBack();
      const next = s.sh([...argv, '--output-logs=hash-only']);
      assert.equal(next.status, 0, `${next.stdout}\n${next.stderr}`);
      assert.match(next.stdout, /c:build: cache hit, suppressing logs/);
      assert.match(next.stdout, /a:build: cache hit, suppressing logs/);
      assert.match(next.stdout, /b:build: cache miss, executing/);
      assert.match(next.stdout, /d:build: cache miss, executing/);
      assert.equal(readFileSync(join(s.base, 'c-ran'), 'utf8'), 'x', 'c was restored, not rebuilt');
      assert.equal(s.installed(), '7.0.0');
      assert.equal(s.out(), '7.0.0');
    }
  });
}

test("turbo, pnpm 10: a change to the root importer's slice withholds every save after the move, and the line says why", (t) => {
  const s = scenario(t, 'turbo', {
    ...PRECISE,
    install: ['pnpm', 'add', '-w', '-D', 'tiny-dep@file:{root}/vendor/tiny-dep-6.0.0.tgz'],
  });
  const { moved, line, runId } = guarded(s);
  assert.deepEqual(moved, ['pnpm-lock.yaml']);
  assert.equal(
    line,
    `4 cache saves made after it were withheld, every save after it, because the root importer's slice moved, and the root's node_modules and bins reach every project (its node_modules/.bin is on every package script's PATH, whichever runner starts the script) (lockguard status --run ${runId} for details)`,
  );
  const report = status(s).report;
  assert.deepEqual(report.withheld.map((entry) => entry.task).sort(), ['a#build', 'b#build', 'c#build', 'd#build']);
  assert.equal(report.withholdScope?.kind, 'all');
  assert.deepEqual(report.withholdScope?.kept, []);
});

test('turbo, pnpm 10 with node-linker=hoisted: every save after the move is withheld, and the line says why', (t) => {
  const s = scenario(t, 'turbo', { ...PRECISE, npmrc: 'node-linker=hoisted\n' });
  const { moved, line, runId } = guarded(s);
  assert.ok(moved.includes('pnpm-lock.yaml'), moved.join(', '));
  assert.equal(
    line,
    `4 cache saves made after it were withheld, every save after it, because node-linker=hoisted puts packages where every project resolves them, so no project's slice bounds what it built (lockguard status --run ${runId} for details)`,
  );
  assert.deepEqual(
    status(s)
      .report.withheld.map((entry) => entry.task)
      .sort(),
    ['a#build', 'b#build', 'c#build', 'd#build'],
  );
  const human = s.sh([process.execPath, BIN, 'status']).stdout;
  assert.match(
    human,
    /^scope {4}every save after the move \(turbo: node-linker=hoisted puts packages where every project resolves them/m,
    human,
  );
});

test("turbo, pnpm 10, no run summary, and turbo.json orders c after another package's task: c's save is withheld too", (t) => {
  const s = scenario(t, 'turbo', PRECISE);
  const turboJson = join(s.root, 'turbo.json');
  const config = JSON.parse(readFileSync(turboJson, 'utf8')) as { tasks: Record<string, unknown> };
  config.tasks['c#build'] = { dependsOn: ['b#build'], outputs: ['dist/**'] };
  writeFileSync(turboJson, JSON.stringify(config, null, 2));
  const { line } = guarded(s, ['turbo', 'run', 'build']);
  assert.ok(
    line.startsWith(
      `4 cache saves made after it were withheld (4 not mapped to a project: turbo.json names other packages' tasks in dependsOn, and no run summary shows the task graph: pass --summarize) (lockguard status --run `,
    ),
    line,
  );
  assert.ok(existsSync(join(s.base, 'c-ran')));
});

test('a guard killed before its final check: the next lockguard command finishes its run with the same per-project judgement', async (t) => {
  const s = scenario(t, 'turbo', PRECISE);
  const guard = spawnGuard(['run', '--', 'turbo', 'run', 'build', '--summarize'], s.root, {
    ...s.env,
    LOCKGUARD_TEST_PAUSE_AFTER_CHILD: '1',
  });
  await guard.waitFor(/test seam: paused after the child exited/, 120_000);
  await guard.kill9();
  const dead = (latestRunDir(s.root) ?? '').split('/').at(-1) ?? '';
  {
    // The next guarded run finishes it first: b's and d's saves withheld, a's and c's kept, as the run itself would have.
    const next = s.sh([process.execPath, BIN, 'run', '--', 'true']);
    assert.equal(next.status, 0, next.stderr);
    const line =
      next.stderr.split('\n').find((candidate) => candidate.startsWith(`[lockguard] run ${dead} did not finish`)) ?? '';
    assert.equal(
      line.replace(/\(pid \d+\)/, '(pid N)'),
      `[lockguard] run ${dead} did not finish: its guard (pid N) died before its final check, and it had recorded a move of the table: 2 cache saves it made since the move it recorded were withheld (b#build, d#build, whose projects' slices moved); 2 kept (a#build, c#build: their projects' slices and reach did not move), restorably (lockguard quarantine list --run ${dead})`,
    );
  }
  {
    s.goBack();
    const back = s.sh([...s.runnerArgv(), '--output-logs=hash-only']);
    assert.equal(back.status, 0, back.stderr);
    assert.match(back.stdout, /c:build: cache hit, suppressing logs/);
    assert.match(back.stdout, /b:build: cache miss, executing/);
    assert.equal(s.out(), '7.0.0');
  }
});

for (const pnpm of [10, 12] as const) {
  test(`pnpm ${pnpm} puts the workspace root's node_modules/.bin on a package script's PATH, and turbo folds the root's dependencies into every task's hash: the root importer's slice counts for every project`, (t) => {
    const s = scenario(t, 'turbo', { withC: true, pnpm });
    const src = join(s.base, 'rootbin', 'package');
    mkdirSync(src, { recursive: true });
    writeFileSync(
      join(src, 'package.json'),
      JSON.stringify({ name: 'rootbin', version: '1.0.0', bin: { rootbin: 'cli.js' } }),
    );
    writeFileSync(join(src, 'cli.js'), '#!/usr/bin/env node\nconsole.log("rootbin ran");\n');
    assert.equal(
      spawnSync('tar', ['-czf', join(s.root, 'vendor', 'rootbin-1.0.0.tgz'), '-C', join(s.base, 'rootbin'), 'package'])
        .status,
      0,
    );
    const hashes = (): Map<string, string> => {
      const dry = s.sh(['turbo', 'run', 'build', '--dry=json']);
      assert.equal(dry.status, 0, dry.stderr);
      const plan = JSON.parse(dry.stdout) as {
        globalCacheInputs: { hashOfExternalDependencies: string };
        tasks: { taskId: string; hash: string }[];
      };
      // The global hash's external dependencies (the root's, from the lockfile) as one more "task".
      return new Map([
        ['(global)', plan.globalCacheInputs.hashOfExternalDependencies],
        ...plan.tasks.map((task): [string, string] => [task.taskId, task.hash]),
      ]);
    };
    const manifest = join(s.root, 'packages', 'c', 'package.json');
    const c = JSON.parse(readFileSync(manifest, 'utf8')) as { scripts: Record<string, string> };
    c.scripts['which'] = 'echo "PATH=$PATH" && rootbin';
    writeFileSync(manifest, JSON.stringify(c, null, 2));
    const s0 = hashes();
    const add = s.sh(['pnpm', 'add', '-w', '-D', 'rootbin@file:vendor/rootbin-1.0.0.tgz']);
    assert.equal(add.status, 0, add.stderr);
    // turbo folds the root's dependencies into its global hash, so into every task's: a root devDependency changes all.
    const withRoot = hashes();
    for (const [task, hash] of s0) assert.notEqual(withRoot.get(task), hash, task);
    // c declares no dependency on rootbin; its script still finds the root's bin, through the root's .bin on PATH.
    const run = s.sh(['pnpm', '--filter', 'c', 'run', 'which']);
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /rootbin ran/);
    const path = /^PATH=(\S+)$/m.exec(run.stdout)?.[1]?.split(':') ?? [];
    assert.ok(path.includes(join(s.root, 'node_modules', '.bin')), path.join('\n'));
    // And b's dependency changes b's hash only (nothing depends on b here): c's and a's stay.
    const bMoved = s.sh(['pnpm', '--filter', 'b', 'add', 'tiny-dep@file:../../vendor/tiny-dep-6.0.0.tgz']);
    assert.equal(bMoved.status, 0, bMoved.stderr);
    const after = hashes();
    assert.deepEqual(
      [...after].filter(([task, hash]) => withRoot.get(task) !== hash).map(([task]) => task),
      ['b#build'],
    );
  });
}

test('with the remote gate (turborepo-remote-cache): the gate refuses every upload after the move, kept saves too, and the line says so', async (t) => {
  const s = scenario(t, 'turbo', PRECISE);
  const server = await startTurboRemoteCache(t, s.base, 'lg-token-precise');
  const env = { ...s.env, TURBO_API: server.url, TURBO_TOKEN: 'lg-token-precise', TURBO_TEAM: 'acme' };
  const run = spawnSync(process.execPath, [BIN, 'run', '--', 'turbo', 'run', 'build', '--summarize'], {
    cwd: s.root,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  const line = run.stderr.split('\n').find((candidate) => candidate.startsWith('[lockguard] a task')) ?? '';
  const rest = STATUS.exec(line)?.[2] ?? '';
  // Locally per project; at the gate every upload after the move (turbo stops uploading at its first refusal).
  assert.match(
    rest,
    /^2 cache saves made after it were withheld \(b#build, d#build, whose projects' slices moved\); 2 kept \(a#build, c#build: their projects' slices and reach did not move\); [12] remote uploads? made after it (was|were) refused \(the gate refuses every upload after the move, of kept saves too: at the request it cannot tell whose entry it is\) \(lockguard status --run \S+ for details\)$/,
  );
  // Nothing keyed on the old lockfile after the move reached the remote: neither b's nor d's entry.
  const hashes = new Map(
    (
      JSON.parse(
        readFileSync(join(s.root, '.turbo', 'runs', readdirSync(join(s.root, '.turbo', 'runs'))[0] ?? ''), 'utf8'),
      ) as { tasks: { taskId: string; hash: string }[] }
    ).tasks.map((task) => [task.taskId, task.hash]),
  );
  const stored = server.keys().join('\n');
  for (const task of ['b#build', 'd#build'])
    assert.ok(!stored.includes(hashes.get(task) ?? 'missing'), `${task} is not on the remote`);
});

test("nx: every save after the move is withheld, and the line says why (nx's entries are not mapped to projects)", (t) => {
  const s = scenario(t, 'nx', { withC: true, cAfterMove: true });
  const { line, runId } = guarded(s, s.runnerArgv());
  // The root's devDependency nx is a `link:` to a folder outside the workspace: it installs nothing (Node
  // resolves a linked folder's requires from its real path, never the private pool; core/slices/reach.ts), so
  // the root's reach did not move and the scope is per project; nx's entries cannot be mapped to projects, so
  // every save after the move is withheld, and that is the reason said.
  assert.equal(
    line,
    `3 cache saves made after it were withheld, every save after it, because nx's cache entries are not mapped to projects here (lockguard status --run ${runId} for details)`,
  );
});
