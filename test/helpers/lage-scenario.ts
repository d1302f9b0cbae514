// The poisoning scenario for lage 2.17.0 (issue 32; FIELD-NOTES "Other caching runners"): a pnpm 10 workspace
// (a git repository: lage lists a package's files with `git ls-files`) whose root `lage.config.js` pipelines
// `build: ['^build']` with outputs `dist/**`, is-number 6.0.0 and 7.0.0 served by a loopback registry
// (static-registry.ts: each exports its version).
//
// `packages/a`'s build runs `<scenario>/a-build.cjs`, which, while `<scenario>/armed` exists (once), rewrites
// what b resolves: variant M `pnpm --filter b add is-number@6.0.0` (b's manifest and the lockfile), variant L
// `pnpm --filter b update is-number@6.0.0 --no-save` (the lockfile only). b depends on a and its build writes the
// is-number it resolves to `packages/b/dist/out.json`.
// Installed once per test file (`lageInstall`, in the file's `after` scope), then copied with `cp -a` for each
// scenario (`lageScenario`): the copies share the env (HOME, XDG and pnpm's store under the install's temp
// folder) and the registry.
// Owns: the temp folder's layout (`<base>/s0/ws` the installed S0, `<base>/<name>/ws` each copy, `bin/` pnpm 10
// on PATH, `home/`), `goBack` (S0's lockfile and b's manifest back from git, a frozen install: 7.0.0 installed).
// Invariants: writes only under its temp folder (removed when the file's tests end); every command has a timeout.

import type { SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { BIN } from './cli.js';
import { isolatedEnv } from './env.js';
import { REPO } from './scenario-workspace.js';
import { startStaticRegistry } from './static-registry.js';
import {
  aBuild,
  B_BUILD_COMMAND,
  type IsNumberVariant,
  builtIsNumber,
  installedIsNumber,
  manifest,
  quarantinedKeysOf,
} from './is-number-scenario.js';
import { check, commitS0, copyInstalled, shellIn, toolBin } from './tool-shims.js';
import { tempWorkspace, type Tree, writeTree } from './workspace.js';

const STEP_TIMEOUT_MS = 90_000;

export type LageVariant = IsNumberVariant;

export interface LageInstall {
  readonly base: string;
  readonly env: Record<string, string>;
}

export interface LageScenario {
  readonly root: string;
  readonly env: Record<string, string>;
  /** Run argv in the workspace root (timeout-guarded). */
  sh(argv: readonly string[]): SpawnSyncReturns<string>;
  /** `lage build` (the workspace's own), checked; returns its output. */
  build(): string;
  /** `lockguard <argv>` (the built bin) in the workspace root. */
  lockguard(argv: readonly string[]): SpawnSyncReturns<string>;
  /** S0's lockfile and b's manifest back, then a frozen install (7.0.0 installed). */
  goBack(): void;
  /** is-number's version as b's build wrote it, or undefined. */
  out(): string | undefined;
  /** is-number's version installed for b. */
  installed(): string;
}

/** lage's config of the scenario (exported: the sound-keys tests rewrite it). */
export const LAGE_CONFIG = `module.exports = {
  npmClient: 'pnpm',
  pipeline: {
    build: ['^build'],
  },
  cacheOptions: { outputGlob: ['dist/**'] },
};
`;

function tree(registry: string): Tree {
  return {
    '.npmrc': `registry=${registry}\n`,
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\nupdateNotifier: false\n',
    '.gitignore': 'node_modules\ndist\n',
    'lage.config.js': LAGE_CONFIG,
    'package.json': manifest({
      name: 'root',
      private: true,
      scripts: { build: 'lage build' },
      devDependencies: { lage: `link:${join(REPO, 'node_modules', 'lage')}` },
    }),
    packages: {
      a: {
        'package.json': manifest({
          name: 'a',
          version: '1.0.0',
          private: true,
          scripts: { build: 'node ../../../a-build.cjs' },
        }),
        src: { 'index.js': "module.exports = 'a';\n" },
      },
      b: {
        'package.json': manifest({
          name: 'b',
          version: '1.0.0',
          private: true,
          dependencies: { a: 'workspace:*', 'is-number': '^6.0.0 || ^7.0.0' },
          scripts: { build: B_BUILD_COMMAND },
        }),
        src: { 'index.js': "module.exports = 'b';\n" },
      },
    },
  };
}

/** The workspace installed at S0 (is-number 7.0.0 for b) and committed: once per test file (`t`: its `after`). */
export async function lageInstall(t: Pick<TestContext, 'after'>): Promise<LageInstall> {
  const base = tempWorkspace(t, {}, 'lockguard-lage-');
  const root = join(base, 's0', 'ws');
  const registry = await startStaticRegistry(t, base, [
    { name: 'is-number', version: '6.0.0' },
    { name: 'is-number', version: '7.0.0' },
  ]);
  toolBin(join(base, 'bin'), { pnpm: 10 });
  writeTree(root, tree(registry));
  const env = isolatedEnv(base, {
    settings: 'home',
    path: [join(base, 'bin')],
    extra: { npm_config_update_notifier: 'false' },
  });
  const sh = shellIn(root, env, STEP_TIMEOUT_MS);
  check(sh(['pnpm', 'install']), 'pnpm install');
  commitS0(sh);
  return { base, env };
}

/** A copy of the installed S0 under `<base>/<name>/ws`, armed for `variant`. */
export function lageScenario(install: LageInstall, variant: LageVariant, name: string): LageScenario {
  const home = join(install.base, name);
  mkdirSync(home);
  const root = copyInstalled(join(install.base, 's0'), home, ['ws']);
  writeFileSync(join(home, 'a-build.cjs'), aBuild(variant));
  writeFileSync(join(home, 'armed'), '');
  const { env } = install;
  const sh = shellIn(root, env, STEP_TIMEOUT_MS);
  return {
    root,
    env,
    sh,
    build() {
      const result = check(sh(['pnpm', 'exec', 'lage', 'build']), 'lage build');
      return result.stdout + result.stderr;
    },
    lockguard: (argv) => sh([process.execPath, BIN, ...argv]),
    goBack() {
      check(sh(['git', 'checkout', '--', 'pnpm-lock.yaml', 'packages/b/package.json']), 'git checkout');
      check(sh(['pnpm', 'install', '--frozen-lockfile']), 'pnpm install --frozen-lockfile');
    },
    out: () => builtIsNumber(root),
    installed: () => installedIsNumber(root),
  };
}

/** lage's cache folder in the scenario's workspace. */
export function lageCache(s: LageScenario): string {
  return join(s.root, 'node_modules', '.cache', 'lage');
}

/** The keys of the entries under `node_modules/.cache/lage/cache/<prefix>/` (not the npm provider's `npm/`). */
export function cacheKeys(s: LageScenario): string[] {
  const dir = join(lageCache(s), 'cache');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((prefix) => readdirSync(join(dir, prefix)))
    .filter((name) => /^[0-9a-f]{40}$/.test(name))
    .sort();
}

/** The keys of the logs lage replays on a hit (`node_modules/.cache/lage/logs/<prefix>/<key>.log`). */
export function logKeys(s: LageScenario): string[] {
  const dir = join(lageCache(s), 'logs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((prefix) => readdirSync(join(dir, prefix)).map((name) => name.replace(/\.log$/, '')))
    .sort();
}

/** The keys quarantined by any run (under each `.lockguard/quarantine/<run>/entries/lage/`). */
export function quarantinedKeys(s: LageScenario): string[] {
  return quarantinedKeysOf(s.root, 'lage');
}

/** lage's own count of what it ran and restored in one build's output: `success: N, skipped: M`. */
export function ranAndSkipped(output: string): { ran: number; skipped: number } {
  const match = /success: (\d+), skipped: (\d+)/.exec(output);
  if (match === null) throw new Error(`lage printed no summary:\n${output}`);
  return { ran: Number(match[1]), skipped: Number(match[2]) };
}
