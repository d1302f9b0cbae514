// Live runs: how a hook inside a guarded run finds the run(s) it belongs to, cheaply, and how the next
// lockguard command finds the runs that died before they finished.
//
// Owns: the markers under `<root>/.lockguard/live/<run id>` (JSON: dir, id, pid, pidStart, policy, host,
// boot), their liveness (pid plus kernel start time, so a reused pid is not a live run), and the hook report
// line.
// A marker stays from the run's start until the run is finished (its final check and withholding pass
// recorded): a marker whose process is gone is a run that died unfinished, kept as evidence until the
// next workspace command finishes that run (ledger/recovery.ts) and removes it.
// Invariants:
// - Node builtins (and the ledger's names, ledger-layout.ts, and trust.ts) only, tiny: the pnpmfile plugin
//   (dist/pnpmfile.cjs) bundles it and runs inside pnpm.
// - A marker not made on this machine since it last booted (trust.ts madeHere: another host or boot, no
//   such fields, forged) is foreign: never a live run, never a dead one (nothing recovers from it).
// - Outside any run it costs one failed readdir (`live/` is removed when its last marker goes).
// - A marker is trusted only with a start time and a run folder `<root>/.lockguard/runs/<its name>`; a
//   garbage or untrusted marker is never a live run.
// - Nothing is read or written through a symlink: `.lockguard`, `live` and the run folder are checked with
//   lstat, files are opened O_NOFOLLOW.
// - Never throws into a package manager's hook for a ledger problem: callers get values.

import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Env } from '../core/env.js';
import { LEDGER, LEDGER_DIR, RUN_FILES } from './ledger-layout.js';
import { machineStamp, madeHere } from './trust.js';
import { recordJson } from '../core/printable.js';

type LivePolicy = 'flag' | 'withhold' | 'refuse';

export interface LiveRun {
  /** Absolute run folder (what LOCKGUARD_RUN holds). */
  readonly dir: string;
  readonly id: string;
  readonly pid: number;
  readonly pidStart: number | null;
  readonly policy: LivePolicy;
}

/** A marker as found: parsed (or not), and whether its process lives. */
export interface Marker {
  /** The marker's file name (the run id it claims). */
  readonly name: string;
  /** undefined for a garbage or untrusted marker (no start time, a run folder elsewhere). */
  readonly run: LiveRun | undefined;
  readonly alive: boolean;
  /** The pid the marker names, even when the marker is not trusted. */
  readonly pid: number | undefined;
  /** Not made on this machine since it last booted: neither live nor dead here (nothing recovers from it). */
  readonly foreign: boolean;
}

export const LIVE_DIR = join(LEDGER_DIR, LEDGER.live);

const MARKER_NAME = /^[\w.-]+$/;
/** proc(5): `starttime` is field 22 of /proc/<pid>/stat, the 20th after the command name (0-based: 19). */
const STARTTIME_AFTER_COMM = 19;

/** Kernel start time of a pid (Linux /proc, clock ticks since boot), or null where unknown. */
export function processStart(pid: number): number | null {
  // This process's own start time never changes: read once (the run record and the live marker both ask).
  if (pid === process.pid && ownStart !== undefined) return ownStart;
  let start: number | null = null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): `) <state> <ppid> ...`.
    const fields = stat.slice(stat.lastIndexOf(')') + ') '.length).split(' ');
    const value = Number(fields[STARTTIME_AFTER_COMM]);
    start = Number.isFinite(value) ? value : null;
  } catch {
    start = null;
  }
  if (pid === process.pid) ownStart = start;
  return start;
}

let ownStart: number | null | undefined;

/** Whether `pid` is the process that started at `pidStart`. Without a start time nothing is trusted as live. */
export function isAlive(pid: number, pidStart: number | null): boolean {
  if (pidStart === null || !Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as { code?: string }).code !== 'EPERM') return false;
  }
  const now = processStart(pid);
  return now === null || now === pidStart;
}

/** A real folder (lstat: never a link). */
function realFolder(dir: string): boolean {
  try {
    return lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

function parseMarker(root: string, name: string, text: string): LiveRun | undefined {
  try {
    const value = JSON.parse(text) as Partial<LiveRun>;
    const policyOk = value.policy === 'flag' || value.policy === 'withhold' || value.policy === 'refuse';
    if (
      typeof value.dir !== 'string' ||
      value.id !== name ||
      typeof value.pid !== 'number' ||
      typeof value.pidStart !== 'number' ||
      !policyOk
    )
      return undefined;
    if (resolve(value.dir) !== join(resolve(root), LEDGER_DIR, LEDGER.runs, name)) return undefined;
    return {
      dir: value.dir,
      id: value.id,
      pid: value.pid,
      pidStart: value.pidStart,
      policy: value.policy as LivePolicy,
    };
  } catch {
    return undefined;
  }
}

function rawValue(text: string): { pid?: unknown } | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' ? (value as { pid?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

function rawPid(value: { pid?: unknown } | undefined): number | undefined {
  const pid = value?.pid;
  return typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** Whether a process with this pid exists (no start time to tell a reused pid apart). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/** Mark a run live in its workspace (the caller has checked `.lockguard` is a real folder). */
export function registerLive(root: string, run: LiveRun): void {
  const dir = join(root, LIVE_DIR);
  const ledger = join(root, LEDGER_DIR);
  if (!realFolder(ledger))
    throw Object.assign(new Error(`"${ledger}" is not a folder`), { code: 'ENOTDIR', path: ledger });
  if (!realFolder(dir)) mkdirSync(dir);
  if (!realFolder(dir)) throw Object.assign(new Error(`"${dir}" is not a folder`), { code: 'ENOTDIR', path: dir });
  const stage = join(dir, `.${run.id}.${process.pid}.stage`);
  writeFileSync(stage, JSON.stringify({ ...run, ...machineStamp() }), { flag: 'wx' });
  renameSync(stage, join(dir, run.id));
}

/** Remove a run's marker, and `live/` itself when it is empty (so idle workspaces cost one failed readdir). */
export function unregisterLive(root: string, id: string): void {
  const dir = join(root, LIVE_DIR);
  if (!MARKER_NAME.test(id) || !realFolder(join(root, LEDGER_DIR)) || !realFolder(dir)) return;
  try {
    unlinkSync(join(dir, id));
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw error;
  }
  try {
    rmdirSync(dir);
  } catch {
    // Not empty (another live run) or already gone: both fine.
  }
}

/** Every marker of the workspace, live or not (the stage files of a marker being written are skipped). */
export function listMarkers(root: string): Marker[] {
  const dir = join(root, LIVE_DIR);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  if (!realFolder(join(root, LEDGER_DIR)) || !realFolder(dir)) return [];
  const markers: Marker[] = [];
  for (const name of names) {
    if (name.startsWith('.') || !MARKER_NAME.test(name)) continue;
    let text: string;
    try {
      const fd = openSync(join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      try {
        text = fstatSync(fd).isFile() ? readFileSync(fd, 'utf8') : '';
      } finally {
        closeSync(fd);
      }
    } catch {
      continue;
    }
    const raw = rawValue(text);
    const foreign = !madeHere(raw);
    const run = foreign ? undefined : parseMarker(root, name, text);
    markers.push({
      name,
      run,
      alive: run !== undefined && isAlive(run.pid, run.pidStart),
      pid: run?.pid ?? rawPid(raw),
      foreign,
    });
  }
  return markers;
}

/** The live runs of the workspace at `root`. Markers of dead runs stay (the next lockguard command finishes those runs). */
export function findLiveRuns(root: string): LiveRun[] {
  const runs: LiveRun[] = [];
  for (const marker of listMarkers(root)) if (marker.alive && marker.run !== undefined) runs.push(marker.run);
  return runs;
}

/**
 * The live run a process belongs to: LOCKGUARD_RUN when it names a live marker's run, else every live run
 * of the workspace (turbo's strict env mode strips LOCKGUARD_RUN; a lockfile write affects every run anyway).
 */
export function liveRunsFor(root: string, env: Env): LiveRun[] {
  const runs = findLiveRuns(root);
  const named = env['LOCKGUARD_RUN'];
  if (named !== undefined && named !== '') {
    const match = runs.filter((run) => resolve(run.dir) === resolve(named));
    if (match.length > 0) return match;
  }
  return runs;
}

/** Append one event line to a run's log; false when the run folder is gone or not reachable without a link (never throws). */
export function reportToRun(run: Pick<LiveRun, 'dir'>, event: Readonly<Record<string, unknown>>): boolean {
  const runs = dirname(run.dir);
  if (basename(runs) !== LEDGER.runs || !realFolder(dirname(runs)) || !realFolder(runs) || !realFolder(run.dir))
    return false;
  let fd: number | undefined;
  try {
    fd = openSync(join(run.dir, RUN_FILES.events), constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
    writeSync(fd, `${recordJson({ t: Date.now(), ...event })}\n`);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
