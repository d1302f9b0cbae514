// moon 2.5.5's remote cache (the Bazel remote API over HTTP, `remote.host` in .moon/workspace.yml) against a
// loopback server that records every request: without lockguard, the run that rewrote the lockfile uploads its
// stale saves; under `lockguard run` the line names that remote as not gated and says it is off for the run
// (MOON_REMOTE_HOST empty), and moon sends it nothing, while the local saves are withheld as usual.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { freePort } from '../helpers/cache-servers.js';
import { until } from '../helpers/crash.js';
import { archiveKeys, moonFile, type MoonScenario, moonScenario, quarantinedKeys } from '../helpers/moon-scenario.js';

moonFile();

const SERVER = `const http = require('http'), fs = require('fs');
const [log, port] = process.argv.slice(1);
http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    fs.appendFileSync(log, req.method + ' ' + req.url + '\\n');
    res.writeHead(req.method === 'GET' || req.method === 'HEAD' ? 404 : 200);
    res.end();
  });
}).listen(Number(port), '127.0.0.1', () => fs.appendFileSync(log, ''));
`;

/** The scenario with an HTTP remote cache on loopback that records each request in `<base>/remote.log`. */
async function withRemote(t: TestContext): Promise<{ s: MoonScenario; requests: () => string[] }> {
  const s = await moonScenario(t, 'L');
  const log = join(s.base, 'remote.log');
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', SERVER, log, String(port)], { stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  await until(() => existsSync(log), 'the remote cache to listen');
  const workspace = join(s.root, '.moon', 'workspace.yml');
  writeFileSync(
    workspace,
    `${readFileSync(workspace, 'utf8')}remote:\n  api: 'http'\n  host: 'http://127.0.0.1:${port}'\n`,
  );
  // a's install where lockguard's plan (moon query projects) sees it: with remote writes on `auto`, the switch
  // is thrown for a run whose plan holds a writer (an install hidden in a .cjs file is not seen: the line then
  // says the remote stays on, as for every runner whose remote no gate can stand in front of).
  const aTask = join(s.root, 'packages', 'a', 'moon.yml');
  writeFileSync(
    aTask,
    readFileSync(aTask, 'utf8').replace(
      "command: 'node ../../../a-build.cjs'",
      "script: 'pnpm --filter b update is-number@6.0.0 --no-save && node ../../../a-build.cjs'",
    ),
  );
  const requests = (): string[] => readFileSync(log, 'utf8').split('\n').filter(Boolean);
  return { s, requests };
}

test('moon remote, control without lockguard: the stale saves are uploaded', async (t) => {
  const { s, requests } = await withRemote(t);
  s.build();
  assert.equal(s.out(), '6.0.0');
  const uploads = requests().filter((line) => !line.startsWith('GET') && !line.startsWith('HEAD'));
  assert.ok(uploads.length > 0, `moon uploaded to its remote: ${requests().join(', ')}`);
});

test('moon remote, guarded: named as not gated, off for the run (MOON_REMOTE_HOST empty); moon sends it nothing', async (t) => {
  const { s, requests } = await withRemote(t);
  const run = s.lockguard(['run', '--', 'moon', 'run', ':build']);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(s.out(), '6.0.0');
  assert.match(run.stderr, /remote\.host in \.moon\/workspace\.yml.*not gated/);
  assert.match(run.stderr, /\[lockguard\] moon remote cache off for this run \(MOON_REMOTE_HOST empty/);
  assert.doesNotMatch(run.stderr, /127\.0\.0\.1/, 'the host is never echoed');
  assert.deepEqual(requests(), [], 'no request reached the remote');
  assert.deepEqual(archiveKeys(s), []);
  assert.equal(quarantinedKeys(s).length, 2, 'the local saves are withheld as usual');
});
