// The real-registry tier's known gaps: the steps of an arm that fail today because of an issue-28 bug another
// lane is fixing. The one place the lead edits as fixes land.
//
// Owns: the list (arm → step → the issue-28 bullet and the lane that fixes it).
// Invariants: a listed step is asserted in reverse (tier.ts `step`): the arm fails when the gap no longer
// reproduces, so an entry cannot outlive its fix; an unlisted step must pass. Never list a step to hide a
// failure nobody owns.

import type { ArmId } from './arms.js';

/** The steps of an arm, in order (tier.ts). */
export type Step = 'package' | 'init' | 'hooks-keep-lockfile' | 'doctor' | 'runs' | 'poisoning' | 'phantom' | 'way-out';

export interface Gap {
  /** The issue-28 bullet, in its words. */
  readonly bullet: string;
  /** The lane whose fix empties this entry. */
  readonly lane: 'install' | 'setup' | 'claims';
  /** What fails today, as measured. */
  readonly today: string;
}

export const KNOWN_GAPS: Readonly<Partial<Record<ArmId, Readonly<Partial<Record<Step, Gap>>>>>> = {};

/** The gap listed for this arm's step, if any. */
export function knownGap(arm: ArmId, step: Step): Gap | undefined {
  return KNOWN_GAPS[arm]?.[step];
}
