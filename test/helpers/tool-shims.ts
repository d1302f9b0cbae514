// The pieces an end-to-end workspace with the real tools is built from, shared by the poisoning scenario
// (scenario-workspace.ts, runner-scenario.ts) and the e2e tests that build their own workspace (sound-keys,
// slice-files).
//
// Owns: the tools on PATH by name (`toolBin`: one `bin/` folder of shims for the pinned pnpm 10 or 12, yarn,
// nx, turbo, bun and lockguard), a command run in the workspace with a step timeout (`shellIn`) and its
// check (`check`), a one-module package tarball (`packTarball`), git in a folder (`git`), S0 as a git commit
// (`commitS0`), a test file's installed templates (`fileTemplates`) and one copied for a test (`copyInstalled`).
// Invariants: every path it writes is under the folders it is given; the shims name this repo's pinned
// devDependencies (never a tool from the machine's PATH), by absolute path.

import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, type TestContext } from 'node:test';
import { bunBinary, PNPM10, PNPM12, REPO_ROOT, YARN } from './tools.js';
import { writeTree } from './workspace.js';

const MODULES = join(REPO_ROOT, 'node_modules');
/** A tool as one line of sh: its command and prefix, quoted, then the shim's arguments. */
const exec = (command: string, prefix: readonly string[]): string =>
  `exec ${[command, ...prefix].map((word) => `"${word}"`).join(' ')} "$@"`;

/** The pnpm a `bin/pnpm` shim runs: 10 (10.34.8), 12 (12.4.2) or '12.21' (12.21.0, the remote task cache). */
export type PnpmShim = 10 | 12 | '12.21';

export interface ToolBin {
  readonly pnpm?: PnpmShim;
  /** yarn berry (the pinned @yarnpkg/cli-dist). */
  readonly yarn?: boolean;
  /** The nx package folder the `nx` shim runs (its package.json names the bin). */
  readonly nx?: string;
  /** A folder of this repo's node_modules holding turbo (`turbo`, `turbo20`, …). */
  readonly turbo?: string;
  readonly bun?: boolean;
  /** The lockguard bin the `lockguard` shim runs (the built one: helpers/cli.ts `BIN`). */
  readonly lockguard?: string;
}

function shim(bin: string, name: string, line: string): void {
  writeFileSync(join(bin, name), `#!/bin/sh\n${line}\n`);
  chmodSync(join(bin, name), 0o755);
}

/** Write `bin` (created if needed) with the shims `tools` asks for; returns `bin`. */
export function toolBin(bin: string, tools: ToolBin): string {
  mkdirSync(bin, { recursive: true });
  if (tools.pnpm === 10) shim(bin, 'pnpm', exec(PNPM10.command, PNPM10.prefix));
  else if (tools.pnpm === 12) shim(bin, 'pnpm', exec(PNPM12.command, PNPM12.prefix));
  else if (tools.pnpm === '12.21') shim(bin, 'pnpm', exec(join(MODULES, 'pnpm1221', 'pnpm'), []));
  if (tools.yarn === true) shim(bin, 'yarn', exec(YARN.command, YARN.prefix));
  if (tools.nx !== undefined) {
    const manifest = JSON.parse(readFileSync(join(tools.nx, 'package.json'), 'utf8')) as { bin: { nx: string } };
    shim(bin, 'nx', exec(process.execPath, [join(tools.nx, manifest.bin.nx)]));
  }
  if (tools.turbo !== undefined) symlinkSync(join(MODULES, tools.turbo, 'bin', 'turbo'), join(bin, 'turbo'));
  if (tools.bun === true) symlinkSync(bunBinary(), join(bin, 'bun'));
  if (tools.lockguard !== undefined) shim(bin, 'lockguard', exec(process.execPath, [tools.lockguard]));
  return bin;
}

/** `result` when it exited 0; otherwise an error naming `what`, with its exit and output. */
export function check(result: SpawnSyncReturns<string>, what: string): SpawnSyncReturns<string> {
  if (result.status !== 0)
    throw new Error(`${what} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** Templates installed once per test file (`fileTemplates`): made on first ask, removed after the file's last test. */
export interface FileTemplates<K, V> {
  /** The template for `key`, made by `make` on first ask; what `make` registers with `after` runs after the file. */
  get(key: K, make: (scope: Pick<TestContext, 'after'>) => V): V;
}

/** Call at a test file's top level (through a helper's `install…OncePerFile`): its templates and their cleanups. */
export function fileTemplates<K, V>(): FileTemplates<K, V> {
  const templates = new Map<K, V>();
  const cleanups: (() => unknown)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    templates.clear();
  });
  const scope = { after: (fn: () => unknown) => void cleanups.push(fn) } as unknown as Pick<TestContext, 'after'>;
  return {
    get(key, make) {
      let template = templates.get(key);
      if (template === undefined) {
        template = make(scope);
        templates.set(key, template);
      }
      return template;
    },
  };
}

/**
 * A test's private copy of an installed template: each of `names` (files or folders under `from`, links and all:
 * `cp -a`) into `to`. When `root` names the template's workspace (`from/<root>`, copied to `to/<root>`), pnpm's
 * workspace state, which names the projects by absolute path, is re-pointed at the copy, as an install there
 * writes it. Returns the copy's workspace path (`to/<root>`).
 */
export function copyInstalled(from: string, to: string, names: readonly string[], root = 'ws'): string {
  for (const name of names)
    check(
      spawnSync('cp', ['-a', join(from, name), join(to, name)], { encoding: 'utf8', timeout: 120_000 }),
      `cp -a ${name}`,
    );
  const copy = join(to, root);
  const state = join(copy, 'node_modules', '.pnpm-workspace-state-v1.json');
  if (existsSync(state))
    writeFileSync(state, readFileSync(state, 'utf8').replaceAll(`"${join(from, root)}`, `"${copy}`));
  return copy;
}

/** Run argv in `cwd` with `env`, for at most `timeoutMs`. */
export function shellIn(
  cwd: string,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
): (argv: readonly string[]) => SpawnSyncReturns<string> {
  return (argv) => {
    const [command = 'true', ...args] = argv;
    return spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs });
  };
}

/**
 * Pack a one-module package (`package.json` with `main: index.js`, and `index` as index.js) from
 * `<src>/package` into the tarball `file` (its folder created); `src` is left in place.
 */
export function packTarball(
  file: string,
  src: string,
  manifest: { name: string; version: string },
  index: string,
): void {
  writeTree(join(src, 'package'), {
    'package.json': JSON.stringify({ ...manifest, main: 'index.js' }),
    'index.js': index,
  });
  mkdirSync(join(file, '..'), { recursive: true });
  check(spawnSync('tar', ['-czf', file, '-C', src, 'package'], { encoding: 'utf8', timeout: 10_000 }), 'tar');
}

/** `git <args>` in `root` as user t (a commit needs no config), which must exit 0. */
export function git(root: string, ...args: string[]): void {
  const result = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(result.status, 0, result.stderr);
}

/** Make the workspace a git repository whose one commit, S0, holds every file (.gitignore aside). */
export function commitS0(sh: (argv: readonly string[]) => SpawnSyncReturns<string>): void {
  check(sh(['git', 'init', '-q', '.']), 'git init');
  check(sh(['git', 'add', '-A']), 'git add');
  check(sh(['git', '-c', 'user.name=t', '-c', 'user.email=t@lockguard.invalid', 'commit', '-qm', 'S0']), 'git commit');
}
