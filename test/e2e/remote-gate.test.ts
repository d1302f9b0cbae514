// The remote gate end to end: `lockguard run` (the real bin) in front of a real remote cache, with the
// real runner as the client. The poisoning scenario (test/helpers/runner-scenario.ts) plus a package `c` that depends on nothing and
// uploads before a's install: after the guarded run the server holds c's artifact and neither a's nor
// b's (both keyed on the old lockfile, uploaded after the move); a second machine (fresh clone of S0,
// frozen install, empty local cache, same remote) restores c and rebuilds b against what it installed.
// turbo 2.11.11 against turborepo-remote-cache 2.12.0; nx 24.0.6 against the spec server (nx's
// self-hosted API). A planted token never reaches lockguard's output, ledger or report. turbo with its preflight
// (`TURBO_PREFLIGHT=true`, turbo.json `remoteCache.preflight`) gets c's upload through and a's refused.

import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { resolveNxCache } from '../../lib/integrations/runners/index.js';
import { startSpecCache, startTurboRemoteCache, type CacheServer } from '../helpers/cache-servers.js';
import { BIN } from '../helpers/cli.js';
import { installOncePerFile, scenario, secondMachine, type Scenario } from '../helpers/runner-scenario.js';

// One install per scenario for the file, a private copy per test (runner-scenario.ts).
installOncePerFile();

const TOKEN = 'lg-planted-token-5f2c9a1e';

function lockguardRun(
  s: Scenario,
  env: Record<string, string>,
  extra: readonly string[] = [],
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [BIN, 'run', ...extra, '--', ...s.runnerArgv()], {
    cwd: s.root,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
}

/** Task id → hash of the runner's latest run, from its own summary. */
function taskHashes(s: Scenario, env: Record<string, string>): Map<string, string> {
  if (s.tool === 'turbo') {
    const dir = join(s.root, '.turbo', 'runs');
    const newest =
      readdirSync(dir)
        .map((name) => join(dir, name))
        .sort((x, y) => statSync(y).mtimeMs - statSync(x).mtimeMs)[0] ?? '';
    const summary = JSON.parse(readFileSync(newest, 'utf8')) as { tasks: { taskId: string; hash: string }[] };
    return new Map(summary.tasks.map((task) => [task.taskId, task.hash]));
  }
  const run = JSON.parse(readFileSync(join(resolveNxCache(s.root, env).dir, 'run.json'), 'utf8')) as {
    tasks: { taskId: string; hash: string }[];
  };
  return new Map(run.tasks.map((task) => [task.taskId, task.hash]));
}

/** Every file lockguard wrote for the run (ledger, report), concatenated. */
function ledgerText(root: string): string {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
    );
  return walk(join(root, '.lockguard'))
    .map((file) => readFileSync(file, 'latin1'))
    .join('\n');
}

interface Setup {
  readonly s: Scenario;
  readonly server: CacheServer;
  readonly env: Record<string, string>;
  readonly ids: { a: string; b: string; c: string };
}

async function setup(t: TestContext, tool: 'turbo' | 'nx', visibleInstall = false): Promise<Setup> {
  const s = scenario(t, tool, { withC: true, visibleInstall });
  const server =
    tool === 'turbo' ? await startTurboRemoteCache(t, s.base, TOKEN) : await startSpecCache(t, s.base, 'nx-v1', TOKEN);
  // a's build waits until the server holds one entry: c's upload happens before a's install.
  writeFileSync(join(s.base, 'wait-for'), `${server.storage} 1`);
  const env =
    tool === 'turbo'
      ? { ...s.env, TURBO_API: server.url, TURBO_TOKEN: TOKEN, TURBO_TEAM: 'acme' }
      : { ...s.env, NX_SELF_HOSTED_REMOTE_CACHE_SERVER: server.url, NX_SELF_HOSTED_REMOTE_CACHE_ACCESS_TOKEN: TOKEN };
  const ids =
    tool === 'turbo' ? { a: 'a#build', b: 'b#build', c: 'c#build' } : { a: 'a:build', b: 'b:build', c: 'c:build' };
  return { s, server, env, ids };
}

for (const tool of ['turbo', 'nx'] as const) {
  test(`remote gate, ${tool}: c's upload before the move passes, a's and b's after it are refused; a second machine restores c and rebuilds b`, async (t) => {
    const { s, server, env, ids } = await setup(t, tool);
    {
      // The guarded run: one status line that counts the refused uploads; exit 0 locally.
      const run = lockguardRun(s, env);
      if (process.env['LG_SHOW'] !== undefined) process.stderr.write(`${run.stdout}\n${run.stderr}\n`);
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
      const lines = run.stderr.split('\n').filter((line: string) => line.startsWith('[lockguard] a task'));
      assert.equal(lines.length, 1, run.stderr);
      // nx PUTs a's and b's entries and is refused twice; turbo stops uploading for the run at its first
      // 403 ("skipping uploads for this run (remote cache reads remain enabled)"): a's refusal, b never sent.
      assert.match(
        lines[0] ?? '',
        tool === 'nx' ? /2 remote uploads made after it were refused/ : /1 remote upload made after it was refused/,
      );
      if (tool === 'turbo') assert.match(run.stdout + run.stderr, /skipping uploads for this run/);
      // nx asks for each entry just before its task runs: b's restore came after the move and was refused.
      if (tool === 'nx') assert.match(lines[0] ?? '', /1 remote restore refused/);
      assert.equal(s.out(), '6.0.0', 'the run itself built b against the new install');
      assert.ok(!`${run.stdout}${run.stderr}`.includes(TOKEN), 'the token is not printed');
    }
    {
      // The server holds c's artifact, and neither a's nor b's.
      const hashes = taskHashes(s, env);
      const keys = server.keys();
      assert.ok(keys.includes(hashes.get(ids.c) ?? '?'), `c's artifact is on the server: ${keys.join(', ')}`);
      assert.ok(!keys.includes(hashes.get(ids.b) ?? '?'), "b's stale artifact never reached the server");
      assert.ok(
        !keys.includes(hashes.get(ids.a) ?? '?'),
        "a's artifact (built across the move) never reached the server",
      );
      assert.equal(keys.length, 1, keys.join(', '));
    }
    {
      // The ledger names each refusal by key; no token and no query string is recorded anywhere.
      const text = ledgerText(s.root);
      assert.ok(!text.includes(TOKEN), 'no token in the ledger or the report');
      assert.ok(!/slug=|teamId=|Bearer/i.test(text), 'no query string or auth header in the ledger');
      const status = JSON.parse(
        spawnSync(process.execPath, [BIN, 'status', '--json'], { cwd: s.root, env, encoding: 'utf8' }).stdout,
      ) as {
        report: {
          remoteGate: {
            refused: { uploads: number };
            gates: { stats: { refusedKeys: { kind: string; key: string }[] } }[];
          };
        };
      };
      const refused = status.report.remoteGate.gates
        .flatMap((gate) => gate.stats.refusedKeys.filter((entry) => entry.kind === 'save').map((entry) => entry.key))
        .sort();
      assert.equal(status.report.remoteGate.refused.uploads, refused.length);
      const stale = [taskHashes(s, env).get(ids.a), taskHashes(s, env).get(ids.b)];
      assert.ok(refused.length >= 1 && refused.every((key) => stale.includes(key)), `refused ${refused.join(', ')}`);
      if (tool === 'nx') assert.deepEqual(refused, [...stale].sort());
    }
    {
      // A second machine on S0 with the same remote: c comes from the remote, b is rebuilt with 7.0.0.
      const m = secondMachine(t, s);
      const again = m.sh(
        s.runnerArgv(),
        tool === 'turbo'
          ? { TURBO_API: server.url, TURBO_TOKEN: TOKEN, TURBO_TEAM: 'acme' }
          : { NX_SELF_HOSTED_REMOTE_CACHE_SERVER: server.url, NX_SELF_HOSTED_REMOTE_CACHE_ACCESS_TOKEN: TOKEN },
      );
      assert.equal(again.status, 0, `${again.stdout}\n${again.stderr}`);
      assert.equal(m.cRan(), false, 'c was restored from the remote, not rebuilt');
      assert.equal(readFileSync(join(m.root, 'packages', 'c', 'dist', 'c.txt'), 'utf8'), 'c');
      assert.equal(m.installed(), '7.0.0');
      assert.equal(m.out(), '7.0.0', 'b was rebuilt against what machine 2 installed');
    }
  });

  test(`remote gate, ${tool}: the install in a's package script (visible to the plan) is gated too, and c's upload still passes`, async (t) => {
    const { s, server, env, ids } = await setup(t, tool, true);
    const run = lockguardRun(s, env);
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stderr, /\d+ remote uploads? made after it (was|were) refused/);
    assert.doesNotMatch(
      run.stderr,
      /TURBO_CACHE|NX_SKIP_REMOTE_CACHE/,
      'no up-front switch: the gate decides per request',
    );
    const hashes = taskHashes(s, env);
    assert.deepEqual(server.keys(), [hashes.get(ids.c)]);
  });
}

for (const how of ['TURBO_PREFLIGHT=true', 'turbo.json remoteCache.preflight'] as const) {
  test(`remote gate, turbo with preflight (${how}): c's upload before the move reaches the server, a's after it is refused, the server never receives a stale one`, async (t) => {
    const { s, server, env: base, ids } = await setup(t, 'turbo');
    const env = how === 'TURBO_PREFLIGHT=true' ? { ...base, TURBO_PREFLIGHT: 'true' } : base;
    if (how !== 'TURBO_PREFLIGHT=true') {
      const file = join(s.root, 'turbo.json');
      writeFileSync(
        file,
        JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as object), remoteCache: { preflight: true } }),
      );
    }
    const run = lockguardRun(s, env);
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    const lines = run.stderr.split('\n').filter((line: string) => line.startsWith('[lockguard] a task'));
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0] ?? '', /1 remote upload made after it was refused/);
    // turborepo-remote-cache 2.12.0 answers no OPTIONS: without the gate's own answer turbo drops its token
    // and c's upload fails with 400 ("failed to contact remote cache").
    assert.doesNotMatch(run.stdout + run.stderr, /failed to contact remote cache/);
    const hashes = taskHashes(s, base);
    assert.deepEqual(server.keys(), [hashes.get(ids.c)], 'the server holds c and nothing keyed on the old lockfile');
    assert.ok(!ledgerText(s.root).includes(TOKEN), 'no token in the ledger');
  });
}

test("remote gate, turbo with preflight against a remote whose answer names itself in Location: turbo is sent back to the gate, so a's stale upload never reaches the remote", async (t) => {
  const s = scenario(t, 'turbo', { withC: true });
  const server = await startSpecCache(t, s.base, 'v8-preflight', TOKEN);
  writeFileSync(join(s.base, 'wait-for'), `${server.storage} 1`);
  const env = { ...s.env, TURBO_API: server.url, TURBO_TOKEN: TOKEN, TURBO_TEAM: 'acme', TURBO_PREFLIGHT: 'true' };
  const run = lockguardRun(s, env);
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, /1 remote upload made after it was refused/);
  const hashes = taskHashes(s, env);
  // The remote's storage, inventoried: c's artifact (uploaded before the move) and nothing keyed on the old lockfile.
  assert.deepEqual(server.keys().sort(), [hashes.get('c#build')], `stored: ${server.keys().join(', ')}`);
  assert.ok(!ledgerText(s.root).includes(TOKEN), 'no token in the ledger');
});
