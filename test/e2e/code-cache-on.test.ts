// The guarded poisoning scenario (test/helpers/runner-scenario.ts, turbo over pnpm) with lockguard's code cache
// ON, as users run it (every other test keeps it off: test/helpers/env.ts): the run that writes the cache and
// the runs that read it give the verdicts the suite proves with it off. The first guarded run withholds b's
// stale save and leaves `run`'s cache file; going back, the next guarded run compiles from that file (left
// as it was: a cache V8 rejected, or none read, is rewritten) and turbo rebuilds b with what is installed.
// Invariants: the cache lives under the scenario's temp folder (XDG_CACHE_HOME), never the developer's.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import { scenario } from '../helpers/runner-scenario.js';

/** The one cache file of `command`'s bundle under `xdg`, with what proves it was not rewritten. */
function cacheFile(xdg: string, command: string): { path: string; ino: number; mtimeMs: number } {
  const home = join(xdg, 'lockguard', 'code-cache');
  const [folder, ...others] = readdirSync(home);
  assert.ok(folder !== undefined && others.length === 0, `one folder for this Node: ${readdirSync(home).join(', ')}`);
  const files = readdirSync(join(home, folder)).filter((name) => name.startsWith(`${command}-`));
  assert.equal(files.length, 1, `one ${command} cache in ${folder}: ${files.join(', ')}`);
  const path = join(home, folder, files[0] ?? '');
  const { ino, mtimeMs } = statSync(path);
  return { path, ino, mtimeMs };
}

test('turbo over pnpm, the code cache on: the run that writes it and the run that reads it withhold and rebuild as with it off', (t) => {
  const s = scenario(t, 'turbo');
  const xdg = join(s.base, 'xdg-cache');
  const env: Record<string, string> = { ...s.env, LOCKGUARD_CODE_CACHE: '', XDG_CACHE_HOME: xdg };
  delete env['CI'];
  const lockguard = (args: readonly string[]) =>
    spawnSync(process.execPath, [BIN, ...args], { cwd: s.root, env, encoding: 'utf8', timeout: 120_000 });
  {
    // The first guarded run: no cache yet; the run withholds b's save and writes run's cache after it.
    const run = lockguard(['run', '--', ...s.runnerArgv()]);
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    const lines = run.stderr.split('\n').filter((line) => line.startsWith('[lockguard] a task'));
    assert.equal(lines.length, 1, run.stderr);
    assert.match(
      lines[0] ?? '',
      /^\[lockguard\] a task rewrote pnpm-lock\.yaml during the run, which every key folds: /,
    );
    assert.match(lines[0] ?? '', /cache saves? made after it (was|were) withheld/);
    assert.equal(s.out(), '6.0.0', 'the run itself built against the new install');
  }
  const written = cacheFile(xdg, 'run');
  {
    const status = lockguard(['status', '--json']);
    assert.equal(status.status, 0, status.stderr);
    const report = (JSON.parse(status.stdout) as { report: { withheld: { task: string | null }[] } }).report;
    assert.ok(
      report.withheld.some((entry) => entry.task === 'b#build'),
      JSON.stringify(report.withheld),
    );
  }
  {
    // Back on S0 with 7.0.0 installed: the guarded run, compiled from the cache, lets turbo rebuild b.
    s.goBack();
    const run = lockguard(['run', '--', ...s.runnerArgv()]);
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.doesNotMatch(run.stderr, /^\[lockguard\]/m, 'nothing moved: nothing said');
    assert.equal(s.installed(), '7.0.0');
    assert.equal(s.out(), '7.0.0', 'b rebuilt with what is installed, never the stale 6.0.0');
  }
  const read = cacheFile(xdg, 'run');
  assert.deepEqual(read, written, 'the second run read the cache V8 accepted, and left it as it was');
});
