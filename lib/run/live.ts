// Live runs: how a hook inside a guarded run finds the run(s) it belongs to, cheaply.
//
// Owns: the live markers under `<root>/.lockguard/live/<run id>` (JSON: dir, id, pid, pidStart, policy),
// their liveness (pid plus kernel start time, so a reused pid is not a live run), and the hook report line.
// Invariants:
// - Node builtins only, tiny: the pnpmfile plugin (dist/pnpmfile.cjs) bundles it and runs inside pnpm.
// - Outside any run it costs one failed readdir (`live/` is removed when its last marker goes).
// - A marker whose process is gone is ignored (and removed); a garbage marker is ignored, never trusted.
// - Never throws into a package manager's hook for a ledger problem: callers get values.

import * as fs from 'node:fs';
import * as path from 'node:path';

export type LivePolicy = 'flag' | 'withhold' | 'refuse';

export interface LiveRun {
  /** Absolute run folder (what LOCKGUARD_RUN holds). */
  readonly dir: string;
  readonly id: string;
  readonly pid: number;
  readonly pidStart: number | null;
  readonly policy: LivePolicy;
}

export const LIVE_DIR = path.join('.lockguard', 'live');

/** Kernel start time of a pid (Linux /proc, clock ticks since boot), or null where unknown. */
export function processStart(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[19]);
    return Number.isFinite(start) ? start : null;
  } catch {
    return null;
  }
}

export function isAlive(pid: number, pidStart: number | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as { code?: string }).code !== 'EPERM') return false;
  }
  if (pidStart === null) return true;
  const now = processStart(pid);
  return now === null || now === pidStart;
}

function parseMarker(text: string): LiveRun | undefined {
  try {
    const value = JSON.parse(text) as Partial<LiveRun>;
    const policyOk = value.policy === 'flag' || value.policy === 'withhold' || value.policy === 'refuse';
    if (typeof value.dir !== 'string' || typeof value.id !== 'string' || typeof value.pid !== 'number' || !policyOk) return undefined;
    return { dir: value.dir, id: value.id, pid: value.pid, pidStart: typeof value.pidStart === 'number' ? value.pidStart : null, policy: value.policy as LivePolicy };
  } catch {
    return undefined;
  }
}

/** Mark a run live in its workspace. */
export function registerLive(root: string, run: LiveRun): void {
  const dir = path.join(root, LIVE_DIR);
  fs.mkdirSync(dir, { recursive: true });
  const stage = path.join(dir, `.${run.id}.${process.pid}.stage`);
  fs.writeFileSync(stage, JSON.stringify(run));
  fs.renameSync(stage, path.join(dir, run.id));
}

/** Remove a run's marker, and `live/` itself when it is empty (so idle workspaces cost one failed readdir). */
export function unregisterLive(root: string, id: string): void {
  const dir = path.join(root, LIVE_DIR);
  fs.rmSync(path.join(dir, id), { force: true });
  try {
    fs.rmdirSync(dir);
  } catch {
    // Not empty (another live run) or already gone: both fine.
  }
}

/** The live runs of the workspace at `root`. Stale markers (dead pids) are removed on the way. */
export function findLiveRuns(root: string): LiveRun[] {
  const dir = path.join(root, LIVE_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const runs: LiveRun[] = [];
  for (const name of names) {
    if (name.startsWith('.')) continue;
    let text: string;
    try {
      text = fs.readFileSync(path.join(dir, name), 'utf8');
    } catch {
      continue;
    }
    const run = parseMarker(text);
    if (run === undefined) continue;
    if (isAlive(run.pid, run.pidStart)) runs.push(run);
    else unregisterLive(root, name);
  }
  return runs;
}

/**
 * The live run a process belongs to: LOCKGUARD_RUN when it names a live marker's run, else every live run
 * of the workspace (turbo's strict env mode strips LOCKGUARD_RUN; a lockfile write affects every run anyway).
 */
export function liveRunsFor(root: string, env: Readonly<Record<string, string | undefined>>): LiveRun[] {
  const runs = findLiveRuns(root);
  const named = env['LOCKGUARD_RUN'];
  if (named !== undefined && named !== '') {
    const match = runs.filter((run) => path.resolve(run.dir) === path.resolve(named));
    if (match.length > 0) return match;
  }
  return runs;
}

/** Append one event line to a run's log; false when the run folder is gone (never throws). */
export function reportToRun(run: Pick<LiveRun, 'dir'>, event: Readonly<Record<string, unknown>>): boolean {
  try {
    fs.appendFileSync(path.join(run.dir, 'events.ndjson'), `${JSON.stringify({ t: Date.now(), ...event })}\n`);
    return true;
  } catch {
    return false;
  }
}
