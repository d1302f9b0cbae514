// Running the wrapped command: argv exactly (no shell), stdio inherited, signals forwarded, code returned.
//
// Owns: spawning, forwarding SIGINT/SIGTERM/SIGHUP (or the signals the caller names) to the child while it
// lives, and mapping its end to an exit code (its own code; 128+n for signal n; 127 not found; 126 not
// executable), `signalExitCode` (the 128+n every layer uses).
// Invariants: plain node:child_process (execa's import alone costs more than lockguard's whole check, and a
// wrapper's start-up is on every run's path); never a shell; listeners removed when the child ends; the
// caller learns the pid at once (`onSpawn`), so a run can record it before the child can do anything.
// After the child ends, signals are the caller's (ledger/interrupts.ts holds them during the withholding pass).

import { childProcess } from '../core/child-process.js';
import { nodeOs } from '../core/lazy-builtins.js';
import type { Env } from '../core/env.js';
import { errnoCode } from '../core/errors.js';

export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The exit code a shell gives a process ended by `signal`: 128 plus its number. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (nodeOs().constants.signals[signal] ?? 0);
}

export type ChildEnd =
  | { readonly kind: 'exited'; readonly code: number }
  | { readonly kind: 'signaled'; readonly signal: NodeJS.Signals; readonly code: number }
  | {
      readonly kind: 'failed';
      readonly code: number;
      readonly reason: 'not-found' | 'not-executable' | 'spawn-failed';
      readonly errno: string | undefined;
    };

export interface ChildOptions {
  readonly cwd: string;
  readonly env: Env;
  /** Told the child's pid once it is spawned (a run records it: a dead guard's command may live on). */
  readonly onSpawn?: (pid: number) => void;
  /** The signals forwarded to the child while it lives (default FORWARDED_SIGNALS); the others are only held. */
  readonly forward?: readonly NodeJS.Signals[];
}

export function runChild(argv: readonly string[], options: ChildOptions): Promise<ChildEnd> {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('runChild needs a command');
  return new Promise((resolve) => {
    const child = childProcess().spawn(file, args, {
      cwd: options.cwd,
      env: options.env as NodeJS.ProcessEnv,
      stdio: 'inherit',
      shell: false,
    });
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    const forward = (signal: NodeJS.Signals): void => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    const forwarded = options.forward ?? FORWARDED_SIGNALS;
    for (const signal of forwarded) process.on(signal, forward);
    const done = (end: ChildEnd): void => {
      for (const signal of forwarded) process.off(signal, forward);
      resolve(end);
    };
    child.once('error', (error) => {
      const errno = errnoCode(error);
      if (errno === 'ENOENT') done({ kind: 'failed', code: 127, reason: 'not-found', errno });
      else if (errno === 'EACCES') done({ kind: 'failed', code: 126, reason: 'not-executable', errno });
      else done({ kind: 'failed', code: 126, reason: 'spawn-failed', errno });
    });
    child.once('exit', (code, signal) => {
      if (signal !== null) done({ kind: 'signaled', signal, code: signalExitCode(signal) });
      else done({ kind: 'exited', code: code ?? 1 });
    });
  });
}
