// Per-project slice files end to end (issue 20), with the real pnpm 10, turbo 2.11.11 and nx 24.0.6: the
// lockfile changes a project really reaches and the runners' own keys miss, replayed without lockguard (the
// control, asserted) and rebuilt with what is installed once the runners fold `.lockguard-slice`.
//
// Two workspaces from one loopback registry (test/helpers/static-registry.ts): `control` (turbo.json and
// nx.json as teams have them) and `sound`, the same set up by `lockguard init --sound-keys` (turbo: `inputs:
// ["$TURBO_DEFAULT$", ".lockguard-slice"]`; nx: `.nxignore` `!**/.lockguard-slice`; the files gitignored), with lockguard
// linked as a devDependency and its pnpmfile. Projects: `vue` declares an optional peer `peer` (pnpm records
// it in vue's importer, resolved from the root's devDependency); `alias` depends on `al: npm:aliased@*`;
// `tar` on a `file:` tarball; `other` holds peer@1.0.0 and aliased@1.0.0 (the root peer@2.0.0 and
// aliased@2.0.0), so each re-resolution below is to a version already in the lockfile and the store. Each build writes what node resolves from its folder.
// The cases, each a lockfile change then an install, in one sequence over the two installed workspaces:
// 1. a root README edit and a bump of `other` alone: no slice of vue/alias/tar moves, warm runs stay hits;
// 2. vue's peer re-resolved 2.0.0 -> 1.0.0 (a frozen install): turbo and nx both replay without lockguard;
// 3. alias's `al` re-pointed aliased@2.0.0 -> 1.0.0 (frozen): nx replays without lockguard;
// 4. the tarball rebuilt at the same version (integrity only; `pnpm install` rewrites it): turbo replays;
// 5. a runner started directly after an install the pnpmfile plugin saw (pnpm 10): it rebuilds;
// and with pnpm 12, a runner started directly after an install whose root postinstall ran lockguard's hook.

import assert from 'node:assert/strict';
import type { SpawnSyncReturns } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PNPMFILE_SHIM } from '../../lib/integrations/pnpmfile/shim.js';
import { BIN } from '../helpers/cli.js';
import { isolatedEnv } from '../helpers/env.js';
import { lockguardPackage } from '../helpers/hooks.js';
import { startTurboRemoteCache } from '../helpers/cache-servers.js';
import { startStaticRegistry } from '../helpers/static-registry.js';
import { check, packTarball, shellIn, toolBin } from '../helpers/tool-shims.js';
import { tempWorkspace, writeTree } from '../helpers/workspace.js';
import { REPO } from '../helpers/scenario-workspace.js';

const STEP_TIMEOUT_MS = 120_000;
const PROJECTS = ['vue', 'alias', 'tar', 'other'] as const;
type Project = (typeof PROJECTS)[number];

// Each build writes what node resolves from the project's own folder (the module named on its command line).
const BUILD = `const fs = require('fs');
const mod = process.argv[2];
const value = mod === '-' ? 'none' : require(require.resolve(mod, { paths: [process.cwd()] }));
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/out.txt', String(value));
`;

interface Workspace {
  readonly root: string;
  sh(argv: readonly string[]): SpawnSyncReturns<string>;
  must(argv: readonly string[]): SpawnSyncReturns<string>;
  out(project: Project): string | undefined;
  clean(): void;
}

function tarballOf(base: string, content: string): void {
  const src = join(base, 'local-src');
  rmSync(src, { recursive: true, force: true });
  for (const ws of ['control', 'sound', 'control-2', 'sound-2'])
    packTarball(
      join(base, ws, 'vendor', 'local-1.0.0.tgz'),
      src,
      { name: 'local', version: '1.0.0' },
      `module.exports = ${JSON.stringify(content)};\n`,
    );
}

interface Setup {
  readonly base: string;
  readonly registry: string;
  readonly lockguard: string;
}

/** The registry, the tools on PATH by name (`bin/pnpm` is pnpm `major`), lockguard as a user installs it. */
async function setup(t: Parameters<typeof tempWorkspace>[0], major: 10 | 12): Promise<Setup> {
  const base = tempWorkspace(t, {}, `lockguard-sound-keys-pnpm${major}-`);
  const registry = await startStaticRegistry(
    t,
    base,
    [
      { name: 'peer', version: '1.0.0' },
      { name: 'peer', version: '2.0.0' },
      { name: 'aliased', version: '1.0.0' },
      { name: 'aliased', version: '2.0.0' },
    ],
    major === 12 ? 'https://registry.npmjs.org/' : '',
  );
  toolBin(join(base, 'bin'), { pnpm: major, nx: join(REPO, 'node_modules', 'nx'), turbo: 'turbo', lockguard: BIN });
  tarballOf(base, 'tarball one');
  return { base, registry, lockguard: lockguardPackage(base) };
}

/**
 * One workspace of `setup` (`name` is its folder; `sound` says how its runners are set up). pnpm 12 gets no
 * pnpmfile (its default setup: lockguard init writes none there) and pins itself.
 */
function workspace(
  at: Setup,
  name: string,
  sound: boolean,
  major: 10 | 12 = 10,
  extraEnv: Record<string, string> = {},
): Workspace {
  const { base, registry, lockguard } = at;
  const root = join(base, name);
  const bin = join(base, 'bin');
  const env = isolatedEnv(base, {
    home: join(base, `home-${name}`),
    storeDir: join(base, 'store'),
    offline: false,
    path: [bin],
    extra: {
      ...extraEnv,
      npm_config_registry: registry,
      pnpm_config_registry: registry,
      NX_TUI: 'false',
      NX_ISOLATE_PLUGINS: 'false',
      NX_DAEMON: 'false',
      TURBO_TELEMETRY_DISABLED: '1',
      DO_NOT_TRACK: '1',
      GIT_CONFIG_NOSYSTEM: '1',
    },
  });
  const script = (mod: string) => `node ../../build.cjs ${mod}`;
  const manifest = (project: string, fields: Record<string, unknown>) =>
    `${JSON.stringify({ name: project, version: '1.0.0', private: true, ...fields }, null, 2)}\n`;
  // Both as teams have them; the sound workspace then runs `lockguard init --sound-keys` (below).
  const turboTask = { dependsOn: ['^build'], outputs: ['dist/**'] };
  const nxTarget = { dependsOn: ['^build'], outputs: ['{projectRoot}/dist'], cache: true };
  writeTree(root, {
    'package.json': `${JSON.stringify({ name: 'root', private: true, packageManager: major === 10 ? 'pnpm@10.34.8' : 'pnpm@12.4.2', devDependencies: { peer: '2.0.0', aliased: '2.0.0', nx: `link:${join(REPO, 'node_modules', 'nx')}`, ...(sound ? { lockguard: `link:${lockguard}` } : {}) } }, null, 2)}\n`,
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\nupdateNotifier: false\n',
    ...(sound && major === 10 ? { '.pnpmfile.cjs': PNPMFILE_SHIM } : {}),
    '.gitignore': 'node_modules\n.turbo\n.nx\ndist\n.lockguard\n',
    'README.md': 'S0\n',
    'build.cjs': BUILD,
    'turbo.json': JSON.stringify({ tasks: { build: turboTask } }, null, 2),
    'nx.json': JSON.stringify({ targetDefaults: { build: nxTarget } }, null, 2),
    packages: {
      vue: {
        'package.json': manifest('vue', {
          peerDependencies: { peer: '*' },
          peerDependenciesMeta: { peer: { optional: true } },
          scripts: { build: script('peer') },
        }),
        'README.md': 'vue\n',
      },
      alias: {
        'package.json': manifest('alias', { dependencies: { al: 'npm:aliased@*' }, scripts: { build: script('al') } }),
      },
      tar: {
        'package.json': manifest('tar', {
          dependencies: { local: 'file:../../vendor/local-1.0.0.tgz' },
          scripts: { build: script('local') },
        }),
      },
      other: {
        'package.json': manifest('other', {
          dependencies: { peer: '1.0.0', aliased: '1.0.0' },
          scripts: { build: script('-') },
        }),
      },
    },
  });
  const sh = shellIn(root, env, STEP_TIMEOUT_MS);
  const must = (argv: readonly string[]): SpawnSyncReturns<string> => check(sh(argv), `${name}: ${argv.join(' ')}`);
  if (sound) {
    // Set up as a team would: init edits turbo.json's task inputs, .nxignore and .gitignore (the pnpmfile is this test's own).
    const init = must(['lockguard', 'init', '--sound-keys', '--no-pnpmfile']);
    assert.match(init.stdout, /sound keys: the runners' keys now fold each project's \.lockguard-slice/, init.stdout);
    assert.match(readFileSync(join(root, 'turbo.json'), 'utf8'), /"\$TURBO_DEFAULT\$",\s*"\.lockguard-slice"/);
    assert.match(readFileSync(join(root, '.nxignore'), 'utf8'), /!\*\*\/\.lockguard-slice/);
  }
  return {
    root,
    sh,
    must,
    out(project) {
      try {
        return readFileSync(join(root, 'packages', project, 'dist', 'out.txt'), 'utf8');
      } catch {
        return undefined;
      }
    },
    clean() {
      for (const project of PROJECTS) rmSync(join(root, 'packages', project, 'dist'), { recursive: true, force: true });
    },
  };
}

/** The version one importer's block of pnpm-lock.yaml records for `dependency`. */
function recorded(ws: Workspace, importer: string, dependency: string): string {
  const text = readFileSync(join(ws.root, 'pnpm-lock.yaml'), 'utf8');
  const start = text.indexOf(`\n  ${importer}:\n`);
  const block = text.slice(start, text.indexOf('\n\n', start + 1));
  const version = new RegExp(`\n {6}${dependency}:\n {8}specifier: .*\n {8}version: (.*)(?:\n|$)`).exec(block)?.[1];
  assert.ok(version !== undefined, `${dependency} recorded in ${importer}:\n${block}`);
  return version;
}

/** Edit one importer's block of pnpm-lock.yaml: `from` -> `to` on the first line under `dependency` that holds it. */
function reresolve(ws: Workspace, importer: string, dependency: string, from: string, to: string): void {
  const path = join(ws.root, 'pnpm-lock.yaml');
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf(`\n  ${importer}:\n`);
  assert.ok(start > 0, `importer ${importer} in the lockfile`);
  const end = text.indexOf('\n\n', start + 1);
  const block = text.slice(start, end);
  const at = block.indexOf(`\n      ${dependency}:\n`);
  assert.ok(at > 0, `${dependency} recorded in ${importer}'s importer:\n${block}`);
  const line = block.indexOf(`version: ${from}`, at);
  assert.ok(line > 0, `${dependency} at ${from} in ${importer}:\n${block}`);
  writeFileSync(
    path,
    `${text.slice(0, start) + block.slice(0, line)}version: ${to}${block.slice(line + `version: ${from}`.length)}${text.slice(end)}`,
  );
}

const TURBO = ['turbo', 'run', 'build', '--output-logs=hash-only'];
const NX = ['nx', 'run-many', '-t', 'build', '--output-style=static'];

/** Turbo's build: how many tasks were cache hits, from its summary line ("Cached:    3 cached, 4 total"). */
function turboCached(result: SpawnSyncReturns<string>): { cached: number; total: number } {
  const match = /Cached:\s+(\d+) cached, (\d+) total/.exec(result.stdout);
  assert.ok(match, `turbo's summary:\n${result.stdout}\n${result.stderr}`);
  return { cached: Number(match[1]), total: Number(match[2]) };
}

/** nx's build: how many tasks came from the cache ("... for 3 out of 4 tasks"), 0 when none did. */
function nxCached(result: SpawnSyncReturns<string>): number {
  const match = /from the cache instead of running the command for (\d+) out of \d+ tasks/.exec(result.stdout);
  return match === null ? 0 : Number(match[1]);
}

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
    assert.match(vue, /^lockguard-slice\/1\nimporter packages\/vue\nslice [0-9a-f]{64}\nroot [0-9a-f]{64}\n$/);
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
      // The slice file moved vue's key: rebuilt with what is installed; the other three came from the remote.
      assert.equal(two.out('vue'), '1.0.0', result.stdout);
      assert.deepEqual(turboCached(result), { cached: 3, total: 4 });
    } else {
      // The control: every task a remote hit, vue's output built against peer 2.0.0.
      assert.equal(two.out('vue'), '2.0.0', 'turbo replays the stale peer from the remote');
      assert.deepEqual(turboCached(result), { cached: 4, total: 4 });
    }
  }
});

test('sound keys, pnpm 12: a runner started directly after a hooked install (the root postinstall, lockguard init --npm-scripts) rebuilds the project whose slice changed; without the hook it replays', {
  timeout: 600_000,
}, async (t) => {
  // pnpm 12 runs pnpmfile hooks in helper processes that never see the install end (measured: no hook runs
  // after pnpm-lock.yaml and node_modules are written), so its writer is the root postinstall, which pnpm
  // 12 runs only after an install that wrote them.
  const at = await setup(t, 12);
  const hooked = workspace(at, 'sound', true, 12);
  const unhooked = workspace(at, 'control', true, 12);
  const init = hooked.must(['lockguard', 'init', '--npm-scripts', '--no-pnpmfile']);
  assert.match(
    readFileSync(join(hooked.root, 'package.json'), 'utf8'),
    /"postinstall": "node -e .*lockguard\/npm-hook/,
    init.stdout,
  );
  for (const ws of [hooked, unhooked]) {
    const install = ws.must(['pnpm', 'install']);
    assert.doesNotMatch(install.stderr, /lockguard\] warning/);
    ws.must(['git', 'init', '-q', '.']);
  }
  // The hooked install wrote every project's file; the unhooked one none (no lockguard command ran there yet).
  const vueFile = (ws: Workspace) => {
    try {
      return readFileSync(join(ws.root, 'packages', 'vue', '.lockguard-slice'), 'utf8');
    } catch {
      return undefined;
    }
  };
  const s0 = vueFile(hooked);
  assert.match(s0 ?? '', /^lockguard-slice\/1\nimporter packages\/vue\n/);
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
  const fresh = hooked.must(TURBO);
  assert.equal(hooked.out('vue'), '1.0.0', `turbo rebuilt vue with what is installed:\n${fresh.stdout}`);
  assert.deepEqual(turboCached(fresh), { cached: 3, total: 4 });
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
