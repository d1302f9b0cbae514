// The install-check end-to-end rig: a workspace copied from `test/fixtures/install-check/<name>/` (a
// package.json and the lockfile its package manager wrote, every version pinned exact, so an install from
// the npm registry is reproducible), in a temp folder with HOME, XDG_* and every cache isolated, online.
//
// Owns: the copy, the environment, and `guardedTrue` (`lockguard run -- true`, the pre-run check's verdict
// as a user meets it). Invariants: nothing is written outside the temp folder the caller removes.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliProcess } from './cli.js';
import { isolatedEnv } from './env.js';
import { repoRoot } from './fixtures.js';

export interface Rig {
  /** The temp folder (remove it when done). */
  readonly tmp: string;
  /** The isolated, online environment every process of the file gets (one cache for all its workspaces). */
  readonly env: Record<string, string>;
}

export function makeRig(prefix: string, extra: Record<string, string> = {}): Rig {
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  return { tmp, env: isolatedEnv(tmp, { offline: false, extra }) };
}

/** A fresh copy of the fixture `name` in `<tmp>/<as>`; its path. */
export function fixtureWorkspace(rig: Rig, name: string, as: string = name): string {
  const root = join(rig.tmp, as);
  mkdirSync(root, { recursive: true });
  cpSync(join(repoRoot(), 'test', 'fixtures', 'install-check', name), root, { recursive: true });
  return root;
}

/** `lockguard run -- true` in `root`: exit code and what it printed. */
export function guardedTrue(root: string, env: Record<string, string>): { code: number; output: string } {
  const result = cliProcess(['run', '--', 'true'], root, env, 60_000);
  return { code: result.code, output: `${result.stdout}${result.stderr}` };
}

/** Assert the pre-run check passes, with what lockguard printed when it does not. */
export function assertInstalled(root: string, env: Record<string, string>, what: string): void {
  const { code, output } = guardedTrue(root, env);
  assert.equal(code, 0, `${what}: lockguard run -- true exited ${code}\n${output}`);
}

/** Assert the pre-run check refuses (exit 3) naming `names` (each `name@version`). */
export function assertRefused(
  root: string,
  env: Record<string, string>,
  names: readonly string[],
  what: string,
): string {
  const { code, output } = guardedTrue(root, env);
  assert.equal(code, 3, `${what}: lockguard run -- true exited ${code}\n${output}`);
  for (const name of names) assert.ok(output.includes(name), `${what}: the refusal names ${name}\n${output}`);
  assert.doesNotMatch(output, /virtual:|__virtual__|[0-9a-f]{64}/, `${what}: no virtual id or hash is named`);
  return output;
}

/** Run `argv` (a package manager, online, in the rig's environment) in `cwd`; throws with its output on failure. */
export function mustRunOnline(argv: readonly string[], cwd: string, env: Record<string, string>): string {
  const [command, ...args] = argv;
  const result = spawnSync(command ?? '', args, { cwd, env, encoding: 'utf8', timeout: 90_000 });
  if (result.status !== 0)
    throw new Error(
      `${argv.join(' ')} failed (${result.status ?? result.error?.message}) in ${cwd}\n${result.stdout}\n${result.stderr}`,
    );
  return result.stdout;
}
