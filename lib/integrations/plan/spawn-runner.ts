// Running a task runner's own dry run for a plan: one child process, bounded in time and output.
//
// Owns: spawning argv (no shell) in the workspace root with `<root>/node_modules/.bin` first on PATH (as
// `pnpm exec` would), collecting stdout, and turning failure into ERR_LOCKGUARD_PLAN naming the command.
// turbo's Node launcher (or pnpm's shim of it) is skipped for its native binary (runners/turbo/binary.ts).
// Where the OS runs the file itself (POSIX: a binary or a script with a shebang), the dry run is spawned with
// node:child_process: importing
// execa costs about 135 ms and 340 M instructions here, four Node starts, more than pnpm 12's or turbo's whole
// dry run. On Windows, where a runner on PATH is a `.cmd` shim that only a shell or execa starts, execa runs it.
// Invariants: never a hang: the dry run runs in a process group of its own, killed whole (SIGKILL) after its
// timeout (60 s; LOCKGUARD_DRY_RUN_TIMEOUT, in seconds, overrides it), when its output passes the cap, and
// when lockguard itself is stopped by SIGINT, SIGTERM or SIGHUP meanwhile, so no runner or worker of it is
// left behind; never echoes the environment; the runner's output is quoted only by the one line that says
// why it failed (the first that looks like an error, else the first that is not a notice such as turbo's
// telemetry one); both ways of spawning end in the same verdicts; an empty folder the dry run created at the
// workspace root (turbo's `.turbo/cache`) is taken back, so a read-only command (doctor, plan) leaves none.

import type { ChildProcess } from 'node:child_process';
import { lstatSync, readdirSync, rmdirSync } from 'node:fs';
import { childProcess } from '../../core/child-process.js';
import { delimiter, join } from 'node:path';
import type { Env } from '../../core/env.js';
import { LockguardError } from '../../core/errors.js';
import { importExternal } from '../../core/external.js';
import { pathKeyOf } from '../package-managers/on-path.js';
import { turboNative } from '../runners/turbo/binary.js';
import { planError } from './types.js';

/** How long a dry run may take before it is killed (turbo and nx start a daemon-less graph walk). */
const DRY_RUN_TIMEOUT_MS = 60_000;
/** The setting that overrides it, in seconds. */
const TIMEOUT_SETTING = 'LOCKGUARD_DRY_RUN_TIMEOUT';
/** The most a dry run may print (a 1,000-project JSON plan is a few MB). */
const DRY_RUN_MAX_OUTPUT = 256 * 1024 * 1024;
/** The longest stderr line quoted in an error. */
const QUOTED_LINE_MAX = 200;
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes start with ESC.
const ANSI_COLOR = /\u001b\[[0-9;]*m/g;

export interface SpawnOptions {
  readonly root: string;
  readonly env: Env;
  readonly timeoutMs?: number;
}

/** Lines that are notices, never a failure's cause: turbo's telemetry notice, nx's banner, warnings, links. */
const NOISE =
  /^(WARNING|WARN\b|Attention|NX\s*$|Turborepo now collects|This information is used|You can learn more|https?:\/\/|\u2022\s*Packages in scope|\u2022\s*Running|\u2022\s*Remote caching)/i;
/** A line that says what went wrong. */
const CAUSE =
  /\b(error|ERR_[A-Z_]+|failed|fatal|cannot|could not|not found|invalid|unexpected|panic)\b|^\s*[\u00d7\u2717]\s/i;

/** The line of a failed dry run's output that says why: the first that looks like an error, else the first that is no notice. */
export function causeLine(text: string): string {
  const lines = text
    .split('\n')
    .map((part) => part.replace(ANSI_COLOR, '').trim())
    .filter((part) => part !== '' && !NOISE.test(part));
  const line = lines.find((part) => CAUSE.test(part)) ?? lines[0];
  return (line ?? '').slice(0, QUOTED_LINE_MAX);
}

/** The dry run's time limit: LOCKGUARD_DRY_RUN_TIMEOUT (seconds) when set, else the caller's, else 60 s. */
function dryRunTimeoutMs(env: Env, fallback = DRY_RUN_TIMEOUT_MS): number {
  const value = env[TIMEOUT_SETTING];
  if (value === undefined || value === '') return fallback;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new LockguardError(
      'ERR_LOCKGUARD_BAD_SETTING',
      `Expected ${TIMEOUT_SETTING} to be a number of seconds above 0, got "${value.slice(0, 40)}".`,
      { hint: `Set ${TIMEOUT_SETTING} to the seconds a runner's dry run may take (60 when unset), or unset it.` },
    );
  return Math.round(seconds * 1000);
}

/** Kill the child's whole process group (it leads one: spawned detached); the child alone where that fails. */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

const STOPS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * While the group runs: lockguard stopped by a signal kills the group first, then stops as that signal would
 * (the group is not the terminal's foreground group, so a Ctrl-C no longer reaches it by itself). Returns the undo.
 */
function killGroupOnStop(child: ChildProcess): () => void {
  const onStop = (signal: NodeJS.Signals): void => {
    killGroup(child);
    undo();
    process.kill(process.pid, signal);
  };
  const undo = (): void => {
    for (const signal of STOPS) process.off(signal, onStop);
  };
  for (const signal of STOPS) process.on(signal, onStop);
  return undo;
}

/** How a dry run ended, whichever way it was spawned. */
interface DryEnd {
  /** The code of a process that could not start (ENOENT, EACCES, ...). */
  readonly startError?: string;
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** Where the OS runs the file itself: node:child_process, with the bounds execa gives on Windows. */
function spawnPlain(
  file: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<DryEnd> {
  return new Promise((done) => {
    // A process group of its own, killed whole: a runner's workers never outlive a timed-out dry run.
    const child = childProcess().spawn(file, args, {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: false,
      detached: true,
    });
    const undo = killGroupOnStop(child);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    let startError: string | undefined;
    const collect =
      (into: Buffer[]) =>
      (chunk: Buffer): void => {
        size += chunk.length;
        if (size > DRY_RUN_MAX_OUTPUT) killGroup(child);
        else into.push(chunk);
      };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    child.once('error', (error: NodeJS.ErrnoException) => {
      startError = error.code ?? 'error';
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      undo();
      done({
        ...(startError === undefined ? {} : { startError }),
        exitCode: startError === undefined ? (code ?? undefined) : undefined,
        signal: signal ?? undefined,
        timedOut,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
}

/** On Windows: execa starts `.cmd` shims, with the same timeout with SIGKILL, output cap, and a result for a non-zero exit. */
async function spawnExeca(
  file: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<DryEnd> {
  const { execa } = await importExternal('execa');
  const result = await execa(file, args, {
    cwd,
    env,
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: DRY_RUN_MAX_OUTPUT,
    stripFinalNewline: false,
  });
  const notStarted = result.failed && result.exitCode === undefined && !result.timedOut && result.signal === undefined;
  const startError = notStarted
    ? ((result.cause as NodeJS.ErrnoException | undefined)?.code ?? result.shortMessage)
    : undefined;
  return {
    ...(startError === undefined ? {} : { startError }),
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    stdout: result.stdout,
    stderr: result.stderr,
  };
}

export async function runDry(argv: readonly string[], options: SpawnOptions): Promise<string> {
  const [file, ...args] = argv;
  if (file === undefined) throw planError('Expected a runner command after "--".', 'lockguard plan -- turbo run build');
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) if (value !== undefined) env[key] = value;
  const pathKey = pathKeyOf(env);
  env[pathKey] = [join(options.root, 'node_modules', '.bin'), env[pathKey] ?? ''].join(delimiter);
  const shown = argv.join(' ');
  const timeoutMs = dryRunTimeoutMs(options.env, options.timeoutMs);
  const native = turboNative(file, options.root, env);
  const before = entriesOf(options.root);
  const end =
    native !== undefined
      ? await spawnPlain(native.binary, args, options.root, { ...env, ...native.env }, timeoutMs)
      : process.platform === 'win32'
        ? await spawnExeca(file, args, options.root, env, timeoutMs)
        : await spawnPlain(file, args, options.root, env, timeoutMs);
  if (before !== undefined)
    for (const name of entriesOf(options.root) ?? [])
      if (!before.has(name)) removeEmptyFolders(join(options.root, name));
  if (end.startError !== undefined && !end.timedOut && end.signal === undefined && end.exitCode === undefined) {
    throw planError(
      `Could not start "${shown}" for the plan: ${end.startError}.`,
      `Install ${file} in the workspace (or put it on PATH), or run lockguard plan from the workspace root.`,
      options.root,
    );
  }
  if (end.exitCode === 0 && !end.timedOut) return end.stdout;
  if (end.timedOut)
    throw new LockguardError(
      'ERR_LOCKGUARD_TIMEOUT',
      `The runner's dry run "${shown}" timed out after ${timeoutMs / 1000} s and was killed with every process it started.`,
      {
        path: options.root,
        hint: `Run that command yourself to see where it hangs (a daemon, a prompt, a lock); where it is only slow, set ${TIMEOUT_SETTING} to more seconds.`,
      },
    );
  const why = end.signal !== undefined ? `was killed (${end.signal})` : `exited with ${String(end.exitCode)}`;
  const detail = causeLine(end.stderr) || causeLine(end.stdout);
  throw planError(
    `The runner's dry run "${shown}" ${why}${detail === '' ? '' : `: ${detail}`}.`,
    'Run that command yourself to see why; lockguard plan needs it to succeed.',
    options.root,
  );
}

/** The names at `dir`'s top level, or undefined when it cannot be listed (then nothing is taken back). */
function entriesOf(dir: string): Set<string> | undefined {
  try {
    return new Set(readdirSync(dir));
  } catch {
    return undefined;
  }
}

/**
 * Remove `path` when it is a folder holding only empty folders (a few levels deep), never following a link;
 * true when it is gone. A file anywhere keeps it (rmdir refuses a folder that is not empty: nothing else is
 * removed, whatever writes there meanwhile).
 */
function removeEmptyFolders(path: string, depth = 0): boolean {
  try {
    if (depth > 3 || lstatSync(path).isDirectory() !== true) return false;
    let empty = true;
    for (const name of readdirSync(path)) if (!removeEmptyFolders(join(path, name), depth + 1)) empty = false;
    if (empty) rmdirSync(path);
    return empty;
  } catch {
    return false;
  }
}
