// Remote caches cannot be recalled after upload: turning remote writes off up front, per runner.
//
// Owns: `remoteCachePlan`, the env/argv applied to the child and the one line that says so; each runner's
// own switch and its trade-off is its adapter's (`remote.writesOff`: turbo/remote.ts `TURBO_CACHE`,
// nx/remote.ts `NX_SKIP_REMOTE_CACHE`, pnpm-pipeline/remote.ts `PNPM_REMOTE_CACHE_PUBLISH`), measured with
// the real runners (test/e2e/root-scripts.test.ts, remote-gate*.test.ts).
// Invariants: `on` never changes anything; `auto` changes something only when the run may hold a writer.

import type { Env } from '../../core/env.js';
import { adapterFor } from './registry.js';
import type { RemoteMode, RemotePlan, RunnerName } from './types.js';

const NOTHING: RemotePlan = { argv: [], env: {}, note: undefined };

export function remoteCachePlan(
  runner: RunnerName,
  mode: RemoteMode,
  mayContainWriter: boolean,
  context: { argv?: readonly string[]; env?: Env } = {},
): RemotePlan {
  if (mode === 'on' || runner === 'none') return NOTHING;
  if (mode === 'auto' && !mayContainWriter) return NOTHING;
  const why = mode === 'off' ? '--remote=off' : 'this run may rewrite the lockfile';
  return adapterFor(runner).remote.writesOff(mode, why, context);
}
