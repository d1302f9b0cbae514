// Signals while lockguard itself works on the ledger (the final check, a withholding pass, finishing a
// dead run): the work is never cut in the middle of a unit.
//
// Owns: holding SIGINT, SIGTERM and SIGHUP for a critical span. While held, the first signal is noted and
// the work goes on until the quarantine is consistent (the pass completes); a second one asks it to stop
// at the next safe point (between two units: what is left is finished by the next lockguard command).
// Before `arm()`, signals are left to whoever else listens (lib/ledger/child.ts forwards them to the child
// while it runs), so holding from just before the child starts leaves no moment where a signal kills
// lockguard with the default action between the child's end and the pass.
// Invariants: never exits the process (the caller turns `signal` into 128+n); listeners are removed on
// release(); a held span yields to the event loop between units (quarantine/pass.ts), or signals are never seen.

import { FORWARDED_SIGNALS } from './child.js';

export interface Interrupts {
  /** From now on, signals count (before: they are only forwarded to the child by child.ts). */
  arm(): void;
  /** The first signal received while armed, if any. */
  readonly signal: NodeJS.Signals | undefined;
  /** True after a second signal: stop at the next safe point. */
  stopRequested(): boolean;
  /** Remove the listeners. */
  release(): void;
}

export interface HoldOptions {
  /** Told about each counted signal (first: finishing; second: stopping at the next safe point). */
  readonly onSignal?: (signal: NodeJS.Signals, count: number) => void;
  /** Start armed (no child to forward to). */
  readonly armed?: boolean;
}

export function holdSignals(options: HoldOptions = {}): Interrupts {
  let armed = options.armed === true;
  let first: NodeJS.Signals | undefined;
  let count = 0;
  const listener = (signal: NodeJS.Signals): void => {
    if (!armed) return;
    count++;
    if (first === undefined) first = signal;
    options.onSignal?.(signal, count);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, listener);
  let released = false;
  return {
    arm() {
      armed = true;
    },
    get signal() {
      return first;
    },
    stopRequested() {
      return count >= 2;
    },
    release() {
      if (released) return;
      released = true;
      for (const signal of FORWARDED_SIGNALS) process.off(signal, listener);
    },
  };
}
