// lage's remote cache (backfill's `cacheStorageConfig`: azure-blob, npm), read from lage 2.17.0's bundled
// source (@lage-run/scheduler createCacheProvider.ts, @lage-run/cache backfillWrapper.ts, backfill-config
// envConfig.ts) and measured (test/e2e/lage-remote.test.ts: the config's npm provider and LAGE_WRITE_CACHE;
// the env's provider by hand, below).
//
// A remote is on when the config's `cacheOptions.cacheStorageConfig` is set, or `BACKFILL_CACHE_PROVIDER` /
// `BACKFILL_CACHE_PROVIDER_OPTIONS` is. lage reaches it from its own worker threads (azure-blob through the
// Azure SDK, npm through `npm install` / `npm publish` of a package per hash): no URL a gate could stand in
// front of, so it is `ungateable` and the status line names it. Remote writes happen when
// `cacheOptions.writeRemoteCache` is true, `LAGE_WRITE_CACHE=true`, or `CI`/`TF_BUILD` is set, unless
// `LAGE_WRITE_CACHE=false`. Measured with an npm provider on a refused port: under `CI=true` lage tries two
// remote puts; with `LAGE_WRITE_CACHE=false` none, and its remote reads stay. But `BACKFILL_CACHE_PROVIDER`
// in the env also replaces the *local* provider's storage (the env is merged over every provider's config), so
// there every save goes to the remote whatever `LAGE_WRITE_CACHE` says: for such a run lockguard blanks both
// variables (measured: lage then saves in node_modules/.cache/lage, where the pass withholds, and reads no
// remote).
// Owns: `detectLage` and `lageWritesOff`.
// Invariants: reads the env it is given and the config's text (never runs a JS config: a remote that code
// builds is seen only when its text names `cacheStorageConfig`); never echoes a value (a connection string
// holds a key).

import type { Env } from '../../../core/env.js';
import type { RemoteDetection } from '../remote-upstream.js';
import type { RemotePlan } from '../types.js';
import { lageConfigText } from './config.js';

/** Where lage's remote is configured (words), or undefined when none is. */
export function lageRemoteSource(root: string, env: Env): string | undefined {
  const provider = env['BACKFILL_CACHE_PROVIDER'];
  if (provider !== undefined && provider !== '' && provider !== 'local')
    return `BACKFILL_CACHE_PROVIDER=${provider === 'azure-blob' || provider === 'npm' || provider === 'local-skip' ? provider : '(set)'}`;
  if ((env['BACKFILL_CACHE_PROVIDER_OPTIONS'] ?? '') !== '' && (provider ?? '') === '')
    return 'BACKFILL_CACHE_PROVIDER_OPTIONS';
  const config = lageConfigText(root);
  if (config !== undefined && /\bcacheStorageConfig\b/.test(config.text))
    return `${config.file.file} cacheOptions.cacheStorageConfig`;
  return undefined;
}

/** Whether the env itself names the remote (it then replaces the local provider too). */
function envRemote(env: Env): boolean {
  return (env['BACKFILL_CACHE_PROVIDER'] ?? '') !== '' || (env['BACKFILL_CACHE_PROVIDER_OPTIONS'] ?? '') !== '';
}

export function detectLage(root: string, env: Env): RemoteDetection {
  const source = lageRemoteSource(root, env);
  if (source === undefined) return { state: 'none', runner: 'lage' };
  return {
    state: 'ungateable',
    runner: 'lage',
    why: `lage's backfill remote cache (${source}) is reached from lage's own worker threads, so that remote is not gated`,
  };
}

/**
 * Remote writes off for this run: `LAGE_WRITE_CACHE=false` (lage's own switch; its remote reads stay), and
 * where the env names the remote, both BACKFILL_CACHE_PROVIDER variables blanked (reads off too).
 */
export function lageWritesOff(why: string, env: Env | undefined): RemotePlan {
  if (env !== undefined && envRemote(env))
    return {
      argv: [],
      env: { LAGE_WRITE_CACHE: 'false', BACKFILL_CACHE_PROVIDER: '', BACKFILL_CACHE_PROVIDER_OPTIONS: '' },
      note: `[lockguard] lage remote cache off for this run (BACKFILL_CACHE_PROVIDER blanked: set in the env it also takes lage's local saves, so LAGE_WRITE_CACHE=false alone would not stop them; remote reads are off too; saves stay in node_modules/.cache/lage, where lockguard withholds stale ones): ${why}`,
    };
  return {
    argv: [],
    env: { LAGE_WRITE_CACHE: 'false' },
    note: `[lockguard] lage remote cache writes off for this run (LAGE_WRITE_CACHE=false; remote reads stay): ${why}`,
  };
}
