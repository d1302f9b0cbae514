// Pointing a runner at the gate for one run: the env (and, for turbo's `--api`, the argv) of the child.
//
// Owns: `pointRunnerAt`, dispatched to the runner's adapter (`remote.pointAt`): turbo `TURBO_API=<gate>`
// (a `--api` in its own argv rewritten), nx `NX_SELF_HOSTED_REMOTE_CACHE_SERVER=<gate>`, pnpm 12.21
// pipeline `PNPM_REMOTE_CACHE_URL=<gate>`.
// Invariants: no credential is read, moved or added; nothing is pointed at the gate that the detection
// did not find gateable.

import type { Pointed } from './adapter.js';
import { adapterFor } from './registry.js';
import type { RemoteDetection } from './remote-upstream.js';

export type { Pointed } from './adapter.js';

type Gateable = Extract<RemoteDetection, { state: 'gateable' }>;

/** The child's env (and argv) that sends the runner's remote cache traffic to the gate at `gateUrl`. */
export function pointRunnerAt(detection: Gateable, gateUrl: string, argv: readonly string[]): Pointed {
  const { pointAt } = adapterFor(detection.runner).remote;
  if (pointAt === undefined) throw new Error(`the ${detection.runner} adapter has no gate to point at`);
  return pointAt(detection, gateUrl, argv);
}
