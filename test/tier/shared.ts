// What every arm of the real-registry tier shares within one test run: lockguard's packed tarball (`npm pack`
// of the built repo, made once) and the package managers' stores and caches (seeded by the first arm that
// installs, reused by the others), in one folder per test run.
//
// Owns: that folder, `<tmpdir>/lockguard-tier-<runner pid>` (node --test runs every test file as a child of
// one runner process, so its pid names the run), the tarball in it, the store and cache paths, and the
// folder's lifetime: each arm file registers itself under `users/`, and the last one to leave removes the
// folder; a folder whose runner process is gone (a killed run) is removed by the next run.
// Invariants: writes only under its folder; packs at most once per folder (an exclusive `mkdir` lock, the
// others wait for the tarball's atomic rename); never runs a package install itself.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { scrubbedEnv } from '../helpers/env.js';
import { NPM, REPO_ROOT } from '../helpers/tools.js';

export interface Shared {
  /** The per-run folder. */
  readonly dir: string;
  /** lockguard's packed tarball (`npm pack` of this checkout's build). */
  readonly tarball: string;
  /** The stores and caches every arm's HOME configuration points at. */
  readonly pnpmStore: string;
  readonly pnpmCache: string;
  readonly npmCache: string;
  readonly yarnGlobal: string;
  readonly yarn1Cache: string;
  readonly bunCache: string;
}

const PREFIX = 'lockguard-tier-';
/** How long an arm waits for another arm's `npm pack`. */
const PACK_WAIT_MS = 180_000;

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Remove the folders of earlier runs whose runner process is gone. */
function sweep(): void {
  for (const name of readdirSync(tmpdir())) {
    const match = new RegExp(`^${PREFIX}(\\d+)(\\.trash-\\d+)?$`).exec(name);
    if (match === null || (match[2] === undefined && alive(Number(match[1])))) continue;
    rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

/** The tarball, packed by whichever arm takes the lock first. */
function packOnce(dir: string): string {
  const tarball = join(dir, 'lockguard.tgz');
  try {
    mkdirSync(join(dir, 'pack.lock'));
  } catch {
    const until = Date.now() + PACK_WAIT_MS;
    while (!existsSync(tarball) && Date.now() < until) sleep(200);
    if (!existsSync(tarball)) throw new Error(`no ${tarball} after ${PACK_WAIT_MS} ms: the arm packing it failed`);
    return tarball;
  }
  const out = join(dir, 'pack');
  mkdirSync(out, { recursive: true });
  const result = spawnSync(
    NPM.command,
    [...NPM.prefix, 'pack', '--ignore-scripts', '--pack-destination', out, REPO_ROOT],
    { cwd: dir, env: scrubbedEnv({ npm_config_cache: join(dir, 'npm-cache') }), encoding: 'utf8', timeout: 120_000 },
  );
  const packed = join(out, result.stdout.trim().split('\n').pop() ?? '');
  if (result.status !== 0 || !existsSync(packed) || !statSync(packed).isFile())
    throw new Error(`npm pack of ${REPO_ROOT} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  renameSync(packed, tarball);
  return tarball;
}

/** Join this run's shared folder (made and packed on first use); left when the test ends. */
export function sharedRun(t: Pick<TestContext, 'after'>): Shared {
  const dir = join(tmpdir(), `${PREFIX}${process.ppid}`);
  if (!existsSync(dir)) sweep();
  const me = join(dir, 'users', String(process.pid));
  mkdirSync(join(dir, 'users'), { recursive: true });
  writeFileSync(me, '');
  t.after(() => leave(dir, me));
  return {
    dir,
    tarball: packOnce(dir),
    pnpmStore: join(dir, 'pnpm-store'),
    pnpmCache: join(dir, 'pnpm-cache'),
    npmCache: join(dir, 'npm-cache'),
    yarnGlobal: join(dir, 'yarn-global'),
    yarn1Cache: join(dir, 'yarn1-cache'),
    bunCache: join(dir, 'bun-cache'),
  };
}

/** Unregister; the last arm out removes the folder (renamed first, so a newcomer starts a fresh one). */
function leave(dir: string, me: string): void {
  rmSync(me, { force: true });
  try {
    rmdirSync(join(dir, 'users'));
  } catch {
    return; // Another arm of this run still uses it.
  }
  const trash = `${dir}.trash-${process.pid}`;
  renameSync(dir, trash);
  rmSync(trash, { recursive: true, force: true });
}
