// How the CLI steers a withholding pass: signals (second one stops between units) and the test seam.
//
// Owns: building a PassControl (run/quarantine.ts) from held signals and the environment, and the lines
// lockguard prints when a signal arrives while it works on the quarantine.
// Test seams (not in --help), for tests that kill -9 or signal the guard at a chosen stage, deterministically:
// - LOCKGUARD_TEST_PAUSE_AFTER_UNITS=<n>: the withholding pass pauses once after n units;
// - LOCKGUARD_TEST_PAUSE_AFTER_CHILD=1: `lockguard run` pauses after its child exited, before the final check.
// Each prints one line naming the seam on stderr and goes on when a signal arrives (or after 60 s).

import { holdSignals, type Interrupts } from '../run/interrupts.js';
import type { PassControl } from '../run/quarantine.js';
import type { Io } from './io.js';

export const PAUSE_SEAM = 'LOCKGUARD_TEST_PAUSE_AFTER_UNITS';
export const CHILD_SEAM = 'LOCKGUARD_TEST_PAUSE_AFTER_CHILD';
/** How long a paused pass waits for the test's signal before it goes on by itself. */
const SEAM_WAIT_MS = 60_000;
const SEAM_POLL_MS = 20;

async function waitForSignal(interrupts: Interrupts): Promise<void> {
  const until = Date.now() + SEAM_WAIT_MS;
  while (interrupts.signal === undefined && Date.now() < until) await new Promise((done) => setTimeout(done, SEAM_POLL_MS));
}

/** The seam after the child: pause before the final check when LOCKGUARD_TEST_PAUSE_AFTER_CHILD is set. */
export async function pauseAfterChild(io: Io, interrupts: Interrupts): Promise<void> {
  if (io.env[CHILD_SEAM] === undefined || io.env[CHILD_SEAM] === '') return;
  io.stderr.write(`lockguard: test seam: paused after the child exited, before the final check (${CHILD_SEAM})\n`);
  await waitForSignal(interrupts);
}

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
      await waitForSignal(interrupts);
    },
  };
}
