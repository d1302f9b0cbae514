// Per-project slice files end to end (issue 20), with the real pnpm 10, turbo 2.11.11 and nx 24.0.6: the
// lockfile changes a project really reaches and the runners' own keys miss, replayed without lockguard (the
// control, asserted) and rebuilt with what is installed once the runners fold `.lockguard-slice`. The two
// workspaces, `control` and `sound`, and their projects: test/helpers/slice-files-scenario.ts.
//
// The cases, each a lockfile change then an install, in one sequence over the two installed workspaces:
// 1. a root README edit and a bump of `other` alone: no slice of vue/alias/tar moves, warm runs stay hits;
// 2. vue's peer re-resolved 2.0.0 -> 1.0.0 (a frozen install): turbo and nx both replay without lockguard;
// 3. alias's `al` re-pointed aliased@2.0.0 -> 1.0.0 (frozen): nx replays without lockguard;
// 4. the tarball rebuilt at the same version (integrity only; `pnpm install` rewrites it): turbo replays;
// 5. a runner started directly after an install the pnpmfile plugin saw (pnpm 10): it rebuilds.
// With pnpm 12 (a remote, and the root postinstall's hook): slice-files.test.ts.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  NX,
  nxCached,
  PROJECTS,
  recorded,
  reresolve,
  setup,
  tarballOf,
  TURBO,
  turboCached,
  type Workspace,
  workspace,
} from '../helpers/slice-files-scenario.js';

test('sound keys: slice files make turbo and nx rebuild what the lockfile changed (peer, alias, tarball), never more, and a direct runner after a hooked install too', {
  timeout: 600_000,
}, async (t) => {
  const at = await setup(t, 10);
  const base = at.base;
  const control = workspace(at, 'control', false);
  const sound = workspace(at, 'sound', true);
  for (const ws of [control, sound]) {
    ws.must(['pnpm', 'install']);
    ws.must(['git', 'init', '-q', '.']);
    ws.must(['git', 'add', '-A']);
    ws.must(['git', '-c', 'user.name=t', '-c', 'user.email=t@lockguard.invalid', 'commit', '-qm', 'S0']);
  }
  {
    // pnpm records vue's optional peer in its importer, resolved from the root's peer@2.0.0.
    assert.match(
      readFileSync(join(sound.root, 'pnpm-lock.yaml'), 'utf8'),
      /\n {2}packages\/vue:\n(?: {4}.*\n)*? {6}peer:\n {8}specifier: '\*'\n {8}version: 2\.0\.0\n/,
    );
  }
  // Builds: the control with the runner alone, the sound workspace through lockguard run.
  const build = (ws: Workspace, runner: readonly string[]) =>
    ws === sound ? ws.must(['lockguard', 'run', '--', ...runner]) : ws.must(runner);
  const both = (ws: Workspace) => {
    ws.clean();
    const turbo = build(ws, TURBO);
    const outs = PROJECTS.map((project) => ws.out(project));
    ws.clean();
    const nx = build(ws, NX);
    return { turbo, nx, turboOuts: outs, nxOuts: PROJECTS.map((project) => ws.out(project)) };
  };
  // pnpm resolves al (npm:aliased@*) to one of the two versions in the lockfile (the root holds 2.0.0, other 1.0.0).
  const alS0 = recorded(sound, 'packages/alias', 'al');
  assert.equal(recorded(control, 'packages/alias', 'al'), alS0);
  const [alFrom, alTo] = alS0 === 'aliased@1.0.0' ? ['1.0.0', '2.0.0'] : ['2.0.0', '1.0.0'];
  const S0 = ['2.0.0', alFrom, 'tarball one', 'none'];
  for (const ws of [control, sound]) {
    // Cold: everything built against what is installed.
    const cold = both(ws);
    assert.deepEqual(cold.turboOuts, S0);
    assert.deepEqual(cold.nxOuts, S0);
  }
  {
    // lockguard run wrote every project's file before the builds (the root's too), nothing into the control.
    const vue = readFileSync(join(sound.root, 'packages', 'vue', '.lockguard-slice'), 'utf8');
    assert.match(
      vue,
      /^lockguard-slice\/2\nimporter packages\/vue\nslice [0-9a-f]{64}\nroot [0-9a-f]{64}\n(reach [0-9a-f]{64}\n)?$/,
    );
    assert.throws(() => readFileSync(join(control.root, 'packages', 'vue', '.lockguard-slice')));
  }
  {
    // 1. No slice moved (a root README edit): warm runs are all hits, FULL TURBO, in both workspaces.
    for (const ws of [control, sound]) {
      writeFileSync(join(ws.root, 'README.md'), 'S0, edited\n');
      const warm = both(ws);
      assert.deepEqual(turboCached(warm.turbo), { cached: 4, total: 4 }, `${ws.root}: FULL TURBO`);
      assert.match(warm.turbo.stdout, />>> FULL TURBO/);
      assert.equal(nxCached(warm.nx), 4, `${ws.root}: nx all hits\n${warm.nx.stdout}`);
      assert.deepEqual(warm.turboOuts, S0);
    }
    // An unrelated project's bump (other's aliased 1.0.0 -> 2.0.0, in the sound workspace): only other's
    // slice file changes, and only other's turbo key (nx folds every external node into every run-script
    // task, so its keys all move with any bump, slice files or not: measured, FIELD-NOTES).
    const manifest = join(sound.root, 'packages', 'other', 'package.json');
    const before = readFileSync(manifest, 'utf8');
    writeFileSync(manifest, before.replace('"aliased": "1.0.0"', '"aliased": "2.0.0"'));
    sound.must(['pnpm', 'install']);
    const bumped = both(sound);
    assert.equal(
      bumped.turbo.stderr.includes(
        "1 project's lockfile slice changed since the last run: turbo and nx will rebuild its tasks",
      ),
      true,
      bumped.turbo.stderr,
    );
    assert.deepEqual(turboCached(bumped.turbo), { cached: 3, total: 4 });
    // And back (aliased@1.0.0 must stay in the lockfile for case 3): other's earlier entries are hits again.
    writeFileSync(manifest, before);
    sound.must(['pnpm', 'install']);
    assert.deepEqual(turboCached(both(sound).turbo), { cached: 4, total: 4 });
  }
  {
    // 2. vue's optional peer re-resolved to 1.0.0 (already in the lockfile and the store), a frozen install.
    for (const ws of [control, sound]) {
      reresolve(ws, 'packages/vue', 'peer', '2.0.0', '1.0.0');
      ws.must(['pnpm', 'install', '--frozen-lockfile']);
      assert.equal(
        readFileSync(join(ws.root, 'packages', 'vue', 'node_modules', 'peer', 'package.json'), 'utf8').includes(
          '"1.0.0"',
        ),
        true,
        'peer 1.0.0 installed for vue',
      );
    }
    // The control: both runners replay vue's output built against peer 2.0.0.
    const stale = both(control);
    assert.equal(stale.turboOuts[0], '2.0.0', 'turbo replays the stale peer');
    assert.deepEqual(turboCached(stale.turbo), { cached: 4, total: 4 });
    assert.equal(stale.nxOuts[0], '2.0.0', 'nx replays the stale peer');
    // With the slice files: vue rebuilds with what is installed, the others stay hits.
    const fresh = both(sound);
    assert.match(
      fresh.turbo.stderr,
      /1 project's lockfile slice changed since the last run: turbo and nx will rebuild its tasks/,
    );
    assert.equal(fresh.turboOuts[0], '1.0.0');
    assert.deepEqual(turboCached(fresh.turbo), { cached: 3, total: 4 });
    assert.equal(fresh.nxOuts[0], '1.0.0');
    assert.equal(nxCached(fresh.nx), 3, fresh.nx.stdout);
  }
  {
    // 3. alias's `al` re-pointed to the other aliased version (already in the lockfile), a frozen install.
    for (const ws of [control, sound]) {
      reresolve(ws, 'packages/alias', 'al', `aliased@${alFrom}`, `aliased@${alTo}`);
      ws.must(['pnpm', 'install', '--frozen-lockfile']);
    }
    const stale = both(control);
    assert.equal(stale.nxOuts[1], alFrom, 'nx replays the stale alias');
    assert.equal(stale.turboOuts[1], alTo, 'turbo folds this one itself (measured)');
    const fresh = both(sound);
    assert.equal(fresh.turboOuts[1], alTo);
    assert.equal(fresh.nxOuts[1], alTo);
  }
  {
    // 4. The tarball rebuilt at the same version: only its integrity changes in the lockfile.
    tarballOf(base, 'tarball two');
    for (const ws of [control, sound]) {
      const before = readFileSync(join(ws.root, 'pnpm-lock.yaml'), 'utf8');
      ws.must(['pnpm', 'install']);
      assert.notEqual(readFileSync(join(ws.root, 'pnpm-lock.yaml'), 'utf8'), before, 'the integrity changed');
    }
    const stale = both(control);
    assert.equal(stale.turboOuts[2], 'tarball one', 'turbo replays the stale tarball');
    const fresh = both(sound);
    assert.equal(fresh.turboOuts[2], 'tarball two');
    assert.equal(fresh.nxOuts[2], 'tarball two');
  }
  {
    // 5. A runner started directly (no lockguard) after a hooked install: vue's peer back to 2.0.0, then
    // pnpm install --frozen-lockfile, whose pnpmfile plugin rewrote vue's slice file at pnpm's exit.
    reresolve(sound, 'packages/vue', 'peer', '1.0.0', '2.0.0');
    const install = sound.must(['pnpm', 'install', '--frozen-lockfile']);
    assert.doesNotMatch(install.stderr, /lockguard\] warning/);
    sound.clean();
    const direct = sound.must(TURBO);
    assert.equal(
      sound.out('vue'),
      '2.0.0',
      `turbo direct rebuilt or restored vue's peer-2.0.0 build:\n${direct.stdout}`,
    );
    sound.clean();
    sound.must(NX);
    assert.equal(sound.out('vue'), '2.0.0');
    // The same hooked install with a lockfile re-resolved to 1.0.0 again: turbo started directly rebuilds.
    reresolve(sound, 'packages/vue', 'peer', '2.0.0', '1.0.0');
    sound.must(['pnpm', 'install', '--frozen-lockfile']);
    sound.clean();
    sound.must(TURBO);
    assert.equal(sound.out('vue'), '1.0.0', 'turbo started directly after a hooked install hashes what is installed');
  }
});
