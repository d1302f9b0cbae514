// The CI save gate as a workflow runs it: `lockguard snapshot --github-output`, a step, then
// `lockguard verify --github-output`, through the real built bin, with $GITHUB_OUTPUT / $GITHUB_ENV files.
//
// Invariants: every assertion here is about what a workflow would read (the files' exact lines and the exit
// code); a later step joins the run through the LOCKGUARD_RUN line the snapshot wrote to $GITHUB_ENV.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliProcess, type CliResult } from './cli.js';

export interface Snapshot {
  readonly key: string;
  readonly run: string;
  /** What the snapshot appended to $GITHUB_ENV (LOCKGUARD_RUN=<run folder>). */
  readonly runDir: string;
  readonly result: CliResult;
}

export interface GateVerdict {
  readonly code: number;
  /** The `save=` line of $GITHUB_OUTPUT. */
  readonly save: string;
  /** The `moved=` line, split on commas ([] when empty). */
  readonly moved: readonly string[];
  readonly result: CliResult;
}

/** A fresh empty file for $GITHUB_OUTPUT or $GITHUB_ENV, removed at exit of the test via the caller's folder. */
function outputFile(): { path: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'lockguard-gh-'));
  const path = join(dir, 'file');
  writeFileSync(path, '');
  return { path, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `lockguard snapshot --github-output [...extra]` in `root`; asserts exit 0 and both files' exact lines. */
export function snapshotStep(root: string, env: Record<string, string>, extra: readonly string[] = []): Snapshot {
  const output = outputFile();
  const jobEnv = outputFile();
  try {
    const result = cliProcess(['snapshot', '--github-output', ...extra], root, {
      ...env,
      GITHUB_OUTPUT: output.path,
      GITHUB_ENV: jobEnv.path,
    });
    assert.equal(result.code, 0, `snapshot failed:\n${result.stderr}`);
    const lines = readFileSync(output.path, 'utf8');
    const match = /^key=([0-9a-f]{64})\nrun=(\S+)\n$/.exec(lines);
    assert.ok(match, `unexpected $GITHUB_OUTPUT from snapshot: ${JSON.stringify(lines)}`);
    const [, key = '', run = ''] = match;
    const runDir = join(root, '.lockguard', 'runs', run);
    assert.equal(readFileSync(jobEnv.path, 'utf8'), `LOCKGUARD_RUN=${runDir}\n`);
    assert.ok(existsSync(join(runDir, 'run.json')), 'the run named in $GITHUB_ENV exists');
    // The key printed on stdout is the one written for the workflow.
    assert.match(result.stdout, new RegExp(`^key  ${key}$`, 'm'));
    return { key, run, runDir, result };
  } finally {
    output.dispose();
    jobEnv.dispose();
  }
}

/**
 * `lockguard verify --github-output` in `root`, joining `snapshot` the way a later step would (LOCKGUARD_RUN
 * from $GITHUB_ENV), or finding the latest snapshot when `snapshot` is undefined.
 */
export function verifyStep(root: string, env: Record<string, string>, snapshot?: Snapshot): GateVerdict {
  const output = outputFile();
  try {
    const joined = snapshot === undefined ? env : { ...env, LOCKGUARD_RUN: snapshot.runDir };
    const result = cliProcess(['verify', '--github-output'], root, { ...joined, GITHUB_OUTPUT: output.path });
    const lines = readFileSync(output.path, 'utf8');
    const match = /^save=(true|false)\nmoved=(\S*)\n$/.exec(lines);
    assert.ok(
      match,
      `unexpected $GITHUB_OUTPUT from verify (exit ${result.code}): ${JSON.stringify(lines)}\n${result.stderr}`,
    );
    const [, save = '', moved = ''] = match;
    // The exit code and the output line always agree.
    assert.equal(result.code, save === 'true' ? 0 : 1, result.stderr);
    return { code: result.code, save, moved: moved === '' ? [] : moved.split(','), result };
  } finally {
    output.dispose();
  }
}
