// The remote gate in front of pnpm 12.21.0's pipeline remote task cache (signed v8, no slug), with
// signing keys made here and the spec server's v8 routes as the remote (turborepo-remote-cache answers
// the pipeline's slug-less requests 400). The poisoning scenario (test/helpers/runner-scenario.ts) plus `c`: c's blobs and signed manifest
// pass before the move; a's and b's manifests after it are refused; a second machine restores c and
// rebuilds b against 7.0.0. The gate serves a remote without a token; with a token in .npmrc (keyed by
// the remote's address, which pnpm would not send to the gate) the run falls back to pnpm's read-only
// switch and says so.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startSpecCache } from '../helpers/cache-servers.js';
import { BIN } from '../helpers/cli.js';
import { scenario, secondMachine } from '../helpers/runner-scenario.js';

const TOKEN = 'lg-planted-token-pipeline-77c1';

function signing(url: string): Record<string, string> {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    PNPM_REMOTE_CACHE_URL: url,
    PNPM_REMOTE_CACHE_ORG: 'acme',
    PNPM_REMOTE_CACHE_TRUSTED_KEYS: JSON.stringify({
      k1: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    }),
    PNPM_REMOTE_CACHE_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64'),
    PNPM_REMOTE_CACHE_KEY_ID: 'k1',
    PNPM_REMOTE_CACHE_PUBLISH: 'true',
    PNPM_REMOTE_CACHE_BUILDER_ID: 'ci-1',
  };
}

test('remote gate, pnpm 12.21 pipeline: c passes before the move, a and b are refused after it; a second machine restores c and rebuilds b', async (t) => {
  const s = scenario(t, 'pnpm-pipeline', { withC: true, pnpm1221: true });
  const log = join(s.base, 'server.ndjson');
  const server = await startSpecCache(t, s.base, 'v8', '', log);
  // c uploads one blob, its file list and its signed manifest before a installs.
  writeFileSync(join(s.base, 'wait-for'), `${server.storage} 3`);
  const remote = signing(server.url);
  const env = { ...s.env, ...remote };
  {
    const run = spawnSync(process.execPath, [BIN, 'run', '--', 'pnpm', 'pipeline'], {
      cwd: s.root,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    // pnpm PUTs a task's blobs first and gives the task's upload up at the first refusal: no manifest of a or b.
    assert.match(
      run.stderr,
      /\[lockguard\] a task .*pnpm-lock\.yaml.*remote blob uploads? refused \(no manifest followed them\)/,
      readFileSync(log, 'utf8') + run.stdout,
    );
    assert.equal(
      (run.stderr.match(/Failed to upload a task to the remote cache/g) ?? []).length,
      0,
      'lockguard output only',
    );
    assert.equal(
      (run.stdout.match(/Failed to upload a task to the remote cache: PUT \S+ returned 403/g) ?? []).length,
      2,
      'one calm warning per refused task (a, b)',
    );
    assert.equal(s.out(), '6.0.0');
  }
  {
    // The server got c's three files and nothing of a or b (their blobs were refused with their manifests).
    const puts = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"PUT"'));
    assert.equal(puts.length, 3, puts.join('\n'));
    assert.equal(server.keys().length, 3);
    const ledger = readdirSync(join(s.root, '.lockguard', 'runs'))
      .map(
        (id) =>
          readFileSync(join(s.root, '.lockguard', 'runs', id, 'events.ndjson'), 'utf8') +
          readFileSync(join(s.root, '.lockguard', 'runs', id, 'report.json'), 'utf8'),
      )
      .join('\n');
    assert.match(ledger, /"type":"remote-refused"/);
  }
  {
    const m = secondMachine(t, s);
    const again = m.sh(['pnpm', 'pipeline'], remote);
    assert.equal(again.status, 0, `${again.stdout}\n${again.stderr}`);
    assert.equal(m.cRan(), false, 'c came from the remote');
    assert.equal(m.installed(), '7.0.0');
    assert.equal(m.out(), '7.0.0', 'b was rebuilt against what machine 2 installed');
  }
});

test("pnpm 12.21 pipeline with a token for its remote: not gated, pnpm's read-only switch instead, in one line", async (t) => {
  const s = scenario(t, 'pnpm-pipeline', { withC: true, visibleInstall: true, pnpm1221: true });
  const log = join(s.base, 'server.ndjson');
  const server = await startSpecCache(t, s.base, 'v8', TOKEN, log);
  writeFileSync(join(s.root, '.npmrc'), `//127.0.0.1:${server.port}/:_authToken=${TOKEN}\n`);
  const run = spawnSync(process.execPath, [BIN, 'run', '--', 'pnpm', 'pipeline'], {
    cwd: s.root,
    env: { ...s.env, ...signing(server.url) },
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  const lines = run.stderr.split('\n').filter((line) => line.includes('PNPM_REMOTE_CACHE_PUBLISH=false'));
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0] ?? '', /remote gate cannot be used: pnpm finds its token/);
  assert.ok(!run.stderr.includes(TOKEN));
  assert.ok(!readFileSync(log, 'utf8').includes('"PUT"'), 'nothing was uploaded');
});
