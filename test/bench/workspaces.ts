// Real, installed workspaces for the process benchmarks (run.bench.ts, precheck.bench.ts), offline.
//
// Owns: `BenchTools` (isolated env: HOME, XDG_*, pnpm store under the bench's temp folder; a `pnpm` shim
// for pnpm 10 on PATH; the repo's node_modules/.bin for turbo), `turboExample` (a copy of
// examples/turbo-monorepo/, installed, cache warmed) and `wideWorkspace` (18 importers, a few hundred
// local `file:` packages, installed with pnpm 10), and `mustRun` (a setup step that must succeed).
// Invariants: writes only under the folder it is given; no network (local tarballs and folders only,
// pnpm --offline); every subprocess has a timeout.

import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isolatedEnv } from '../helpers/env.js';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const PNPM10 = join(REPO, 'node_modules', 'pnpm10', 'bin', 'pnpm.cjs');

export interface BenchTools {
  /** Environment for every process of the bench: isolated HOME/XDG/store, pnpm 10 and turbo on PATH. */
  readonly env: Record<string, string>;
}

/** Isolated HOME, XDG folders, pnpm store and a `pnpm` (10) shim, all under `base`. */
export function benchTools(base: string): BenchTools {
  mkdirSync(join(base, 'bin'), { recursive: true });
  writeFileSync(join(base, 'bin', 'pnpm'), `#!/bin/sh\nexec "${process.execPath}" "${PNPM10}" "$@"\n`);
  chmodSync(join(base, 'bin', 'pnpm'), 0o755);
  const env = isolatedEnv(base, { path: [join(base, 'bin'), join(REPO, 'node_modules', '.bin')] });
  return { env };
}

/** Run a setup step; it must succeed (a bench on a broken workspace measures nothing). */
export function mustRun(
  argv: readonly string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs = 180_000,
): SpawnSyncReturns<string> {
  const [command, ...args] = argv;
  const result = spawnSync(command ?? 'true', args, { cwd, env, encoding: 'utf8', timeout: timeoutMs });
  if (result.status !== 0)
    throw new Error(
      `${argv.join(' ')} failed (${result.status ?? result.signal ?? result.error?.message}):\n${result.stdout}\n${result.stderr}`,
    );
  return result;
}

/** A copy of examples/turbo-monorepo/, installed with pnpm 10 (frozen, offline), its turbo cache warmed. */
export function turboExample(base: string, tools: BenchTools, extra: Readonly<Record<string, string>> = {}): string {
  const root = join(base, 'turbo-monorepo');
  const source = join(REPO, 'examples', 'turbo-monorepo');
  cpSync(source, root, {
    recursive: true,
    filter: (path) => !/[/\\](node_modules|\.turbo|dist|\.lockguard)$/.test(path),
  });
  for (const [name, text] of Object.entries(extra)) writeFileSync(join(root, name), text);
  mustRun(['pnpm', 'install', '--frozen-lockfile', '--offline'], root, tools.env);
  mustRun(['turbo', 'run', 'build'], root, tools.env);
  return root;
}

export const WIDE = { importers: 18, packages: 300, depsPerImporter: 30 } as const;

/**
 * A pnpm workspace shaped like a large real monorepo: 18 importers, 300 local `file:` packages (each a
 * folder under vendor/), 30 direct dependencies per importer, a no-op root script; installed with pnpm 10.
 */
export function wideWorkspace(base: string, tools: BenchTools): string {
  const root = join(base, 'wide');
  const pad = (n: number, width: number): string => String(n).padStart(width, '0');
  for (let v = 0; v < WIDE.packages; v++) {
    const dir = join(root, 'vendor', `v${pad(v, 3)}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'package.json'),
      `${JSON.stringify({ name: `v${pad(v, 3)}`, version: '1.0.0', main: 'index.js' })}\n`,
    );
    writeFileSync(join(dir, 'index.js'), `module.exports = ${v};\n`);
  }
  for (let i = 1; i <= WIDE.importers; i++) {
    const dependencies: Record<string, string> = {};
    // Every package is someone's dependency; neighbours overlap, as shared libraries do.
    for (let d = 0; d < WIDE.depsPerImporter; d++) {
      const v = ((i - 1) * 17 + d) % WIDE.packages;
      dependencies[`v${pad(v, 3)}`] = `file:../../vendor/v${pad(v, 3)}`;
    }
    if (i > 1) dependencies[`p${pad(i - 1, 2)}`] = 'workspace:*';
    const dir = join(root, 'packages', `p${pad(i, 2)}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'package.json'),
      `${JSON.stringify({ name: `p${pad(i, 2)}`, version: '1.0.0', dependencies }, null, 2)}\n`,
    );
  }
  writeFileSync(
    join(root, 'package.json'),
    `${JSON.stringify({ name: 'wide', private: true, scripts: { noop: 'true' } }, null, 2)}\n`,
  );
  writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages:\n  - "packages/*"\nupdateNotifier: false\n');
  // Manifests an hour old: pnpm's verifyDepsBeforeRun then takes its fast path (no manifest newer than its
  // last check; whole-second mtimes of the install's own second would count as possibly modified).
  const past = new Date(Date.now() - 3_600_000);
  utimesSync(join(root, 'package.json'), past, past);
  for (let i = 1; i <= WIDE.importers; i++)
    utimesSync(join(root, 'packages', `p${pad(i, 2)}`, 'package.json'), past, past);
  mustRun(['pnpm', 'install', '--offline'], root, tools.env);
  return root;
}
