// The poisoning scenario for moon 2.5.5 (issue 32; FIELD-NOTES "Other caching runners"), installed and ready to
// run: a pnpm 10 workspace in a git repository (moon caches nothing outside one) whose projects are moon
// projects with the system toolchain (no toolchain plugin is downloaded: moon runs offline), started the way a
// moon user starts them (`moon run :build`), is-number 6.0.0 and 7.0.0 served by a loopback registry
// (static-registry.ts: each exports its version).
//
// `a:build` runs `<base>/a-build.cjs`, which, while `<base>/armed` exists (once), rewrites what b resolves:
// variant M `pnpm --filter b add is-number@6.0.0` (b's manifest and the lockfile), variant L `pnpm --filter b
// update is-number@6.0.0 --no-save` (the lockfile only). `b:build` depends on `a:build` and writes the is-number
// it resolves to `packages/b/dist/out.json`. Each task's `inputs` are `src/**/*` (b's manifest is no input, so M
// replays too) unless `inputs: 'default'` (moon's own default, every file of the project); no key folds the
// lockfile (the system toolchain hashes no dependencies).
// Owns: one installed template per variant and inputs per test file (`<template>/ws` the workspace at S0, `bin/`
// pnpm 10 and moon on PATH, `home/` with the pnpm store, the registry; removed after the file's last test:
// `moonFile()`), each test's copy of it (`<base>/ws`, `cp -a`; `<base>/a-build.cjs`, `armed`, `saved/`), the env
// (HOME and XDG under the template, no MOON_ or PROTO_ setting of the developer's, telemetry off), `goBack` (S0's
// lockfile and b's manifest back, a frozen install: 7.0.0 installed).
// Invariants: writes only under its temp folders (each test's removed when it ends, the templates after the
// file); every command has a timeout.

import type { SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, type TestContext } from 'node:test';
import { BIN } from './cli.js';
import { isolatedEnv } from './env.js';
import { startStaticRegistry } from './static-registry.js';
import {
  aBuild,
  type IsNumberVariant,
  builtIsNumber,
  installedIsNumber,
  manifest,
  quarantinedKeysOf,
  restoreS0,
  saveS0,
} from './is-number-scenario.js';
import { check, commitS0, copyInstalled, shellIn, toolBin } from './tool-shims.js';
import { REPO_ROOT } from './tools.js';
import { tempWorkspace, type Tree, writeTree } from './workspace.js';

const STEP_TIMEOUT_MS = 90_000;

/** The moon binary of the pinned @moonrepo/cli (its per-platform package). */
export const MOON = join(REPO_ROOT, 'node_modules', '@moonrepo', 'cli', 'moon.js');

export type MoonVariant = IsNumberVariant;

export interface MoonScenario {
  readonly base: string;
  readonly root: string;
  readonly env: Record<string, string>;
  /** Run argv in the workspace root (timeout-guarded). */
  sh(argv: readonly string[]): SpawnSyncReturns<string>;
  /** `moon run :build` at the root, checked. */
  build(): SpawnSyncReturns<string>;
  /** `lockguard <argv>` (the built bin) in the workspace root. */
  lockguard(argv: readonly string[]): SpawnSyncReturns<string>;
  /** S0's lockfile and b's manifest back, then a frozen install (7.0.0 installed); `dist` kept unless asked. */
  goBack(options?: { removeOutputs?: boolean }): void;
  /** is-number's version as b's build wrote it, or undefined. */
  out(): string | undefined;
  /** is-number's version installed for b. */
  installed(): string;
}

const B_BUILD = `const fs = require('fs');
const version = require(require.resolve('is-number', { paths: [process.cwd()] }));
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/out.json', JSON.stringify({ isNumber: version }));
`;

function moonYml(command: string, deps: readonly string[], inputs: 'src' | 'default'): string {
  return [
    'tasks:',
    '  build:',
    `    command: '${command}'`,
    ...(deps.length > 0 ? [`    deps: [${deps.map((dep) => `'${dep}'`).join(', ')}]`] : []),
    ...(inputs === 'src' ? ["    inputs: ['src/**/*']"] : []),
    "    outputs: ['dist']",
    '',
  ].join('\n');
}

function tree(registry: string, inputs: 'src' | 'default'): Tree {
  return {
    '.npmrc': `registry=${registry}\n`,
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\nupdateNotifier: false\n',
    '.gitignore': 'node_modules\ndist\n.moon/cache\n.lockguard\n',
    '.moon': { 'workspace.yml': "projects:\n  - 'packages/*'\ntelemetry: false\n" },
    'package.json': manifest({ name: 'root', private: true }),
    packages: {
      a: {
        'package.json': manifest({ name: 'a', version: '1.0.0', private: true }),
        'moon.yml': moonYml('node ../../../a-build.cjs', [], inputs),
        src: { 'index.js': "module.exports = 'a';\n" },
      },
      b: {
        'package.json': manifest({
          name: 'b',
          version: '1.0.0',
          private: true,
          dependencies: { a: 'workspace:*', 'is-number': '^6.0.0 || ^7.0.0' },
        }),
        'moon.yml': moonYml('node ../../../b-build.cjs', ['a:build'], inputs),
        src: { 'index.js': "module.exports = 'b';\n" },
      },
    },
  };
}

/** The isolated env, without any MOON_ or PROTO_ setting of the developer's, and moon's telemetry off. */
function moonEnv(base: string): Record<string, string> {
  const bin = toolBin(join(base, 'bin'), { pnpm: 10 });
  writeFileSync(join(bin, 'moon'), `#!/bin/sh\nexec "${process.execPath}" "${MOON}" "$@"\n`, { mode: 0o755 });
  const env = isolatedEnv(base, {
    settings: 'home',
    path: [bin],
    extra: { npm_config_update_notifier: 'false', MOON_TELEMETRY: 'false', NO_COLOR: '1' },
  });
  for (const name of Object.keys(env)) if (/^(MOON|PROTO)_/.test(name) && name !== 'MOON_TELEMETRY') delete env[name];
  return env;
}

/** One installed S0 per variant and inputs per test process (a file's tests copy it: one install per file). */
interface Template {
  readonly dir: string;
  readonly env: Record<string, string>;
}
const templates = new Map<string, Promise<Template>>();

/**
 * What outlives one test: the file's templates, removed (and their registries stopped) after the file's last
 * test. Registered by `moonFile()` at a test file's top level.
 */
const fileHooks: (() => void)[] = [];
const fileScope = {
  after: (fn: () => void) => {
    fileHooks.push(fn);
  },
} as unknown as Pick<TestContext, 'after'>;

/** Call once at a test file's top level: the templates its tests copy are removed after its last test. */
export function moonFile(): void {
  after(() => {
    for (const hook of fileHooks.splice(0)) hook();
  });
}

async function installTemplate(variant: MoonVariant, inputs: 'src' | 'default'): Promise<Template> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `lockguard-moon-${variant}-template-`)));
  fileScope.after(() => rmSync(dir, { recursive: true, force: true }));
  const root = join(dir, 'ws');
  const registry = await startStaticRegistry(fileScope, dir, [
    { name: 'is-number', version: '6.0.0' },
    { name: 'is-number', version: '7.0.0' },
  ]);
  writeTree(root, tree(registry, inputs));
  const env = moonEnv(dir);
  const sh = shellIn(root, env, STEP_TIMEOUT_MS);
  check(sh(['pnpm', 'install']), 'pnpm install');
  commitS0(sh);
  return { dir, env };
}

/**
 * The moon scenario at S0 (is-number 7.0.0 for b), committed to git, and armed: the file's template workspace
 * copied (`cp -a`, links and all) into this test's temp folder. HOME, the pnpm store and the registry are the
 * template's (shared by the file's tests, which run one at a time).
 */
export async function moonScenario(
  t: Pick<TestContext, 'after'>,
  variant: MoonVariant,
  options: { inputs?: 'src' | 'default' } = {},
): Promise<MoonScenario> {
  const inputs = options.inputs ?? 'src';
  const id = `${variant}-${inputs}`;
  let pending = templates.get(id);
  if (pending === undefined) templates.set(id, (pending = installTemplate(variant, inputs)));
  const template = await pending;
  const base = tempWorkspace(t, {}, `lockguard-moon-${variant}-`);
  const root = copyInstalled(template.dir, base, ['ws']);
  writeFileSync(join(base, 'a-build.cjs'), aBuild(variant));
  writeFileSync(join(base, 'b-build.cjs'), B_BUILD);
  const env = template.env;
  const sh = shellIn(root, env, STEP_TIMEOUT_MS);
  saveS0(base, root);
  writeFileSync(join(base, 'armed'), '');
  return {
    base,
    root,
    env,
    sh,
    build: () => check(sh(['moon', 'run', ':build']), 'moon run :build'),
    lockguard: (argv) => sh([process.execPath, BIN, ...argv]),
    goBack: (goOptions) => restoreS0(base, root, sh, goOptions),
    out: () => builtIsNumber(root),
    installed: () => installedIsNumber(root),
  };
}

/** The keys of the archives under `.moon/cache/outputs/` (`<hash>.tar.gz`). */
export function archiveKeys(s: MoonScenario): string[] {
  const dir = join(s.root, '.moon', 'cache', 'outputs');
  return (existsSync(dir) ? readdirSync(dir) : [])
    .filter((name) => name.endsWith('.tar.gz'))
    .map((name) => name.slice(0, -'.tar.gz'.length))
    .sort();
}

/** The keys quarantined by any run (under each `.lockguard/quarantine/<run>/entries/moon/`). */
export function quarantinedKeys(s: MoonScenario): string[] {
  return quarantinedKeysOf(s.root, 'moon');
}

/** The hash `states/<project>/build/lastRun.json` names (what moon calls "the previous run"), or undefined. */
export function lastRunHash(s: MoonScenario, project: string): string | undefined {
  try {
    return (
      JSON.parse(readFileSync(join(s.root, '.moon', 'cache', 'states', project, 'build', 'lastRun.json'), 'utf8')) as {
        hash?: string;
      }
    ).hash;
  } catch {
    return undefined;
  }
}
