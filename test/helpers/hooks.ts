// Real-tool fixtures for the install-time hook tests: local package tarballs (no network), a pnpm workspace
// set up the way a user has lockguard (root devDependency `link:` to a copy of this worktree's built package,
// the shim as .pnpmfile.cjs), and a live run created as `lockguard run` creates it.
//
// Invariants: everything lives under the test's temp folder (HOME, XDG_*, stores, caches: env.ts); every
// spawn has a timeout; nothing is written into the repository. A file that calls `installFixturesOncePerFile()`
// at its top level installs the pnpm workspace once per pnpm version (a template, removed after the file's last
// test) and gives each test a private `cp -a` copy of the installed workspace; the copies share the template's
// HOME, store, tarballs and lockguard package (what `.modules.yaml` and the manifests name by absolute path).

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { PNPMFILE_SHIM } from '../../lib/integrations/pnpmfile/shim.js';
import { createRun, readEvents, type Policy, type RunEvent } from '../../lib/ledger/ledger.js';
import { processStart, registerLive, unregisterLive } from '../../lib/ledger/live.js';
import { isolatedEnv } from './env.js';
import { copyInstalled, fileTemplates, type FileTemplates } from './tool-shims.js';
import { tempWorkspace, writeTree, type Tree } from './workspace.js';

/** This worktree: the package a test workspace links as its `lockguard` devDependency. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MODULES = join(PACKAGE_ROOT, 'node_modules');

export type PnpmVersion = 10 | 12;
export const PNPM_VERSIONS: readonly PnpmVersion[] = [10, 12];

export interface Spawned {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * lockguard as a user installs it: this worktree's package.json (no dependencies: the hooks and `lockguard
 * hook` load Node builtins only) and what it ships (dist/lib, dist/lockguard.cjs), copied under `base`, so no package manager in a
 * test can touch the worktree's own node_modules.
 */
export function lockguardPackage(base: string): string {
  const dir = join(base, 'lockguard-package');
  const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  const { dependencies: _dependencies, devDependencies: _devDependencies, scripts: _scripts, ...rest } = manifest;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(rest, null, 2)}\n`);
  // What the package ships (package.json "files"): the library under dist/lib and the bundled bin.
  for (const shipped of (manifest['files'] as string[]).filter((path) => path.startsWith('dist/'))) {
    cpSync(join(PACKAGE_ROOT, shipped), join(dir, shipped), { recursive: true });
  }
  return dir;
}

/** A tar header for one regular file (ustar). */
function tarHeader(name: string, size: number): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 100);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return header;
}

/** An npm package tarball (`package/package.json`, `package/index.js`), written without npm. */
export function writeTarball(path: string, name: string, version: string): string {
  const files: Array<[string, string]> = [
    ['package/package.json', `${JSON.stringify({ name, version, main: 'index.js' })}\n`],
    ['package/index.js', `module.exports = ${JSON.stringify(version)}\n`],
  ];
  const blocks: Buffer[] = [];
  for (const [file, text] of files) {
    const body = Buffer.from(text);
    blocks.push(tarHeader(file, body.length), body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  writeFileSync(path, gzipSync(Buffer.concat(blocks)));
  return path;
}

/** The command line that runs pnpm `version` (pnpm 10 is JS, pnpm 12 a native binary). */
export function pnpmCommand(version: PnpmVersion): [string, string[]] {
  return version === 10
    ? [process.execPath, [join(MODULES, 'pnpm10', 'bin', 'pnpm.cjs')]]
    : [join(MODULES, 'pnpm12', 'pnpm'), []];
}

export function spawn(
  file: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
): Spawned {
  const result = spawnSync(file, [...args], { cwd, env, encoding: 'utf8', timeout: timeoutMs });
  if (result.error !== undefined) throw result.error;
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

export function pnpm(version: PnpmVersion, args: readonly string[], cwd: string, env: Record<string, string>): Spawned {
  const [file, prefix] = pnpmCommand(version);
  return spawn(file, [...prefix, ...args], cwd, env);
}

export interface PnpmFixture {
  readonly root: string;
  /** The lockguard package the workspace links. */
  readonly lockguard: string;
  readonly env: Record<string, string>;
  /** Tarballs outside the workspace: dep-x (already used by package a) and dep-y (new). */
  readonly depX: string;
  readonly depY: string;
  pnpm(args: readonly string[], env?: Record<string, string>): Spawned;
  read(path: string): Buffer;
}

/**
 * A pnpm workspace (`a` depends on dep-x, `b` on nothing; both have a `noop` script), with the shim as
 * .pnpmfile.cjs and lockguard (a copy of this worktree's package) as a `link:` root devDependency,
 * installed twice (the first install is a fresh clone's: lockguard not there yet), unless `install` is false.
 */
export function pnpmFixture(
  t: { after(fn: () => void): void },
  version: PnpmVersion,
  options: { install?: boolean; tree?: Tree } = {},
): PnpmFixture {
  const scope = options.install !== false && options.tree === undefined ? fixtureScope : undefined;
  if (scope === undefined) return installedFixture(t, version, options);
  return fixtureCopy(
    t,
    version,
    scope.get(version, (file) => installedFixture(file, version, options)),
  );
}

/** This file's installed templates by pnpm version (undefined: the file did not opt in). */
let fixtureScope: FileTemplates<PnpmVersion, PnpmFixture> | undefined;

/**
 * Call once at a test file's top level: its tests' installed pnpm fixtures (no `tree`, `install` not false) are
 * installed once per pnpm version and copied per test; the templates are removed after the file's last test.
 */
export function installFixturesOncePerFile(): void {
  fixtureScope = fileTemplates();
}

/**
 * A private copy of an installed template in the test's own temp folder: the workspace (`cp -a`, links and
 * all), the tarballs, and a link to the template's lockguard package, each where the lockfile's relative paths
 * name them; where the manifests, the lockfile's specifiers and pnpm's workspace state name them (and the
 * projects) by absolute path, the copy's paths, as a fixture written and installed there has them.
 */
function fixtureCopy(t: { after(fn: () => void): void }, version: PnpmVersion, template: PnpmFixture): PnpmFixture {
  const from = join(template.root, '..');
  const base = tempWorkspace(t, {}, `lockguard-hooks-${version}-copy-`);
  const root = copyInstalled(from, base, [basename(template.root)], basename(template.root));
  for (const tarball of [template.depX, template.depY]) cpSync(tarball, join(base, basename(tarball)));
  symlinkSync(template.lockguard, join(base, basename(template.lockguard)));
  // The manifests and the lockfile's specifiers name the tarballs and the package by absolute path.
  const named = [
    join(root, 'package.json'),
    join(root, 'packages', 'a', 'package.json'),
    join(root, 'packages', 'b', 'package.json'),
    join(root, 'pnpm-lock.yaml'),
    join(root, 'node_modules', '.pnpm', 'lock.yaml'),
  ];
  for (const file of named.filter((path) => existsSync(path)))
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll(`${from}/`, `${base}/`));
  return {
    ...template,
    root,
    lockguard: join(base, basename(template.lockguard)),
    depX: join(base, basename(template.depX)),
    depY: join(base, basename(template.depY)),
    pnpm: (args, extra = {}) => pnpm(version, args, root, { ...template.env, ...extra }),
    read: (path) => readFileSync(join(root, path)),
  };
}

function installedFixture(
  t: { after(fn: () => void): void },
  version: PnpmVersion,
  options: { install?: boolean; tree?: Tree },
): PnpmFixture {
  const base = tempWorkspace(t, {}, `lockguard-hooks-${version}-`);
  const root = join(base, 'ws');
  const depX = writeTarball(join(base, 'dep-x-1.0.0.tgz'), 'dep-x', '1.0.0');
  const depY = writeTarball(join(base, 'dep-y-1.0.0.tgz'), 'dep-y', '1.0.0');
  const env = isolatedEnv(join(base, 'home'), { offline: false });
  const lockguard = lockguardPackage(base);
  const tree: Tree = {
    'package.json': `${JSON.stringify({ name: 'root', private: true, devDependencies: { lockguard: `link:${lockguard}` } }, null, 2)}\n`,
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
    '.pnpmfile.cjs': PNPMFILE_SHIM,
    packages: {
      a: {
        'package.json': `${JSON.stringify({ name: 'a', version: '1.0.0', scripts: { noop: 'true' }, dependencies: { 'dep-x': `file:${depX}` } }, null, 2)}\n`,
      },
      b: { 'package.json': `${JSON.stringify({ name: 'b', version: '1.0.0', scripts: { noop: 'true' } }, null, 2)}\n` },
    },
    ...options.tree,
  };
  mkdirSync(root);
  writeTree(root, tree);
  const fixture: PnpmFixture = {
    root,
    lockguard,
    env,
    depX,
    depY,
    pnpm: (args, extra = {}) => pnpm(version, args, root, { ...env, ...extra }),
    read: (path) => readFileSync(join(root, path)),
  };
  if (options.install !== false) {
    for (const round of ['first', 'second']) {
      const result = fixture.pnpm(['install']);
      if (result.code !== 0)
        throw new Error(
          `fixture: ${round} pnpm ${version} install failed (${result.code}):\n${result.stdout}\n${result.stderr}`,
        );
    }
  }
  return fixture;
}

/** B's manifest with a new dependency on dep-y: a manifest edit an install would act on. */
export function editManifestOfB(fixture: PnpmFixture): void {
  writeFileSync(
    join(fixture.root, 'packages', 'b', 'package.json'),
    `${JSON.stringify({ name: 'b', version: '1.0.0', scripts: { noop: 'true' }, dependencies: { 'dep-y': `file:${fixture.depY}` } }, null, 2)}\n`,
  );
}

export interface LiveRunFixture {
  readonly dir: string;
  readonly id: string;
  events(): RunEvent[];
  hookEvents(): RunEvent[];
}

/** A live run of `root`, registered as `lockguard run` registers it (this process is its pid). */
export function liveRun(t: { after(fn: () => void): void }, root: string, policy: Policy): LiveRunFixture {
  const table = readWorkspaceFingerprints(root);
  const run = createRun({ kind: 'run', table, policy });
  registerLive(root, {
    dir: run.dir,
    id: run.record.id,
    pid: process.pid,
    pidStart: processStart(process.pid),
    policy,
  });
  t.after(() => unregisterLive(root, run.record.id));
  return {
    dir: run.dir,
    id: run.record.id,
    events: () => readEvents(run.dir),
    hookEvents: () => readEvents(run.dir).filter((event) => event.type === 'hook'),
  };
}
