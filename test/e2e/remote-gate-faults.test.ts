// The gate never makes a run worse than no gate, with the real clients: an upstream that refuses
// connections gives the same exit code through the gate as without it (turbo: warnings, exit 0; nx: the
// whole run fails before any task), nothing hangs; and turbo's parallel uploads (`--cache-workers`) before
// the move all pass while the ones after it are all refused.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { freePort, startTurboRemoteCache } from '../helpers/cache-servers.js';
import { BIN } from '../helpers/cli.js';
import { scenario } from '../helpers/runner-scenario.js';

const TOKEN = 'lg-planted-token-faults-31aa';

for (const tool of ['turbo', 'nx'] as const) {
  test(`${tool}: an upstream that refuses connections ends the same through the gate as without it`, async (t) => {
    const s = scenario(t, tool);
    s.sh(['rm', '-f', join(s.base, 'armed')]);
    const url = `http://127.0.0.1:${await freePort()}`;
    const env =
      tool === 'turbo'
        ? { ...s.env, TURBO_API: url, TURBO_TOKEN: TOKEN, TURBO_TEAM: 'acme' }
        : { ...s.env, NX_SELF_HOSTED_REMOTE_CACHE_SERVER: url, NX_SELF_HOSTED_REMOTE_CACHE_ACCESS_TOKEN: TOKEN };
    const plain = spawnSync(s.runnerArgv()[0] ?? '', s.runnerArgv().slice(1), {
      cwd: s.root,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    for (const dir of ['.turbo', '.nx']) s.sh(['rm', '-rf', dir]);
    const gated = spawnSync(process.execPath, [BIN, 'run', '--', ...s.runnerArgv()], {
      cwd: s.root,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(plain.error, undefined, 'no hang without the gate');
    assert.equal(gated.error, undefined, 'no hang through the gate');
    assert.equal(gated.status, plain.status, `${gated.stdout}\n${gated.stderr}`);
    if (tool === 'turbo') assert.equal(gated.status, 0, 'turbo warns and goes on');
    else assert.notEqual(gated.status, 0, 'nx fails the whole run on an unreachable remote, gate or not');
    assert.ok(!gated.stderr.includes(TOKEN));
  });
}

test('turbo --cache-workers=8: nine parallel uploads before the move all pass, none after it gets through', async (t) => {
  const s = scenario(t, 'turbo', { withC: true, moreLeaves: 8 });
  const server = await startTurboRemoteCache(t, s.base, TOKEN);
  writeFileSync(join(s.base, 'wait-for'), `${server.storage} 9`);
  const env = { ...s.env, TURBO_API: server.url, TURBO_TOKEN: TOKEN, TURBO_TEAM: 'acme' };
  const run = spawnSync(process.execPath, [BIN, 'run', '--', ...s.runnerArgv(), '--cache-workers=8'], {
    cwd: s.root,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, /\d+ remote uploads? made after it (was|were) refused/);
  const dir = join(s.root, '.turbo', 'runs');
  const newest =
    readdirSync(dir)
      .map((name) => join(dir, name))
      .sort((x, y) => statSync(y).mtimeMs - statSync(x).mtimeMs)[0] ?? '';
  const tasks = (JSON.parse(readFileSync(newest, 'utf8')) as { tasks: { taskId: string; hash: string }[] }).tasks;
  const leaves = tasks
    .filter((task) => /^c\d*#build$/.test(task.taskId))
    .map((task) => task.hash)
    .sort();
  assert.equal(leaves.length, 9);
  assert.deepEqual(server.keys().sort(), leaves, 'exactly the nine leaves reached the server');
});
