// The slice-files e2e scenario (test/e2e/slice-files*.test.ts; issue 20): one loopback registry
// (static-registry.ts) and the tools on PATH by name (`setup`: `bin/pnpm` is pnpm 10 or 12, with turbo 2.11.11,
// nx 24.0.6 and lockguard as a user installs it), and workspaces over them (`workspace`): `control` (turbo.json
// and nx.json as teams have them) and `sound`, the same set up by `lockguard init --sound-keys` (turbo: `inputs:
// ["$TURBO_DEFAULT$", ".lockguard-slice"]`; nx: `.nxignore` `!**/.lockguard-slice`; the files gitignored), with
// lockguard linked as a devDependency and (pnpm 10) its pnpmfile. Projects: `vue` declares an optional peer `peer`
// (pnpm records it in vue's importer, resolved from the root's devDependency); `alias` depends on `al:
// npm:aliased@*`; `tar` on a `file:` tarball; `other` holds peer@1.0.0 and aliased@1.0.0 (the root peer@2.0.0 and
// aliased@2.0.0), so each re-resolution a test makes is to a version already in the lockfile and the store. Each
// build writes what node resolves from its folder.
//
// Owns also: one importer's block of pnpm-lock.yaml read and edited (`recorded`, `reresolve`), the `file:`
// tarball rebuilt at the same version (`tarballOf`), the runners' build argv (`TURBO`, `NX`) and their cache hits
// read from their output (`turboCached`, `nxCached`).
// Invariants: everything lives under the test's temp folder (a HOME per workspace, one store: env.ts); every
// command runs in its workspace with a step timeout (`sh`; `must` also fails the test on a non-zero exit).

import assert from 'node:assert/strict';
import type { SpawnSyncReturns } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNPMFILE_SHIM } from '../../lib/integrations/pnpmfile/shim.js';
import { BIN } from './cli.js';
import { isolatedEnv } from './env.js';
import { lockguardPackage } from './hooks.js';
import { REPO } from './scenario-workspace.js';
import { startStaticRegistry } from './static-registry.js';
import { check, packTarball, shellIn, toolBin } from './tool-shims.js';
import { tempWorkspace, writeTree } from './workspace.js';

const STEP_TIMEOUT_MS = 120_000;
export const PROJECTS = ['vue', 'alias', 'tar', 'other'] as const;
export type Project = (typeof PROJECTS)[number];

// Each build writes what node resolves from the project's own folder (the module named on its command line).
const BUILD = `const fs = require('fs');
const mod = process.argv[2];
const value = mod === '-' ? 'none' : require(require.resolve(mod, { paths: [process.cwd()] }));
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/out.txt', String(value));
`;

export interface Workspace {
  readonly root: string;
  sh(argv: readonly string[]): SpawnSyncReturns<string>;
  must(argv: readonly string[]): SpawnSyncReturns<string>;
  out(project: Project): string | undefined;
  clean(): void;
}

export function tarballOf(base: string, content: string): void {
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

export interface Setup {
  readonly base: string;
  readonly registry: string;
  readonly lockguard: string;
}

/** The registry, the tools on PATH by name (`bin/pnpm` is pnpm `major`), lockguard as a user installs it. */
export async function setup(t: Parameters<typeof tempWorkspace>[0], major: 10 | 12): Promise<Setup> {
  const base = tempWorkspace(t, {}, `lockguard-slice-files-pnpm${major}-`);
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
export function workspace(
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
    // Set up as a team would: init edits turbo.json's task inputs, .nxignore and .gitignore (the pnpmfile and
    // the root prepare hook, init's default where no pnpmfile writes the files, are this test's own).
    const init = must(['lockguard', 'init', '--sound-keys', '--no-pnpmfile', '--no-npm-scripts']);
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
export function recorded(ws: Workspace, importer: string, dependency: string): string {
  const text = readFileSync(join(ws.root, 'pnpm-lock.yaml'), 'utf8');
  const start = text.indexOf(`\n  ${importer}:\n`);
  const block = text.slice(start, text.indexOf('\n\n', start + 1));
  const version = new RegExp(`\n {6}${dependency}:\n {8}specifier: .*\n {8}version: (.*)(?:\n|$)`).exec(block)?.[1];
  assert.ok(version !== undefined, `${dependency} recorded in ${importer}:\n${block}`);
  return version;
}

/** Edit one importer's block of pnpm-lock.yaml: `from` -> `to` on the first line under `dependency` that holds it. */
export function reresolve(ws: Workspace, importer: string, dependency: string, from: string, to: string): void {
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

export const TURBO = ['turbo', 'run', 'build', '--output-logs=hash-only'];
export const NX = ['nx', 'run-many', '-t', 'build', '--output-style=static'];

/** Turbo's build: how many tasks were cache hits, from its summary line ("Cached:    3 cached, 4 total"). */
export function turboCached(result: SpawnSyncReturns<string>): { cached: number; total: number } {
  const match = /Cached:\s+(\d+) cached, (\d+) total/.exec(result.stdout);
  assert.ok(match, `turbo's summary:\n${result.stdout}\n${result.stderr}`);
  return { cached: Number(match[1]), total: Number(match[2]) };
}

/** nx's build: how many tasks came from the cache ("... for 3 out of 4 tasks"), 0 when none did. */
export function nxCached(result: SpawnSyncReturns<string>): number {
  const match = /from the cache instead of running the command for (\d+) out of \d+ tasks/.exec(result.stdout);
  return match === null ? 0 : Number(match[1]);
}
