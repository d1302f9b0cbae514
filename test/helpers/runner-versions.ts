// The runner versions the suite installs (pinned devDependencies, most as npm aliases) and how a test
// workspace gets one of them, offline.
//
// Owns: `NX_PACKAGES` / `TURBO_PACKAGES` / `PNPM_1221` (folders in this repo's node_modules; `installed` reads the version each holds:
// the README's "Supported runner versions" table is proved on exactly these) and `nxInstallation(pkg, into)`.
// Why a copy for nx: nx's bin treats itself as the workspace's local nx only when `nx` resolved from three
// folders above its own (real) path is itself, and nx requires itself by name (`nx/src/...`); an aliased
// `node_modules/nx22` fails both (the bin hands off to itself and exits 0 having run nothing; `nx/...`
// resolves to the top-level nx 24). So the alias is copied to `<into>/node_modules/nx`, and every other
// name that `<into>/node_modules` needs is a symlink: the alias's nested packages first (its own
// `@nx/nx-linux-x64-gnu` at the matching version), then this repo's top-level packages.
// Invariants: reads the repo's node_modules, writes only under `into` (a test's temp dir); no network.

import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MODULES = fileURLToPath(new URL('../../../node_modules/', import.meta.url));

export interface RunnerVersion {
  /** The folder in this repo's node_modules (`nx22` = the `npm:nx@22.6.3` alias). */
  readonly pkg: string;
  readonly version: string;
}

/** The version installed under `node_modules/<pkg>` (read when asked: a scenario needs only its own runner). */
export function installed(pkg: string): RunnerVersion {
  const manifest = JSON.parse(readFileSync(join(MODULES, pkg, 'package.json'), 'utf8')) as { version: string };
  return { pkg, version: manifest.version };
}

/** nx 20 to 24, one pinned version each (package.json devDependencies). */
export const NX_PACKAGES: readonly string[] = ['nx20', 'nx21', 'nx22', 'nx23', 'nx'];
/** turbo 2.0, 2.5 and 2.11 (the launcher of 2.0 and 2.5 finds `turbo-linux-64`, 2.11's `@turbo/linux-64`). */
export const TURBO_PACKAGES: readonly string[] = ['turbo20', 'turbo25', 'turbo'];
/** pnpm 12.21.0 (the standalone exe) for the pipeline; 12.4.2 (`pnpm12`) is the scenario's default. */
export const PNPM_1221 = 'pnpm1221';

/** Symlink every package of `from` (a node_modules folder) into `into` that is not there yet (scopes merged). */
function linkPackages(from: string, into: string): void {
  for (const name of readdirSync(from)) {
    if (name.startsWith('.')) continue;
    const source = join(from, name);
    const target = join(into, name);
    if (name.startsWith('@') && lstatSync(source).isDirectory()) {
      mkdirSync(target, { recursive: true });
      linkPackages(source, target);
    } else if (!existsSync(target)) {
      symlinkSync(source, target);
    }
  }
}

/**
 * `<into>/node_modules/nx`: a real copy of the aliased nx `pkg`, with its dependencies reachable as a
 * normal install has them. Returns the copy's folder (a workspace's `nx: link:<that>`).
 */
export function nxInstallation(pkg: string, into: string): string {
  const modules = join(into, 'node_modules');
  const nx = join(modules, 'nx');
  const own = join(MODULES, pkg);
  mkdirSync(modules, { recursive: true });
  cpSync(own, nx, { recursive: true, filter: (source) => source !== join(own, 'node_modules') });
  if (existsSync(join(own, 'node_modules'))) linkPackages(join(own, 'node_modules'), modules);
  linkPackages(MODULES, modules);
  return nx;
}
