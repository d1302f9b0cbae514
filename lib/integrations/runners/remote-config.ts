// Which remote cache each runner would reach from this workspace, and whether the gate can stand there.
//
// Owns: `detectRemote(runner, root, env, argv)` → none | gateable | ungateable, dispatched to the runner's
// adapter (`remote.detect`: turbo/remote.ts, nx/remote.ts, pnpm-pipeline/remote.ts say where each runner
// reads its remote from, with its precedence); the shared judgement is remote-upstream.ts.
// Invariants: read-only; never returns or echoes a token; a config file that exists but cannot be read
// errs towards "configured" (a needless switch costs an upload; a missed one can publish a stale entry).

import type { Env } from '../../core/env.js';
import { adapterFor } from './registry.js';
import type { RemoteDetection } from './remote-upstream.js';
import type { RunnerName } from './types.js';

export type { RemoteDetection } from './remote-upstream.js';
export { TURBO_DEFAULT_API } from './turbo/remote.js';

/** The remote this runner would reach from `root` with `env` and its own `argv` (the runner's words). */
export function detectRemote(
  runner: RunnerName,
  root: string,
  env: Env,
  argv: readonly string[] = [],
): RemoteDetection {
  if (runner === 'none') return { state: 'none', runner };
  return adapterFor(runner).remote.detect(root, env, argv);
}
