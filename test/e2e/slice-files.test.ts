// Per-project slice files end to end with the real pnpm 12 and turbo 2.11.11 (issue 20): the runners fold
// `.lockguard-slice`, and pnpm 12 gets no pnpmfile (its default setup: lockguard init writes none there).
// - Through a remote (turborepo-remote-cache 2.12.0 on loopback): a second machine with an empty local cache,
//   after vue's peer re-resolved, rebuilds vue, and the other three too: each installs a package, so its file
//   folds the hoisted pool (design A, lib/core/slices/reach.ts), which any lockfile change moves; the control
//   (no lockguard) replays the stale peer from the remote.
// - A runner started directly after an install whose root prepare ran lockguard's hook (`lockguard init
//   --npm-scripts`): it rebuilds every project whose file changed (all four here); without the hook it replays.
// The workspaces and their projects: test/helpers/slice-files-scenario.ts; pnpm 10's sequence (peer, alias,
// tarball, with turbo and nx): slice-files-pnpm10.test.ts.

import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startTurboRemoteCache } from '../helpers/cache-servers.js';
import { reresolve, setup, TURBO, turboCached, type Workspace, workspace } from '../helpers/slice-files-scenario.js';

test('sound keys through a remote: pnpm 12, turborepo-remote-cache 2.12.0 on loopback, a second machine (empty local cache) after the peer re-resolved', {
  timeout: 600_000,
}, async (t) => {
  const at = await setup(t, 12);
  const token = 'lg-token-sound-keys';
  const server = await startTurboRemoteCache(t, at.base, token);
  const remote = { TURBO_API: server.url, TURBO_TOKEN: token, TURBO_TEAM: 'acme' };
  for (const sound of [false, true]) {
    const name = sound ? 'sound' : 'control';
    const run = (ws: Workspace) => (sound ? ws.must(['lockguard', 'run', '--', ...TURBO]) : ws.must(TURBO));
    // Machine 1 builds at S0 and uploads every task.
    const one = workspace(at, name, sound, 12, remote);
    one.must(['pnpm', 'install']);
    one.must(['git', 'init', '-q', '.']);
    run(one);
    assert.equal(one.out('vue'), '2.0.0');
    // Machine 2: the same repository with vue's peer re-resolved to 1.0.0 (a Renovate branch), a frozen
    // install, its own HOME and an empty local cache; the same remote.
    const two = workspace(at, `${name}-2`, sound, 12, remote);
    writeFileSync(join(two.root, 'pnpm-lock.yaml'), readFileSync(join(one.root, 'pnpm-lock.yaml')));
    reresolve(two, 'packages/vue', 'peer', '2.0.0', '1.0.0');
    two.must(['pnpm', 'install', '--frozen-lockfile']);
    two.must(['git', 'init', '-q', '.']);
    const result = run(two);
    if (sound) {
      // vue's slice moved its key: rebuilt with what is installed. The re-resolution also moved the hoisted
      // pool, which the other three fold (each installs a package: alias aliased, tar local, other peer and
      // aliased), so none of the four is taken from the remote.
      assert.equal(two.out('vue'), '1.0.0', result.stdout);
      assert.deepEqual(turboCached(result), { cached: 0, total: 4 });
    } else {
      // The control: every task a remote hit, vue's output built against peer 2.0.0.
      assert.equal(two.out('vue'), '2.0.0', 'turbo replays the stale peer from the remote');
      assert.deepEqual(turboCached(result), { cached: 4, total: 4 });
    }
  }
});

test('sound keys, pnpm 12: a runner started directly after a hooked install (the root prepare, lockguard init --npm-scripts) rebuilds every project whose slice file changed; without the hook it replays', {
  timeout: 600_000,
}, async (t) => {
  // pnpm 12 runs pnpmfile hooks in helper processes that never see the install end (measured: no hook runs
  // after pnpm-lock.yaml and node_modules are written), so its writer is the root prepare script, which
  // pnpm 12 runs only after an install that wrote them.
  const at = await setup(t, 12);
  const hooked = workspace(at, 'sound', true, 12);
  const unhooked = workspace(at, 'control', true, 12);
  const init = hooked.must(['lockguard', 'init', '--npm-scripts', '--no-pnpmfile']);
  assert.match(
    readFileSync(join(hooked.root, 'package.json'), 'utf8'),
    /"prepare": "node -e .*lockguard\/npm-hook/,
    init.stdout,
  );
  for (const ws of [hooked, unhooked]) {
    const install = ws.must(['pnpm', 'install']);
    assert.doesNotMatch(install.stderr, /lockguard\] warning/);
    ws.must(['git', 'init', '-q', '.']);
  }
  // The hooked install wrote every project's file; the unhooked one none (no lockguard command ran there yet).
  const sliceFile = (ws: Workspace, project: string) => {
    try {
      return readFileSync(join(ws.root, 'packages', project, '.lockguard-slice'), 'utf8');
    } catch {
      return undefined;
    }
  };
  const vueFile = (ws: Workspace) => sliceFile(ws, 'vue');
  const s0 = vueFile(hooked);
  const otherS0 = sliceFile(hooked, 'other');
  // vue installs a package (its peer), so its file folds the hoisted pool: a reach line (design A).
  assert.match(s0 ?? '', /^lockguard-slice\/2\nimporter packages\/vue\nslice .*\nroot .*\nreach [0-9a-f]{64}\n$/);
  assert.equal(vueFile(unhooked), undefined);
  // Both built once through lockguard run (which writes the files before the command), at S0.
  for (const ws of [hooked, unhooked]) {
    ws.clean();
    ws.must(['lockguard', 'run', '--', ...TURBO]);
    assert.equal(ws.out('vue'), '2.0.0');
  }
  // vue's optional peer re-resolved to 1.0.0 (a Renovate branch), a frozen install, then turbo started directly.
  for (const ws of [hooked, unhooked]) {
    reresolve(ws, 'packages/vue', 'peer', '2.0.0', '1.0.0');
    ws.must(['pnpm', 'install', '--frozen-lockfile']);
    ws.clean();
  }
  assert.notEqual(vueFile(hooked), s0, "the hooked frozen install rewrote vue's slice file");
  // other's own slice and the root's did not move (neither reaches vue's peer), only the pool it folds did.
  const reachless = (text: string | undefined) => text?.replace(/^reach .*\n/m, '');
  const otherS1 = sliceFile(hooked, 'other');
  assert.notEqual(otherS1, otherS0, "the re-resolution moved the hoisted pool, so other's file");
  assert.equal(reachless(otherS1), reachless(otherS0), "other's slice and root lines are unchanged");
  // So turbo rebuilds all four: vue with what is installed, the other three because their files changed.
  const fresh = hooked.must(TURBO);
  assert.equal(hooked.out('vue'), '1.0.0', `turbo rebuilt vue with what is installed:\n${fresh.stdout}`);
  assert.deepEqual(turboCached(fresh), { cached: 0, total: 4 });
  // The control: the same setup without the hook keeps the stale file, and turbo replays the peer-2.0.0 build.
  const stale = unhooked.must(TURBO);
  assert.equal(unhooked.out('vue'), '2.0.0', 'without the hook turbo replays the stale peer');
  assert.deepEqual(turboCached(stale), { cached: 4, total: 4 });
  // The files after the hooked install equal what lockguard key --write-slices computes for that lockfile.
  const written = vueFile(hooked);
  rmSync(join(hooked.root, 'packages', 'vue', '.lockguard-slice'));
  rmSync(join(hooked.root, '.lockguard', 'slice-files.json'));
  hooked.must(['lockguard', 'key', '--write-slices']);
  assert.equal(vueFile(hooked), written);
});
