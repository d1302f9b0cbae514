// Crash tests: a guard as a real process that the test kills or signals at a chosen stage, an inventory of
// every cache entry wherever it is (cache or quarantine), and tmpfs mounts (tests run as root here).
//
// Invariants: every wait has a deadline (a hang fails the test, never the suite); every mount is unmounted
// in t.after (lazily, so a busy mount never outlives the test).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, type TestContext } from 'node:test';
import { readJournal } from '../../lib/ledger/quarantine/journal.js';
import { BIN } from './cli.js';
import { sleep } from './workspace.js';

export interface GuardProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  stderr(): string;
  stdout(): string;
  /** Resolves once stderr (or stdout) matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** The exit, once it came. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** kill -9 of the guard, then wait for it and for every process of its group (its orphaned command) to be gone. */
  kill9(): Promise<void>;
}

/** `lockguard <argv>` as a process group leader (so its child can be waited for after the guard is killed). */
export function spawnGuard(argv: readonly string[], cwd: string, env: Record<string, string>): GuardProcess {
  const child = spawn(process.execPath, [BIN, ...argv], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  if (child.pid === undefined) throw new Error('lockguard did not start');
  const pid = child.pid;
  return {
    child,
    pid,
    stderr: () => err,
    stdout: () => out,
    async waitFor(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(err) && !pattern.test(out)) {
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${pattern}\nstderr:\n${err}\nstdout:\n${out}`);
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`lockguard exited before ${pattern}\nstderr:\n${err}\nstdout:\n${out}`);
        await sleep(20);
      }
    },
    exited,
    async kill9() {
      process.kill(pid, 'SIGKILL');
      await exited;
      await groupGone(pid);
    },
  };
}

/** `lockguard <argv> --json`, parsed (outputs of large runs pass spawnSync's default 1 MB buffer). */
export function lockguardJson<T>(argv: readonly string[], cwd: string, env: Record<string, string>): T {
  const result = spawnSync(process.execPath, [BIN, ...argv, '--json'], {
    cwd,
    env,
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 512 << 20,
  });
  if (result.status !== 0)
    throw new Error(`lockguard ${argv.join(' ')} --json exited ${result.status ?? result.signal}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** Wait until every process of the group `pgid` is gone (the killed guard's orphaned command included). */
export async function groupGone(pgid: number, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) {
      process.kill(-pgid, 'SIGKILL');
      throw new Error(`process group ${pgid} still alive after ${timeoutMs} ms`);
    }
    await sleep(50);
  }
}

/** Poll until `condition` holds (deadline-bounded). */
export async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function sha(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function walk(dir: string, visit: (abs: string) => void): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const abs = join(dir, name);
    const stats = lstatSync(abs);
    if (stats.isDirectory()) walk(abs, visit);
    else visit(abs);
  }
}

export interface Inventory {
  /** Cache-relative path → sha256 of every copy found (cache and quarantine). */
  readonly files: ReadonlyMap<string, readonly string[]>;
  /** Stage copies (`.lockguard-stage-*`) anywhere: a torn copy left behind. */
  readonly stages: readonly string[];
  readonly inCache: number;
  readonly inQuarantine: number;
}

/**
 * Every file of `cacheDir` and of every quarantine under `<root>/.lockguard/quarantine/*\/entries/<runner>/<key>/`,
 * keyed by its path relative to the cache dir.
 */
export function inventory(cacheDir: string, root: string): Inventory {
  const files = new Map<string, string[]>();
  const stages: string[] = [];
  const add = (path: string, abs: string): void => {
    if (abs.split('/').some((part) => part.startsWith('.lockguard-stage-'))) {
      stages.push(abs);
      return;
    }
    files.set(path, [...(files.get(path) ?? []), sha(abs)]);
  };
  let inCache = 0;
  let inQuarantine = 0;
  walk(cacheDir, (abs) => {
    inCache++;
    add(relative(cacheDir, abs), abs);
  });
  const quarantine = join(root, '.lockguard', 'quarantine');
  for (const run of existsSync(quarantine) ? readdirSync(quarantine) : []) {
    const entries = join(quarantine, run, 'entries');
    for (const runner of existsSync(entries) ? readdirSync(entries) : []) {
      for (const key of readdirSync(join(entries, runner))) {
        const home = join(entries, runner, key);
        walk(home, (abs) => {
          inQuarantine++;
          add(relative(home, abs), abs);
        });
      }
    }
  }
  return { files, stages, inCache, inQuarantine };
}

/** Differences between two inventories: a path lost, duplicated, or with other bytes; empty when equal. */
export function inventoryDifferences(before: Inventory, after: Inventory): string[] {
  const problems: string[] = [];
  const whole = (inv: Inventory): Map<string, string> => {
    const out = new Map<string, string>();
    for (const [path, copies] of inv.files) {
      if (new Set(copies).size !== 1) problems.push(`${path}: ${copies.length} copies with different bytes`);
      out.set(path, copies[0] ?? '');
    }
    return out;
  };
  const a = whole(before);
  const b = whole(after);
  for (const [path, digest] of a) {
    if (!b.has(path)) problems.push(`${path}: lost`);
    else if (b.get(path) !== digest) problems.push(`${path}: bytes changed`);
  }
  for (const path of b.keys()) if (!a.has(path)) problems.push(`${path}: appeared`);
  for (const [path, copies] of after.files)
    if (copies.length > 1) problems.push(`${path}: ${copies.length} copies (split or duplicated)`);
  if (after.stages.length > 0) problems.push(`stage copies left: ${after.stages.slice(0, 3).join(', ')}`);
  return problems.slice(0, 20);
}

/** Units of every quarantine journal that are neither settled in quarantine nor back in the cache. */
export function unitsInFlight(root: string): string[] {
  const quarantine = join(root, '.lockguard', 'quarantine');
  const out: string[] = [];
  for (const run of existsSync(quarantine) ? readdirSync(quarantine) : []) {
    for (const unit of readJournal(join(quarantine, run)).units)
      if (unit.state === 'moving' || unit.state === 'restoring') out.push(`${run}:${unit.intent.unit}`);
  }
  return out;
}

function unmounter(t: Pick<TestContext, 'after'>, dir: string): () => void {
  let done = false;
  const unmount = (): void => {
    if (done) return;
    done = true;
    spawnSync('umount', ['-l', dir], { timeout: 10_000 });
  };
  // A safety net only: t.after hooks run in the order registered, after the temp folder's removal, so tests
  // call the returned function themselves (in a finally) before their folders go.
  t.after(unmount);
  return unmount;
}

/** Mount a tmpfs at `dir` (created); returns the unmount (call it in a finally: the temp folder's removal needs it gone). */
export function mountTmpfs(t: Pick<TestContext, 'after'>, dir: string, options: string): () => void {
  mkdirSync(dir, { recursive: true });
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (mounted.status !== 0) throw new Error(`mount -t tmpfs -o ${options} ${dir} failed: ${mounted.stderr}`);
  return unmounter(t, dir);
}

/** Bind-mount `dir` onto itself read-only (EROFS for every write below it); returns the unmount. */
export function mountReadOnly(t: Pick<TestContext, 'after'>, dir: string): () => void {
  const bind = spawnSync('mount', ['--bind', dir, dir], { encoding: 'utf8', timeout: 10_000 });
  if (bind.status !== 0) throw new Error(`mount --bind ${dir} failed: ${bind.stderr}`);
  const unmount = unmounter(t, dir);
  const ro = spawnSync('mount', ['-o', 'remount,bind,ro', dir], { encoding: 'utf8', timeout: 10_000 });
  if (ro.status !== 0) throw new Error(`remount ro ${dir} failed: ${ro.stderr}`);
  return unmount;
}

/**
 * Put this test file's temp folders on a tmpfs of `size` (TMPDIR for the process and its children): the
 * crash tests write and move tens of thousands of small files, which a loaded disk makes slow. Unmounted
 * after the file's last test (its folders are gone by then).
 */
export function tempOnTmpfs(size: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'lockguard-tmpfs-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (mounted.status !== 0) throw new Error(`mount -t tmpfs ${dir} failed: ${mounted.stderr}`);
  const previous = process.env['TMPDIR'];
  process.env['TMPDIR'] = dir;
  after(() => {
    if (previous === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = previous;
    spawnSync('umount', ['-l', dir], { timeout: 10_000 });
    rmSync(dir, { recursive: true, force: true });
  });
}

/** Resize a tmpfs mounted at `dir`. */
export function resizeTmpfs(dir: string, size: string): void {
  const done = spawnSync('mount', ['-o', `remount,size=${size}`, dir], { encoding: 'utf8', timeout: 10_000 });
  if (done.status !== 0) throw new Error(`remount size=${size} ${dir} failed: ${done.stderr}`);
}

/** Whether the file exists and holds `text` (for polling a log another process writes). */
export function fileIncludes(path: string, text: string): boolean {
  try {
    return readFileSync(path, 'utf8').includes(text);
  } catch {
    return false;
  }
}

/** Wait until the newest guarded run of the workspace recorded its child's start; its run id. */
export async function childStarted(root: string): Promise<string> {
  let runDir: string | undefined;
  await until(
    () => (runDir = latestRunDir(root)) !== undefined && fileIncludes(join(runDir, 'events.ndjson'), '"type":"child"'),
    'the child to start',
  );
  return (runDir ?? '').split('/').at(-1) ?? '';
}

/** The newest guarded run folder of the workspace (or undefined before one exists). */
export function latestRunDir(root: string): string | undefined {
  const runs = join(root, '.lockguard', 'runs');
  if (!existsSync(runs)) return undefined;
  const ids = readdirSync(runs)
    .filter((name) => name.includes('-run-'))
    .sort();
  const id = ids.at(-1);
  return id === undefined ? undefined : join(runs, id);
}

/**
 * The package folders of the turbo entries still in `cacheDir`, from their `-manifest.json` (one per entry).
 * After a move in the poisoning scenario, a#build's own save stays: a's slice did not move (per-project
 * withholding, integrations/runners/affected.ts), so a fully withheld cache holds exactly `packages/a`'s entry.
 */
export function entriesLeft(cacheDir: string): { packages: string[]; files: number } {
  const names = readdirSync(cacheDir);
  const packages = new Set<string>();
  for (const name of names.filter((file) => file.endsWith('-manifest.json'))) {
    const listed = Object.keys(
      (JSON.parse(readFileSync(join(cacheDir, name), 'utf8')) as { files?: object }).files ?? {},
    );
    for (const file of listed) packages.add(file.split('/').slice(0, 2).join('/'));
  }
  return { packages: [...packages].sort(), files: names.length };
}
