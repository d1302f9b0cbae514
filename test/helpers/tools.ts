// The real package managers for end-to-end tests, an isolated offline environment, and local packages.
//
// Owns: absolute paths to the pinned pnpm 10 / pnpm 12, yarn 4 (@yarnpkg/cli-dist), yarn 1 and bun in this
// repo's node_modules and the pinned npm (their environment: env.ts isolatedEnv), and pnpm 10/12 linked into a
// workspace's node_modules/.bin (`linkPnpmBin`);
// `packTarballs` (tiny local packages packed with `npm pack`, so every install works with no network).
// Invariants: importing this module resolves nothing (bun's binary is looked for on first use, `BUN.command`);
// every subprocess has a timeout (a hang fails the test, never the suite); nothing here
// writes outside the temp dirs it is given; nothing reaches a registry (offline, registry on a dead port).

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repo checkout (this file runs from dist/test/helpers/). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export type ToolName = 'pnpm10' | 'pnpm12' | 'npm' | 'yarn' | 'yarn1' | 'bun';

export interface Tool {
  readonly name: ToolName;
  /** The executable to spawn. */
  readonly command: string;
  /** Arguments that come before the tool's own (the script, for a JS entry point). */
  readonly prefix: readonly string[];
}

export const PNPM10: Tool = {
  name: 'pnpm10',
  command: process.execPath,
  prefix: [join(REPO_ROOT, 'node_modules/pnpm10/bin/pnpm.cjs')],
};
export const PNPM12: Tool = { name: 'pnpm12', command: join(REPO_ROOT, 'node_modules/pnpm12/pnpm'), prefix: [] };
/** The npm pinned in devDependencies (what `npm` on a test's PATH is too: env.ts NPM_BIN). */
export const NPM: Tool = {
  name: 'npm',
  command: process.execPath,
  prefix: [join(REPO_ROOT, 'node_modules/npm/bin/npm-cli.js')],
};
/** yarn 4 (berry), run through node as its single-file release. */
export const YARN: Tool = {
  name: 'yarn',
  command: process.execPath,
  prefix: [join(REPO_ROOT, 'node_modules/@yarnpkg/cli-dist/bin/yarn.js')],
};
/** yarn 1.22.22 (classic), the last v1. */
export const YARN1: Tool = {
  name: 'yarn1',
  command: process.execPath,
  prefix: [join(REPO_ROOT, 'node_modules/yarn1/bin/yarn.js')],
};
/**
 * bun, its binary found on first use (`BUN.command`), not when this module loads: a test file that imports
 * these helpers but runs no bun loads where bun is not installed.
 */
export const BUN: Tool = {
  name: 'bun',
  get command(): string {
    bunPath ??= bunBinary();
    return bunPath;
  },
  prefix: [],
};
let bunPath: string | undefined;

/** The pinned pnpm 10 or 12 linked as `<root>/node_modules/.bin/pnpm` (what a root script and lockguard find first); its path. */
export function linkPnpmBin(root: string, tool: 'pnpm10' | 'pnpm12'): string {
  const bin = join(root, 'node_modules', '.bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(tool === 'pnpm10' ? (PNPM10.prefix[0] as string) : PNPM12.command, join(bin, 'pnpm'));
  return join(bin, 'pnpm');
}

/**
 * The bun binary from the npm package. Its postinstall moves the platform package's binary over the
 * placeholder node_modules/bun/bin/bun.exe; where install scripts did not run (npm ci --ignore-scripts, an
 * allowScripts policy), the binary is still in @oven/bun-<platform>-<arch>/bin/bun. A file under 1 MB is
 * the placeholder (a shell script that says the postinstall did not run).
 */
export function bunBinary(): string {
  const arch = process.arch === 'arm64' ? 'aarch64' : process.arch;
  const candidates = [
    join(REPO_ROOT, 'node_modules/bun/bin/bun.exe'),
    ...['', '-baseline', '-musl', '-musl-baseline'].map((variant) =>
      join(REPO_ROOT, `node_modules/@oven/bun-${process.platform}-${arch}${variant}/bin/bun`),
    ),
  ];
  for (const candidate of candidates) {
    try {
      if (statSync(candidate).size > 1_000_000) return candidate;
    } catch {
      // Not installed here; try the next.
    }
  }
  throw new Error(`no bun binary in node_modules (looked at ${candidates.join(', ')}): run npm ci`);
}

export interface ToolResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The flags that make a tool offline and point pnpm at the store, where the tool takes them as flags. */
function offlineFlags(tool: Tool, env: Record<string, string>): string[] {
  if (tool.name === 'npm' || tool.name === 'yarn1') return ['--offline'];
  // yarn berry is offline through YARN_ENABLE_NETWORK; bun installs only file: tarballs here.
  if (tool.name === 'yarn' || tool.name === 'bun') return [];
  return ['--offline', '--store-dir', env['npm_config_store_dir'] ?? ''];
}

/** Run a package manager (offline) in `cwd`; a hang past `timeoutMs` is a failed result, not a stuck test. */
export function runTool(
  tool: Tool,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs = 90_000,
): ToolResult {
  const result = spawnSync(tool.command, [...tool.prefix, ...args, ...offlineFlags(tool, env)], {
    cwd,
    env,
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  const timedOut = result.error !== undefined ? `\n(${result.error.message})` : '';
  return { code: result.status ?? -1, stdout: result.stdout ?? '', stderr: `${result.stderr ?? ''}${timedOut}` };
}

/** runTool, throwing with the tool's output when it fails (setup steps, not the behaviour under test). */
export function mustRun(tool: Tool, args: readonly string[], cwd: string, env: Record<string, string>): ToolResult {
  const result = runTool(tool, args, cwd, env);
  if (result.code !== 0) {
    throw new Error(
      `${tool.name} ${args.join(' ')} failed with ${result.code} in ${cwd}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result;
}

export interface LocalPackage {
  readonly name: string;
  readonly version: string;
}

/**
 * Write each package (a package.json and an index.js exporting its version) under `<dir>/src/` and pack
 * them all with one `npm pack` into `dir`. Returns the tarball paths, in order (`<name>-<version>.tgz`).
 */
export function packTarballs(dir: string, packages: readonly LocalPackage[], env: Record<string, string>): string[] {
  const sources = packages.map(({ name, version }) => {
    const src = join(dir, 'src', `${name}-${version}`);
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, 'package.json'), `${JSON.stringify({ name, version, main: 'index.js' }, null, 2)}\n`);
    writeFileSync(join(src, 'index.js'), `module.exports = ${JSON.stringify(version)};\n`);
    return src;
  });
  mustRun(NPM, ['pack', ...sources, '--pack-destination', dir], dir, env);
  return packages.map(({ name, version }) => join(dir, `${name}-${version}.tgz`));
}

/** One local package packed to `<dir>/<name>-<version>.tgz`. */
export function localPackage(dir: string, name: string, version: string, env: Record<string, string>): string {
  const [tarball] = packTarballs(dir, [{ name, version }], env);
  if (tarball === undefined) throw new Error('npm pack produced nothing');
  return tarball;
}

/** Copy a workspace to `into`, leaving out installed trees and lockguard's ledger (a fresh clone). */
export function cloneWorkspace(from: string, into: string): void {
  cpSync(from, into, {
    recursive: true,
    filter: (source) => !/[\\/](node_modules|\.lockguard)([\\/]|$)/.test(source.slice(from.length)),
  });
}
