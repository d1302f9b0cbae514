// The poisoning scenario (test/helpers/runner-scenario.ts) through `lockguard run -- <runner>` itself (the real bin), for turbo, nx and
// pnpm pipeline: the status line names the lockfile and the withheld saves, the report lists b's entry in
// quarantine, and going back to S0 plus a frozen install makes the runner miss and rebuild 7.0.0.

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import { scenario } from '../helpers/runner-scenario.js';
import type { Tool } from '../helpers/scenario-workspace.js';

const B_TASK: Record<Tool, string> = { turbo: 'b#build', nx: 'b:build', 'pnpm-pipeline': 'packages/b#build' };

interface Status {
  state: string;
  report: {
    withheld: { key: string; task: string | null; reason: string }[];
    runner: string;
    moved: { files: { path: string }[] } | null;
  };
}

for (const tool of ['turbo', 'nx', 'pnpm-pipeline'] as const satisfies readonly Tool[]) {
  test(`lockguard run -- ${tool}: b's stale save is withheld; going back rebuilds with the installed version`, (t) => {
    const s = scenario(t, tool);
    {
      // Locally the guarded run exits 0 under withhold and says what it did in one line.
      const run = s.sh([process.execPath, BIN, 'run', '--', ...s.runnerArgv()]);
      assert.equal(run.status, 0, `local run exits 0 under withhold:\n${run.stdout}\n${run.stderr}`);
      const lines = run.stderr.split('\n').filter((line) => line.startsWith('[lockguard] a task'));
      assert.equal(lines.length, 1, run.stderr);
      // Only what the keys fold is named as folded: the lockfile, not the install markers the add rewrote too.
      assert.ok(
        (lines[0] ?? '').startsWith(
          '[lockguard] a task rewrote pnpm-lock.yaml during the run, which every key folds: ',
        ),
        lines[0],
      );
      assert.match(lines[0] ?? '', /cache saves? made after it (was|were) withheld/);
      // Said when seen too (at most once), before the final line.
      const seen = run.stderr.split('\n').filter((line) => line.startsWith('[lockguard] pnpm-lock.yaml changed at '));
      assert.ok(seen.length <= 1, run.stderr);
      for (const line of seen)
        assert.match(
          line,
          /^\[lockguard\] pnpm-lock\.yaml changed at \d\d:\d\d:\d\d \(a task wrote it\): saves from now on will be withheld$/,
        );
      assert.equal(s.out(), '6.0.0', 'the run itself built against the new install');
      assert.doesNotMatch(
        run.stderr,
        /remote cache/,
        'no remote cache is configured: nothing to switch off, nothing said',
      );
      assert.match(
        run.stderr,
        /^ {2}pnpm-lock\.yaml moved: the slices? of packages\/b changed/m,
        'the slice line names b',
      );
    }
    {
      const status = JSON.parse(s.sh([process.execPath, BIN, 'status', '--json']).stdout) as Status;
      assert.equal(status.state, 'moved');
      assert.equal(status.report.runner, tool);
      assert.ok(status.report.moved?.files.some((file) => file.path === 'pnpm-lock.yaml'));
      assert.ok(
        status.report.withheld.some((entry) => entry.task === B_TASK[tool]),
        JSON.stringify(status.report.withheld),
      );
      for (const entry of status.report.withheld)
        assert.ok(
          [
            'saved at or after the move, under a key that folded the old pnpm-lock.yaml',
            'its task was running when pnpm-lock.yaml moved',
          ].includes(entry.reason),
          entry.reason,
        );
      const listed = s.sh([process.execPath, BIN, 'quarantine', 'list']);
      assert.equal(listed.status, 0, listed.stderr);
    }
    {
      // Back on S0 with 7.0.0 installed: the runner misses b and rebuilds it against what is installed.
      s.goBack();
      s.runner();
      assert.equal(s.installed(), '7.0.0');
      assert.equal(s.out(), '7.0.0');
    }
  });
}

for (const manager of ['yarn', 'bun'] as const) {
  const lockfile = manager === 'yarn' ? 'yarn\\.lock' : 'bun\\.lock';
  test(`lockguard run -- turbo over a ${manager} workspace: b's stale save is withheld; going back rebuilds with the installed version`, (t) => {
    const s = scenario(t, 'turbo', { manager });
    {
      const run = s.sh([process.execPath, BIN, 'run', '--', ...s.runnerArgv()]);
      assert.equal(run.status, 0, `local run exits 0 under withhold:\n${run.stdout}\n${run.stderr}`);
      const lines = run.stderr.split('\n').filter((line) => line.startsWith('[lockguard] a task'));
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0] ?? '', new RegExp(lockfile));
      assert.match(lines[0] ?? '', /cache saves? made after it (was|were) withheld/);
      assert.equal(s.out(), '6.0.0', 'the run itself built against the new install');
      assert.match(
        run.stderr,
        new RegExp(`^ {2}${lockfile} moved: the slices? of packages/b changed`, 'm'),
        'the slice line names b',
      );
    }
    {
      const status = JSON.parse(s.sh([process.execPath, BIN, 'status', '--json']).stdout) as Status;
      assert.equal(status.state, 'moved');
      assert.equal(status.report.runner, 'turbo');
      assert.ok(
        status.report.withheld.some((entry) => entry.task === 'b#build'),
        JSON.stringify(status.report.withheld),
      );
    }
    {
      // Back on S0 with 7.0.0 installed (frozen install): turbo misses b and rebuilds it.
      s.goBack();
      s.runner();
      assert.equal(s.installed(), '7.0.0');
      assert.equal(s.out(), '7.0.0');
    }
  });
}

test("lockguard run -- pnpm pipeline on a fresh clone: the pipeline's own frozen install is no move, and the pre-run check does not refuse it", (t) => {
  const s = scenario(t, 'pnpm-pipeline');
  s.sh(['rm', '-f', join(s.base, 'armed')]);
  for (const dir of ['node_modules', 'packages/a/node_modules', 'packages/b/node_modules'])
    rmSync(join(s.root, dir), { recursive: true, force: true });
  const run = s.sh([process.execPath, BIN, 'run', '--', 'pnpm', 'pipeline']);
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.equal(s.installed(), '7.0.0', 'the pipeline installed the tree itself');
  assert.doesNotMatch(run.stderr, /\[lockguard\] a task/, 'no move reported');
  const status = JSON.parse(s.sh([process.execPath, BIN, 'status', '--json']).stdout) as Status;
  assert.equal(status.state, 'unmoved');
});
