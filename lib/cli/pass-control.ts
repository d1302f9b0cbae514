// How the CLI steers a withholding pass: signals (second one stops between units) and the test seam.
//
// Owns: building a PassControl (run/quarantine.ts) from held signals and the environment, and the lines
// lockguard prints when a signal arrives while it works on the quarantine.
// Test seam (not in --help): LOCKGUARD_TEST_PAUSE_AFTER_UNITS=<n> makes the pass pause once after n units,
// print one line naming the seam on stderr, and go on when a signal arrives (or after 60 s). Tests use it
// to kill -9 or signal the guard in the middle of a pass, deterministically.

import { holdSignals, type Interrupts } from '../run/interrupts.js';
import type { PassControl } from '../run/quarantine.js';
import type { Io } from './io.js';

export const PAUSE_SEAM = 'LOCKGUARD_TEST_PAUSE_AFTER_UNITS';

/** Hold signals for a critical span, telling the user what happens on the first and the second one. */
export function holdForQuarantine(io: Io, armed = false): Interrupts {
  return holdSignals({
    armed,
    onSignal(signal, count) {
      if (count === 1) io.stderr.write(`lockguard: ${signal}: finishing the withholding pass first, so no cache entry is left half moved (send it again to stop after the current entry)\n`);
      else if (count === 2) io.stderr.write(`lockguard: ${signal} again: stopping after the current entry; the next lockguard command in this workspace finishes the rest\n`);
    },
  });
}

export function passControl(io: Io, interrupts: Interrupts): PassControl {
  const seam = io.env[PAUSE_SEAM];
  const after = seam === undefined || seam === '' ? undefined : Number(seam);
  const stopRequested = (): boolean => interrupts.stopRequested();
  if (after === undefined || !Number.isSafeInteger(after) || after < 0) return { stopRequested };
  return {
    stopRequested,
    pauseAfterUnits: after,
    async pause() {
      io.stderr.write(`lockguard: test seam: the withholding pass pauses after ${after} units (${PAUSE_SEAM})\n`);
      const until = Date.now() + 60_000;
      while (interrupts.signal === undefined && Date.now() < until) await new Promise((done) => setTimeout(done, 20));
    },
  };
}
