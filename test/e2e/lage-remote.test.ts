// lage 2.17.0's backfill remote cache (issue 32): an npm provider in lage.config.js (on a loopback port nothing
// listens on: lage's own worker threads try it and carry on), under CI=true, where lage writes remote saves
// by default. Without lockguard, lage tries a remote put per target (its silly log: "remote fallback put");
// under `lockguard run` the line names the remote as not gated and sets LAGE_WRITE_CACHE=false, and lage tries
// no remote put while its remote reads stay; the local saves after the move are withheld as usual.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { freePort } from '../helpers/cache-servers.js';
import { BIN } from '../helpers/cli.js';
import { cacheKeys, lageInstall, lageScenario, quarantinedKeys } from '../helpers/lage-scenario.js';
import { check } from '../helpers/tool-shims.js';

// Started at load, so its cleanup is the file's (`after` at the top level), not the first test's.
const installing = lageInstall({ after: (fn) => after(fn as () => void) });

const config = (port: number): string => `module.exports = {
  npmClient: 'pnpm',
  pipeline: { build: ['^build'] },
  cacheOptions: {
    outputGlob: ['dist/**'],
    cacheStorageConfig: { provider: 'npm', options: { npmPackageName: 'lockguard-lage-cache', registryUrl: 'http://127.0.0.1:${port}/' } },
  },
};
`;

/** npm (the provider's fetch runs `npm install`) fails at once on the refused port instead of retrying for a minute. */
const NPM_NO_RETRY = [
  'npm_config_fetch_retries=0',
  'npm_config_fetch_retry_mintimeout=1',
  'npm_config_fetch_retry_maxtimeout=1',
];
const LAGE = ['pnpm', 'exec', 'lage', 'build', '--log-level', 'silly', '--reporter', 'json'];
const count = (text: string, what: string): number => text.split(what).length - 1;

test("lage's remote under CI=true: two remote puts without lockguard; none under lockguard run (LAGE_WRITE_CACHE=false), reads kept, the remote named as not gated", async () => {
  const install = await installing;
  const port = await freePort();
  {
    // Control: lage writes its remote on its own.
    const s = lageScenario(install, 'L', 'remote-control');
    writeFileSync(join(s.root, 'lage.config.js'), config(port));
    const run = check(s.sh(['env', 'CI=true', ...NPM_NO_RETRY, ...LAGE]), 'lage build');
    const out = run.stdout + run.stderr;
    assert.equal(count(out, 'remote fallback put'), 2, out.slice(-2000));
    assert.equal(count(out, 'remote fallback fetch'), 2);
  }
  {
    const s = lageScenario(install, 'L', 'remote-guarded');
    writeFileSync(join(s.root, 'lage.config.js'), config(port));
    // a's install where lockguard's plan (lage info) sees it: on `auto` the switch is thrown for a run whose
    // plan holds a writer (an install hidden in a .cjs file is not seen; the line then says writes stay on).
    const manifest = join(s.root, 'packages', 'a', 'package.json');
    const a = JSON.parse(readFileSync(manifest, 'utf8')) as { scripts: Record<string, string> };
    a.scripts['build'] = `pnpm --filter b update is-number@6.0.0 --no-save && ${a.scripts['build']}`;
    writeFileSync(manifest, JSON.stringify(a));
    const guarded = s.sh(['env', 'CI=true', ...NPM_NO_RETRY, process.execPath, BIN, 'run', '--', ...LAGE]);
    // 1: in CI a run whose table moved fails under `withhold` (README, exit codes), after the build succeeded.
    assert.equal(guarded.status, 1, guarded.stderr);
    const out = guarded.stdout + guarded.stderr;
    assert.match(
      guarded.stderr,
      /\[lockguard\] lage remote cache writes off for this run \(LAGE_WRITE_CACHE=false; remote reads stay\)/,
    );
    assert.match(guarded.stderr, /lage\.config\.js cacheOptions\.cacheStorageConfig\)[^\n]*not gated/);
    assert.equal(count(out, 'remote fallback put'), 0, 'no remote put');
    assert.equal(count(out, 'remote fallback fetch'), 2, 'remote reads kept');
    assert.deepEqual(cacheKeys(s), [], 'the local saves after the move are withheld');
    assert.equal(quarantinedKeys(s).length, 2);
  }
});
