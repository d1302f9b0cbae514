// How a guarded run steers a withholding pass: signals (second one stops between units) and the test seam.
//
// Owns: building a PassControl (ledger/quarantine.ts) from held signals and the environment, and the events
// for a signal that arrives while lockguard works on the quarantine (events.ts `signal-held`).
// Test seams (not in --help), for tests that kill -9 or signal the guard at a chosen stage, deterministically:
// - LOCKGUARD_TEST_PAUSE_AFTER_UNITS=<n>: the withholding pass pauses once after n units;
// - LOCKGUARD_TEST_PAUSE_AFTER_CHILD=1: `lockguard run` pauses after its child exited, before the final check.
// Each emits one `seam-paused` event and goes on when a signal arrives (or after 60 s).

import { holdSignals, type Interrupts } from '../ledger/interrupts.js';
import type { PassControl } from '../ledger/quarantine/index.js';
import type { GuardContext } from './events.js';

export const PAUSE_SEAM = 'LOCKGUARD_TEST_PAUSE_AFTER_UNITS';
export const CHILD_SEAM = 'LOCKGUARD_TEST_PAUSE_AFTER_CHILD';
/** How long a paused pass waits for the test's signal before it goes on by itself. */
const SEAM_WAIT_MS = 60_000;
const SEAM_POLL_MS = 20;

async function waitForSignal(interrupts: Interrupts): Promise<void> {
  const until = Date.now() + SEAM_WAIT_MS;
  while (interrupts.signal === undefined && Date.now() < until)
    await new Promise((done) => setTimeout(done, SEAM_POLL_MS));
}

/** The seam after the child: pause before the final check when LOCKGUARD_TEST_PAUSE_AFTER_CHILD is set. */
export async function pauseAfterChild(context: GuardContext, interrupts: Interrupts): Promise<void> {
  if (context.env[CHILD_SEAM] === undefined || context.env[CHILD_SEAM] === '') return;
  context.emit({ type: 'seam-paused', seam: 'after-child' });
  await waitForSignal(interrupts);
}

/** Hold signals for a critical span; each of the first two is an event (what happens on it is the caller's to say). */
export function holdForQuarantine(context: GuardContext, armed = false): Interrupts {
  return holdSignals({
    armed,
    onSignal(signal, count) {
      if (count <= 2) context.emit({ type: 'signal-held', signal, count });
    },
  });
}

export function passControl(context: GuardContext, interrupts: Interrupts): PassControl {
  const seam = context.env[PAUSE_SEAM];
  const after = seam === undefined || seam === '' ? undefined : Number(seam);
  const stopRequested = (): boolean => interrupts.stopRequested();
  if (after === undefined || !Number.isSafeInteger(after) || after < 0) return { stopRequested };
  return {
    stopRequested,
    pauseAfterUnits: after,
    async pause() {
      context.emit({ type: 'seam-paused', seam: 'after-units', units: after });
      await waitForSignal(interrupts);
    },
  };
}
