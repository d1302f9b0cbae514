// The most common CI shape on a fresh clone, with the real pnpm 10 and turbo: a root script
// `"ci:build": "pnpm install --frozen-lockfile && turbo run build"` (and the same through `sh -c`), run as
// `CI=1 lockguard run -- …` on a clone with no node_modules. The install creates the install-tree markers and
// leaves every input as it was: no move, nothing withheld, exit 0, and the report says what the install did
// and which scope the turbo cache was judged on. turbo's keys do not fold the markers (its dry run's hashes
// are the same after both markers are edited), which is why they are not judged.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import { scenario, type Scenario } from '../helpers/runner-scenario.js';

const CI_BUILD = 'pnpm install --frozen-lockfile && turbo run build';
const NX_CI_BUILD = 'pnpm install --frozen-lockfile && nx run-many -t build --output-style=static';
const INSTALLED =
  '[lockguard] installed: node_modules/.pnpm/lock.yaml and node_modules/.modules.yaml created; no input changed, so nothing was withheld or refused';
const JUDGED =
  '  judged on inputs: the turbo cache (runner keys fold the lockfile and what an install reads, not the install tree)';

interface Status {
  report: {
    withheld: unknown[];
    moved: unknown;
    installed: { path: string; kind: string }[];
    judged: string;
    exitCode: number;
  };
}

/** The scenario as a fresh clone: nothing installed, no turbo cache, and a#build installs nothing. */
function freshClone(s: Scenario): void {
  rmSync(join(s.base, 'armed'), { force: true });
  for (const folder of ['node_modules', 'packages/a/node_modules', 'packages/b/node_modules', '.turbo', '.nx'])
    rmSync(join(s.root, folder), { recursive: true, force: true });
  assert.equal(existsSync(join(s.root, 'node_modules')), false);
}

/** Every task's hash in turbo's dry run. */
function dryHashes(s: Scenario): string[] {
  const dry = s.sh(['turbo', 'run', 'build', '--dry=json']);
  assert.equal(dry.status, 0, dry.stderr);
  return (JSON.parse(dry.stdout) as { tasks: { taskId: string; hash: string }[] }).tasks
    .map((task) => `${task.taskId} ${task.hash}`)
    .sort();
}

for (const [shape, start] of [
  ['root script', ['pnpm', 'run', 'ci:build']],
  ['sh -c', ['sh', '-c', CI_BUILD]],
] as const) {
  test(`fresh clone, CI=1 lockguard run -- ${start.join(' ')} (${shape}): the install is reported, nothing is withheld, exit 0`, (t) => {
    const s = scenario(t, 'turbo', { rootScripts: { 'ci:build': CI_BUILD } });
    freshClone(s);
    {
      // The install inside the run created both markers; no input changed: nothing withheld, exit 0 under CI.
      const run = spawnSync(process.execPath, [BIN, 'run', '--', ...start], {
        cwd: s.root,
        env: { ...s.env, CI: '1' },
        encoding: 'utf8',
        timeout: 120_000,
      });
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
      const lines = run.stderr
        .split('\n')
        .filter((line) => line.startsWith('[lockguard]') || line.startsWith('  judged'));
      assert.deepEqual(lines, [INSTALLED, JUDGED]);
      assert.ok(existsSync(join(s.root, 'node_modules', '.pnpm', 'lock.yaml')), 'the install really installed');
      assert.equal(s.out(), '7.0.0');
    }
    {
      const status = JSON.parse(s.sh([process.execPath, BIN, 'status', '--json']).stdout) as Status;
      assert.equal(status.report.moved, null);
      assert.deepEqual(status.report.withheld, []);
      assert.deepEqual(
        status.report.installed.map((file) => [file.path, file.kind]),
        [
          ['node_modules/.pnpm/lock.yaml', 'appeared'],
          ['node_modules/.modules.yaml', 'appeared'],
        ],
      );
      assert.equal(status.report.judged, JUDGED.trim());
      const text = s.sh([process.execPath, BIN, 'status']).stdout.split('\n');
      assert.ok(
        text.includes('install  node_modules/.pnpm/lock.yaml and node_modules/.modules.yaml created; no input changed'),
        text.join('\n'),
      );
      assert.ok(
        text.includes(
          'judged   on inputs: the turbo cache (runner keys fold the lockfile and what an install reads, not the install tree)',
        ),
        text.join('\n'),
      );
      // verify judges this run on the same inputs: the save may happen.
      const verify = s.sh([process.execPath, BIN, 'verify']);
      assert.equal(verify.status, 0, verify.stderr);
      const id = /^run {6}(\S+) /m.exec(text.join('\n'))?.[1] ?? '';
      assert.equal(verify.stdout, `lockguard: nothing moved since ${id} (judged on inputs): the cache may be saved\n`);
    }
    {
      // The saves were kept: turbo replays both tasks from its cache.
      const again = s.sh(['turbo', 'run', 'build']);
      assert.equal(again.status, 0, again.stderr);
      assert.match(again.stdout, /FULL TURBO/);
    }
    if (shape === 'root script') {
      // turbo's keys do not fold the markers: editing both leaves every task hash as it was.
      const before = dryHashes(s);
      appendFileSync(join(s.root, 'node_modules', '.pnpm', 'lock.yaml'), '# edited\n');
      appendFileSync(join(s.root, 'node_modules', '.modules.yaml'), '\n');
      assert.deepEqual(dryHashes(s), before);
    }
  });
}

test('fresh clone, CI=1 lockguard run -- pnpm run ci:build (root script with nx): the install is reported, nothing is withheld, exit 0, nx replays', (t) => {
  const s = scenario(t, 'nx', { rootScripts: { 'ci:build': NX_CI_BUILD } });
  freshClone(s);
  const run = spawnSync(process.execPath, [BIN, 'run', '--', 'pnpm', 'run', 'ci:build'], {
    cwd: s.root,
    env: { ...s.env, CI: '1' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  const lines = run.stderr.split('\n').filter((line) => line.startsWith('[lockguard]') || line.startsWith('  judged'));
  // nx is not installed when the run starts (the script installs first), so lockguard could not ask it where it
  // caches nor list that cache: the line claims no guarded cache. Nothing moved, so it says no doubt either.
  assert.deepEqual(lines, [
    INSTALLED,
    '  judged on inputs: no runner cache is guarded here (runner keys fold the lockfile and what an install reads, not the install tree)',
  ]);
  assert.equal(s.out(), '7.0.0');
  const status = JSON.parse(s.sh([process.execPath, BIN, 'status', '--json']).stdout) as Status;
  assert.deepEqual(status.report.withheld, []);
  // The saves were kept: nx restores b from its cache.
  const again = s.sh(['nx', 'run-many', '-t', 'build', '--output-style=static']);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /\[(local cache|existing outputs match the cache, left as is)\]/);
  // nx's keys do not fold the markers: with both edited, b is still a hit (a miss would rebuild it).
  appendFileSync(join(s.root, 'node_modules', '.pnpm', 'lock.yaml'), '# edited\n');
  appendFileSync(join(s.root, 'node_modules', '.modules.yaml'), '\n');
  const edited = s.sh(['nx', 'run-many', '-t', 'build', '--output-style=static']);
  assert.equal(edited.status, 0, edited.stderr);
  assert.match(
    edited.stdout,
    /b:build[^\n]*\[(local cache|existing outputs match the cache, left as is)\]|\[(local cache|existing outputs match the cache, left as is)\][^\n]*b:build/,
  );
});
