// Pointing a runner at the gate for one run: the env (and, for turbo's `--api`, the argv) of the child.
//
// Owns: turbo `TURBO_API=<gate>` (its token and team stay as the user set them; a `--api` in the runner's
// own argv is rewritten, since a flag beats the env); nx `NX_SELF_HOSTED_REMOTE_CACHE_SERVER=<gate>`;
// pnpm 12.21 pipeline `PNPM_REMOTE_CACHE_URL=<gate>` (only for a remote without credentials: pnpm looks
// its token up by the URL's address, see npmrc-auth.ts).
// turbo's strict env mode filters the env of turbo's *tasks*; turbo itself reads TURBO_API from its own
// env, which is the one set here.
// Invariants: no credential is read, moved or added; nothing is pointed at the gate that the detection
// did not find gateable.

import type { RemoteDetection } from './remote-config.js';

type Gateable = Extract<RemoteDetection, { state: 'gateable' }>;

export interface Pointed {
  readonly env: Readonly<Record<string, string>>;
  readonly argv: readonly string[];
}

function rewriteApi(argv: readonly string[], gateUrl: string): string[] {
  const end = argv.indexOf('--');
  return argv.map((word, i) => {
    if (end !== -1 && i >= end) return word;
    if (word.startsWith('--api=')) return `--api=${gateUrl}`;
    if (i > 0 && argv[i - 1] === '--api' && (end === -1 || i < end)) return gateUrl;
    return word;
  });
}

/** The child's env (and argv) that sends the runner's remote cache traffic to the gate at `gateUrl`. */
export function pointRunnerAt(detection: Gateable, gateUrl: string, argv: readonly string[]): Pointed {
  switch (detection.runner) {
    case 'turbo':
      return { env: { TURBO_API: gateUrl }, argv: detection.apiFlag === true ? rewriteApi(argv, gateUrl) : [...argv] };
    case 'nx':
      return { env: { NX_SELF_HOSTED_REMOTE_CACHE_SERVER: gateUrl }, argv: [...argv] };
    case 'pnpm-pipeline':
      return { env: { PNPM_REMOTE_CACHE_URL: gateUrl }, argv: [...argv] };
  }
}
