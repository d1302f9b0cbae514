// Remote caches cannot be recalled after upload: turning remote writes off up front, per runner.
//
// Owns: `remoteCachePlan`, the env/argv applied to the child and the one line that says so.
// The trade-offs, per runner (measured with the real runners: test/e2e/root-scripts.test.ts, remote-gate*.test.ts):
// - turbo 2.11: `TURBO_CACHE=local:rw,remote:r` keeps remote reads and local writes and stops uploads.
//   Cost: nothing the run builds reaches teammates/CI until a run without a writer. An env var rather than
//   `--cache=…`, so `npx turbo`/`pnpm turbo` wrappers need no argv surgery; a `--cache` flag the user
//   passed wins over it (said in the note). A user's own TURBO_CACHE keeps its local part.
// - nx 24: no write-only switch. `NX_SKIP_REMOTE_CACHE=true` turns remote reads off as well. Under `auto`
//   with a possible writer it is set anyway: a slower run beats an upload that every CI job would replay.
// - pnpm pipeline 12.21: `PNPM_REMOTE_CACHE_PUBLISH=false` keeps remote reads and stops uploads (12.4.2
//   has no remote task cache: the variable is then inert).
// Invariants: `on` never changes anything; `auto` changes something only when the run may hold a writer.

import type { RemoteMode, RemotePlan, RunnerName } from './types.js';

const TURBO_CACHE_SHAPE = /^(local|remote):(r|w|rw)(,(local|remote):(r|w|rw))*$/;
const NOTHING: RemotePlan = { argv: [], env: {}, note: undefined };

function hasFlag(argv: readonly string[], name: string): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((word) => word === name || word.startsWith(`${name}=`));
}

/** A TURBO_CACHE value with remote writes removed (`remote:rw` → `remote:r`, `remote:w` dropped). */
function withoutRemoteWrites(value: string, remoteOff: boolean): string {
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  const kept = parts.flatMap((part) => {
    const [where, access = ''] = part.split(':');
    if (where !== 'remote') return [part];
    if (remoteOff) return [];
    const reads = access.includes('r');
    return reads ? ['remote:r'] : [];
  });
  return kept.length === 0 ? 'local:rw' : kept.join(',');
}

export function remoteCachePlan(runner: RunnerName, mode: RemoteMode, mayContainWriter: boolean, context: { argv?: readonly string[]; env?: Readonly<Record<string, string | undefined>> } = {}): RemotePlan {
  if (mode === 'on' || runner === 'none') return NOTHING;
  if (mode === 'auto' && !mayContainWriter) return NOTHING;
  const why = mode === 'off' ? '--remote=off' : 'this run may rewrite the lockfile';
  switch (runner) {
    case 'turbo': {
      const own = context.env?.['TURBO_CACHE'];
      // A user's own TURBO_CACHE is kept (minus remote writes) only when it has turbo's shape; otherwise
      // it is replaced, and never echoed.
      const usable = own !== undefined && TURBO_CACHE_SHAPE.test(own);
      const value = usable ? withoutRemoteWrites(own, mode === 'off') : mode === 'off' ? 'local:rw' : 'local:rw,remote:r';
      const flagNote = hasFlag(context.argv ?? [], '--cache') ? ' (your --cache flag takes precedence over it)' : '';
      const what = mode === 'off' ? 'remote cache off' : 'remote cache read-only';
      return { argv: [], env: { TURBO_CACHE: value }, note: `[lockguard] turbo ${what} for this run (TURBO_CACHE=${value}): ${why}${flagNote}` };
    }
    case 'nx':
      return {
        argv: [],
        env: { NX_SKIP_REMOTE_CACHE: 'true' },
        note: `[lockguard] nx remote cache skipped for this run (NX_SKIP_REMOTE_CACHE=true; nx has no write-only switch, so remote reads are off too): ${why}`,
      };
    case 'pnpm-pipeline':
      return {
        argv: [],
        env: { PNPM_REMOTE_CACHE_PUBLISH: 'false' },
        note: `[lockguard] pnpm pipeline remote cache read-only for this run (PNPM_REMOTE_CACHE_PUBLISH=false): ${why}`,
      };
  }
}
