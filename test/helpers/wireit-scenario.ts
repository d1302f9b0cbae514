// The poisoning scenario for wireit (issue 32; FIELD-NOTES "Other caching runners"), installed and ready to
// run: a pnpm 10 workspace whose scripts are wireit scripts, started the way a wireit user starts them
// (`npm run build` at the root, whose `build` is `wireit`), is-number 6.0.0 and 7.0.0 served by a loopback
// registry (static-registry.ts: each exports its version).
//
// `packages/a:build` runs `<base>/a-build.cjs`, which, while `<base>/armed` exists (once), rewrites what b
// resolves: variant M `pnpm --filter b add is-number@6.0.0` (b's manifest and the lockfile), variant L
// `pnpm --filter b update is-number@6.0.0 --no-save` (the lockfile only). `packages/b:build` depends on a's
// and writes the is-number it resolves to `packages/b/dist/out.json`. Every cached script names `files`
// (`src/**`) and `output`, and no `packageLocks`: under `npm run` wireit then folds package-lock.json only,
// which a pnpm workspace has not (measured: the scenario replays stale).
// Owns: the temp folder's layout (`<base>/ws` the workspace, `bin/` pnpm 10 on PATH, `home/`, `saved/`),
// the env (HOME and XDG under the temp folder, pnpm's store under HOME), `goBack` (S0's lockfile and b's
// manifest back, a frozen install: 7.0.0 installed).
// Invariants: writes only under its temp folder (removed when the test ends); every command has a timeout.
// A file that calls `installWireitOncePerFile()` at its top level installs each variant once (a template, its
// registry running until the file's last test) and gives each test a private `cp -a` copy of the installed
// workspace, a-build.cjs and saved/ in its own temp folder; the copies share the template's HOME (pnpm's store),
// bin/ and registry, as the lage scenario's do.

import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
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
  restoreS0,
  saveS0,
} from './is-number-scenario.js';
import { check, copyInstalled, fileTemplates, toolBin, type FileTemplates } from './tool-shims.js';
import { tempWorkspace, type Tree, writeTree } from './workspace.js';

const STEP_TIMEOUT_MS = 90_000;

export type WireitVariant = IsNumberVariant;

export interface WireitScenario {
  readonly base: string;
  readonly root: string;
  readonly env: Record<string, string>;
  /** Run argv in the workspace root (timeout-guarded). */
  sh(argv: readonly string[]): SpawnSyncReturns<string>;
  /** `npm run build` at the root, checked. */
  build(): SpawnSyncReturns<string>;
  /** `lockguard <argv>` (the built bin) in the workspace root. */
  lockguard(argv: readonly string[]): SpawnSyncReturns<string>;
  /** Make a's build rewrite what b resolves once more, on its next real run. */
  arm(): void;
  /** S0's lockfile and b's manifest back, then a frozen install (7.0.0 installed); `dist` kept unless asked. */
  goBack(options?: { removeOutputs?: boolean }): void;
  /** is-number's version as b's build wrote it, or undefined. */
  out(): string | undefined;
  /** is-number's version installed for b. */
  installed(): string;
}

function tree(registry: string): Tree {
  return {
    '.npmrc': `registry=${registry}\n`,
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\nupdateNotifier: false\n',
    '.gitignore': 'node_modules\ndist\n.wireit\n',
    'package.json': manifest({
      name: 'root',
      private: true,
      scripts: { build: 'wireit' },
      wireit: { build: { dependencies: ['./packages/b:build'] } },
      devDependencies: { wireit: `link:${join(REPO, 'node_modules', 'wireit')}` },
    }),
    packages: {
      a: {
        'package.json': manifest({
          name: 'a',
          version: '1.0.0',
          private: true,
          scripts: { build: 'wireit' },
          wireit: { build: { command: 'node ../../../a-build.cjs', files: ['src/**'], output: ['dist/**'] } },
        }),
        src: { 'index.js': "module.exports = 'a';\n" },
      },
      b: {
        'package.json': manifest({
          name: 'b',
          version: '1.0.0',
          private: true,
          dependencies: { a: 'workspace:*', 'is-number': '^6.0.0 || ^7.0.0' },
          scripts: { build: 'wireit' },
          wireit: {
            build: { command: B_BUILD_COMMAND, dependencies: ['../a:build'], files: ['src/**'], output: ['dist/**'] },
          },
        }),
        src: { 'index.js': "module.exports = 'b';\n" },
      },
    },
  };
}

/** The wireit scenario, installed at S0 (is-number 7.0.0 for b) and armed. */
export async function wireitScenario(t: Pick<TestContext, 'after'>, variant: WireitVariant): Promise<WireitScenario> {
  const scope = wireitScope;
  if (scope === undefined) return drive(await installed(t, variant));
  return drive(copyOf(t, variant, await scope.get(variant, (file) => installed(file, variant))));
}

interface Installed {
  readonly base: string;
  readonly root: string;
  readonly env: Record<string, string>;
}

/** This file's installed templates by variant (undefined: the file did not opt in). */
let wireitScope: FileTemplates<WireitVariant, Promise<Installed>> | undefined;

/** Call once at a test file's top level: each variant installed once, copied per test, removed after the file. */
export function installWireitOncePerFile(): void {
  wireitScope = fileTemplates();
}

/** A private copy of an installed template (workspace, a-build.cjs, saved/); pnpm's workspace state names the copy. */
function copyOf(t: Pick<TestContext, 'after'>, variant: WireitVariant, template: Installed): Installed {
  const base = tempWorkspace(t, {}, `lockguard-wireit-${variant}-copy-`);
  const root = copyInstalled(template.base, base, ['ws', 'saved', 'a-build.cjs']);
  return { base, root, env: template.env };
}

/** The workspace written and installed at S0 (its registry stopped when `t` ends), S0 kept under saved/. */
async function installed(t: Pick<TestContext, 'after'>, variant: WireitVariant): Promise<Installed> {
  const base = tempWorkspace(t, {}, `lockguard-wireit-${variant}-`);
  const root = join(base, 'ws');
  const registry = await startStaticRegistry(t, base, [
    { name: 'is-number', version: '6.0.0' },
    { name: 'is-number', version: '7.0.0' },
  ]);
  toolBin(join(base, 'bin'), { pnpm: 10 });
  writeFileSync(join(base, 'a-build.cjs'), aBuild(variant));
  writeTree(root, tree(registry));
  const env = isolatedEnv(base, {
    settings: 'home',
    path: [join(base, 'bin')],
    extra: { npm_config_update_notifier: 'false' },
  });
  const sh = (argv: readonly string[]): SpawnSyncReturns<string> => {
    const [command = 'true', ...args] = argv;
    return spawnSync(command, args, { cwd: root, env, encoding: 'utf8', timeout: STEP_TIMEOUT_MS });
  };
  check(sh(['pnpm', 'install']), 'pnpm install');
  saveS0(base, root);
  return { base, root, env };
}

/** The scenario's driver over an installed workspace (S0 under `<base>/saved/`), armed. */
function drive({ base, root, env }: Installed): WireitScenario {
  const sh = (argv: readonly string[]): SpawnSyncReturns<string> => {
    const [command = 'true', ...args] = argv;
    return spawnSync(command, args, { cwd: root, env, encoding: 'utf8', timeout: STEP_TIMEOUT_MS });
  };
  const arm = (): void => writeFileSync(join(base, 'armed'), '');
  arm();
  return {
    base,
    root,
    env,
    sh,
    build: () => check(sh(['npm', 'run', 'build']), 'npm run build'),
    lockguard: (argv) => sh([process.execPath, BIN, ...argv]),
    arm,
    goBack: (options) => restoreS0(base, root, sh, options),
    out: () => builtIsNumber(root),
    installed: () => installedIsNumber(root),
  };
}

/** The entries (keys) under every package's `.wireit/<script>/cache/`. */
export function cacheKeys(s: WireitScenario): string[] {
  const out: string[] = [];
  for (const name of ['a', 'b']) {
    const data = join(s.root, 'packages', name, '.wireit');
    for (const script of existsSync(data) ? readdirSync(data) : [])
      out.push(...(existsSync(join(data, script, 'cache')) ? readdirSync(join(data, script, 'cache')) : []));
  }
  return out.sort();
}

/** The keys quarantined by any run (under each `.lockguard/quarantine/<run>/entries/wireit/`). */
export function quarantinedKeys(s: WireitScenario): string[] {
  return quarantinedKeysOf(s.root, 'wireit');
}

/** Whether any script of package `name` has a fingerprint stamp (the outputs in place count as fresh to wireit). */
export function hasStamp(s: WireitScenario, name: string): boolean {
  const data = join(s.root, 'packages', name, '.wireit');
  return (existsSync(data) ? readdirSync(data) : []).some((script) => existsSync(join(data, script, 'fingerprint')));
}
