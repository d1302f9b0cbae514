// turbo's native binary, found as turbo's own launcher finds it: a plan's dry run and a guarded run start
// one process, not two.
//
// Owns: `turboNative(file, root, env)` and `directTurboStart(argv, cwd, env)`. `node_modules/.bin/turbo`
// is turbo's Node launcher (`turbo/bin/turbo`, turbo 2.11.11; installed by pnpm, `.bin/turbo` is a shell
// shim that sets NODE_PATH and starts the launcher with node: package-managers/pnpm-bin-shim.ts). The
// launcher starts Node (about as long as a whole warm `turbo run build`) only to spawn the platform binary
// with the same argv. Its own rules, read from that file: `TURBO_BINARY_PATH` when set and present; else
// `@turbo/<platform>-<arch>/bin/turbo[.exe]`, then the legacy `turbo-<platform>-<arch>/bin/turbo[.exe]`,
// resolved from the launcher's folder (platform `windows` for win32, `linux` for android; arch `64` for
// x64); a launcher before 2.8.18 differs (olderLauncher) and runs as given. It spawns the binary with stdio inherited and its env (a shim's NODE_PATH included) plus
// `__TURBO_NPM_WRAPPER=1` (turbo then counts a SIGTERM or SIGHUP that reaches it from the process group and
// again from the wrapper as one), forwards SIGTERM and SIGHUP, leaves SIGINT to the process group (on POSIX
// it forwards nothing on SIGINT), and ends as the binary ended. A guarded run does exactly that in the
// launcher's place.
// Invariants: answers only when `file` resolves (as the spawn would: `<root>/node_modules/.bin` first, then
// PATH) to the launcher of turbo 2 (the version whose launcher was read) and the binary the launcher would
// pick exists; anything else (another turbo, another major version, a missing platform package, which the
// launcher would try to install, an unsupported platform, Windows' PATHEXT rules and its Ctrl-C pipe) is
// undefined, and the caller runs `file` as given. Reads a few stats, one package.json and at most one shim.

import type { Env } from '../../../core/env.js';
import { nodeModule } from '../../../core/lazy-builtins.js';
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { isExecutable, pathDirs } from '../../package-managers/on-path.js';
import { readPnpmBinShim, shimNodePath } from '../../package-managers/pnpm-bin-shim.js';
import { readConfigText } from '../../../core/bounded-read.js';

/** Where a spawn of `file` with `env`'s PATH (`<root>/node_modules/.bin` already first) finds it. */
function onPath(file: string, root: string, env: Env): string | undefined {
  if (file.includes('/')) return isAbsolute(file) ? file : resolve(root, file);
  for (const dir of pathDirs(env)) {
    const candidate = join(resolve(root, dir), file);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** The version when `launcher` (a real path) is `bin/turbo` of the `turbo` 2 package, else undefined. */
function turboLauncherVersion(launcher: string): string | undefined {
  if (basename(launcher) !== 'turbo' || basename(dirname(launcher)) !== 'bin') return undefined;
  try {
    const manifest = JSON.parse(readConfigText(join(dirname(dirname(launcher)), 'package.json')) ?? '') as {
      name?: unknown;
      version?: unknown;
      bin?: unknown;
    };
    const bin = manifest.bin as Record<string, unknown> | undefined;
    const version = typeof manifest.version === 'string' ? manifest.version : undefined;
    const ok =
      manifest.name === 'turbo' &&
      version?.split('.')[0] === '2' &&
      typeof bin === 'object' &&
      bin !== null &&
      (bin['turbo'] === './bin/turbo' || bin['turbo'] === 'bin/turbo');
    return ok ? version : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True for a launcher older than 2.8.18 (read from 2.0.14's and 2.5.8's): it looks for the legacy
 * `turbo-<platform>-<arch>` package only, runs the binary with `execFileSync` (no `__TURBO_NPM_WRAPPER`, no
 * signal forwarding). Its start is not the one this module imitates, so such a launcher runs as given (and
 * where both platform packages are installed, it is never handed the newer binary).
 */
function olderLauncher(version: string): boolean {
  const [, minor = 0, patch = 0] = version.split(/[.-]/).map(Number);
  return minor < 8 || (minor === 8 && patch < 18);
}

/** The launcher's platform and arch words, or undefined where it supports neither. */
function platformWords(): { platform: string; arch: string } | undefined {
  const platform =
    process.platform === 'win32' ? 'windows' : process.platform === 'android' ? 'linux' : process.platform;
  const arch = process.arch === 'x64' ? '64' : process.arch;
  return ['darwin', 'linux', 'windows'].includes(platform) && ['64', 'arm64'].includes(arch)
    ? { platform, arch }
    : undefined;
}

/** The binary turbo's launcher would start, and what its start adds to the environment. */
export interface TurboNative {
  readonly binary: string;
  /** The launcher's `__TURBO_NPM_WRAPPER=1`, and NODE_PATH as a pnpm shim in front of the launcher sets it. */
  readonly env: Readonly<Record<string, string>>;
}

/** What `file` is here, for doctor's words: where it was found, and turbo 2's launcher version when it is one. */
export interface TurboFound {
  readonly path: string | undefined;
  readonly launcherVersion: string | undefined;
  /** A launcher older than 2.8.18 (it runs as given). */
  readonly older: boolean;
}

function launcherOf(file: string, root: string, env: Env) {
  const found = onPath(file, root, env);
  if (found === undefined) return undefined;
  // pnpm's node_modules/.bin/turbo is a shell script that sets NODE_PATH and starts the launcher with node
  // (read only for a command named turbo: the plan's other runners pay nothing for it).
  const shim = basename(found) === 'turbo' ? readPnpmBinShim(found) : undefined;
  try {
    const launcher = realpathSync(shim?.target ?? found);
    return { found, shim, launcher, version: turboLauncherVersion(launcher) };
  } catch {
    return { found, shim, launcher: undefined, version: undefined };
  }
}

/** Where `file` resolves here and which turbo 2 launcher it is, if one (doctor says what is true of it). */
export function turboFound(file: string, root: string, env: Env): TurboFound {
  const at = launcherOf(file, root, env);
  const version = at?.version;
  return { path: at?.found, launcherVersion: version, older: version !== undefined && olderLauncher(version) };
}

/** The binary the launcher that `file` names would start (directly, or through pnpm's .bin shim), or undefined (run `file` itself). */
export function turboNative(file: string, root: string, env: Env): TurboNative | undefined {
  if (process.platform === 'win32') return undefined;
  const at = launcherOf(file, root, env);
  if (at?.launcher === undefined) return undefined;
  const { shim, launcher } = at;
  const version = at.version;
  if (version === undefined || olderLauncher(version)) return undefined;
  const binary = binaryOf(launcher, root, env);
  if (binary === undefined) return undefined;
  const nodePath = shim === undefined ? undefined : shimNodePath(shim, env['NODE_PATH']);
  return { binary, env: { ...(nodePath === undefined ? {} : { NODE_PATH: nodePath }), __TURBO_NPM_WRAPPER: '1' } };
}

/** The binary path by the launcher's own rules: TURBO_BINARY_PATH, then the platform packages. */
function binaryOf(launcher: string, root: string, env: Env): string | undefined {
  const configured = env['TURBO_BINARY_PATH'];
  if (configured !== undefined && configured !== '')
    return existsSync(resolve(root, configured)) ? resolve(root, configured) : undefined;
  const words = platformWords();
  if (words === undefined) return undefined;
  const require = nodeModule().createRequire(launcher);
  for (const candidate of [
    `@turbo/${words.platform}-${words.arch}/bin/turbo`,
    `turbo-${words.platform}-${words.arch}/bin/turbo`,
  ]) {
    try {
      return require.resolve(candidate);
    } catch {
      // Not this name: the launcher tries the next.
    }
  }
  return undefined;
}

/** How a guarded run starts `argv` in the launcher's place: the binary, the launcher's env marker, the signals it forwards. */
export interface DirectStart {
  readonly argv: readonly string[];
  readonly env: Env;
  /** The signals the launcher forwards to the binary (SIGINT reaches turbo from the process group only). */
  readonly forward: readonly NodeJS.Signals[];
}

/** `argv` started as turbo's launcher would start it (its native binary), or undefined: run `argv` as given. */
export function directTurboStart(argv: readonly string[], cwd: string, env: Env): DirectStart | undefined {
  const [file, ...args] = argv;
  // Only a command named turbo can be its launcher: nothing else pays for the PATH lookup.
  if (file === undefined || basename(file) !== 'turbo') return undefined;
  const native = turboNative(file, cwd, env);
  if (native === undefined) return undefined;
  return { argv: [native.binary, ...args], env: { ...env, ...native.env }, forward: ['SIGTERM', 'SIGHUP'] };
}
