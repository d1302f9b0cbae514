// pnpm 12.21 pipeline's remote task cache: where pnpm reads it from, how the gate is put in front of it,
// and pnpm's own switch where no gate can stand.
//
// Owns:
// - detection: `PNPM_REMOTE_CACHE_URL` with `PNPM_REMOTE_CACHE_TRUSTED_KEYS` (without trusted keys pnpm
//   turns its remote off). The URL is joined by plain concatenation (a base path is kept). Gateable only
//   without a credential for it in pnpm's npmrc settings (npmrc-auth.ts: pnpm looks its token up by the
//   URL's address, which the gate cannot stand in for).
// - pointing: `PNPM_REMOTE_CACHE_URL=<gate>`.
// - the switch: `PNPM_REMOTE_CACHE_PUBLISH=false` keeps remote reads and stops uploads (12.4.2 has no
//   remote task cache: the variable is then inert).
// Invariants: reads settings, never writes; never echoes a token or an env value but the URL.

import type { Env, Pointed } from '../adapter.js';
import { isSet, judgeUpstream, type RemoteDetection } from '../remote-upstream.js';
import type { RemotePlan } from '../types.js';
import { pnpmHasAuthFor } from './npmrc-auth.js';

/** The remote pnpm pipeline would reach from `root`. */
export function detectPipeline(root: string, env: Env): RemoteDetection {
  const url = env['PNPM_REMOTE_CACHE_URL'];
  if (url === undefined || url === '' || !isSet(env, 'PNPM_REMOTE_CACHE_TRUSTED_KEYS'))
    return { state: 'none', runner: 'pnpm-pipeline' };
  let credential = false;
  try {
    credential = pnpmHasAuthFor(url, root, env);
  } catch {
    credential = true;
  }
  if (credential)
    return {
      state: 'ungateable',
      runner: 'pnpm-pipeline',
      why: "pnpm finds its token for the remote by the remote's address, which the gate cannot stand in for",
    };
  return judgeUpstream('pnpm-pipeline', 'pnpm-pipeline-v8', url, 'PNPM_REMOTE_CACHE_URL', env);
}

/** pnpm's env pointed at the gate. */
export function pointPipelineAt(gateUrl: string, argv: readonly string[]): Pointed {
  return { env: { PNPM_REMOTE_CACHE_URL: gateUrl }, argv: [...argv] };
}

/** Remote writes off through `PNPM_REMOTE_CACHE_PUBLISH=false` (remote reads kept). */
export function pipelineWritesOff(why: string): RemotePlan {
  return {
    argv: [],
    env: { PNPM_REMOTE_CACHE_PUBLISH: 'false' },
    note: `[lockguard] pnpm pipeline remote cache read-only for this run (PNPM_REMOTE_CACHE_PUBLISH=false): ${why}`,
  };
}
