// Synthetic workspaces shaped like the real ones, for benchmarks beyond the size of the real fixtures: the one
// generator the benches share.
//
// Owns: pnpm's v9 lockfile layout (`pnpmV9Text`: settings, importers with specifier/version pairs, packages
// with resolution/engines, snapshots with dependencies, in pnpm's fixed 2-space layout) from a lockfile
// described in the order it is written; the monorepo graph of the slice benches (`monorepoShape`: grouped
// workspaces, each package on a few later ones, a cycle every 500), which slices-generate.ts writes as
// pnpm-lock.yaml and slices-generate-yarn-bun.ts as yarn.lock and bun.lock; and the fingerprint and run
// benches' workspace (`pnpmLockfileText`, `npmLockfileText` for package-lock.json v3 with workspaces, and
// `writeSyntheticWorkspace`, which writes manifests, projects, lockfile, optional install markers).
// Invariants: deterministic (a seeded generator: the same options give the same bytes, which keeps bench
// numbers comparable across commits); writes only under the folder it is given; sizes up to 1,000 importers
// / 20,000 packages in well under a second.

import { mkdirSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { prng } from '../helpers/prng.js';

/** One importer as pnpm writes it: its path, the group its dependencies are in, [name, specifier, version]s. */
export interface PnpmImporter {
  readonly id: string;
  readonly group: 'dependencies' | 'devDependencies';
  /** In the order written; none writes `{}`. */
  readonly entries: readonly (readonly [string, string, string])[];
}

/** One package: its key (`name@version`), its integrity, whether it has `engines`, its snapshot's [name, version]s. */
export interface PnpmPackage {
  readonly key: string;
  readonly integrity: string;
  readonly engines: boolean;
  readonly deps: readonly (readonly [string, string])[];
}

/** A name as a YAML key: scoped names are quoted, as pnpm writes them. */
export function yamlKey(name: string): string {
  return name.startsWith('@') ? `'${name}'` : name;
}

/** pnpm v9 lockfile text, in the layout pnpm writes (blank lines between entries, 2-space indent). */
export function pnpmV9Text(importers: readonly PnpmImporter[], packages: readonly PnpmPackage[]): string {
  const out: string[] = [
    "lockfileVersion: '9.0'",
    '',
    'settings:',
    '  autoInstallPeers: true',
    '  excludeLinksFromLockfile: false',
    '',
    'importers:',
    '',
  ];
  for (const { id, group, entries } of importers) {
    if (entries.length === 0) out.push(`  ${id}: {}`);
    else out.push(`  ${id}:`, `    ${group}:`);
    for (const [name, specifier, version] of entries)
      out.push(`      ${yamlKey(name)}:`, `        specifier: ${specifier}`, `        version: ${version}`);
    out.push('');
  }
  out.push('packages:', '');
  for (const { key, integrity, engines } of packages) {
    out.push(`  ${yamlKey(key)}:`, `    resolution: {integrity: ${integrity}}`);
    if (engines) out.push("    engines: {node: '>=18'}");
    out.push('');
  }
  out.push('snapshots:', '');
  for (const { key, deps } of packages) {
    if (deps.length === 0) {
      out.push(`  ${yamlKey(key)}: {}`, '');
      continue;
    }
    out.push(`  ${yamlKey(key)}:`, '    dependencies:');
    for (const [name, version] of deps) out.push(`      ${yamlKey(name)}: ${version}`);
    out.push('');
  }
  return out.join('\n');
}

export interface ShapeOptions {
  /** Workspaces, the root included (default 1,000). */
  readonly workspaces?: number;
  /** Distinct external packages (default 20,000). */
  readonly packages?: number;
  readonly seed?: number;
}

/** The slice benches' monorepo; every list of indexes is sorted by package name. */
export interface MonorepoShape {
  readonly names: string[];
  readonly versions: string[];
  readonly deps: number[][];
  /** Per workspace: its folder, package name, external dependencies and maybe a linked workspace. */
  readonly workspaces: { folder: string; name: string; external: number[]; link: number | undefined }[];
  /** The next hash from the seeded sequence: 128 hex digits (a yarn checksum) or 86 base64 ones (an integrity). */
  readonly hash: (kind: 'hex' | 'base64') => string;
}

/** The folder of workspace `p` (0 is the root `.`): 100 to a group. */
export function workspaceFolder(p: number): string {
  return p === 0 ? '.' : `packages/group-${Math.floor(p / 100)}/project-${p}`;
}

/**
 * The slice benches' monorepo (seed 42 by default): each package on up to 4 later ones and every 500th on an
 * earlier one (a cycle); each workspace on 8 to 20 packages of the first half and, every third, another
 * workspace. Hashes come after the graph from the same sequence, in the order `hash` is called.
 */
export function monorepoShape(options: ShapeOptions = {}): MonorepoShape {
  const workspaceCount = options.workspaces ?? 1000;
  const packageCount = options.packages ?? 20_000;
  const next = prng(options.seed ?? 42);
  const pick = (n: number): number => Math.floor(next() * n);
  const names = Array.from({ length: packageCount }, (_, i) => (i % 7 === 0 ? `@scope${i % 50}/pkg-${i}` : `pkg-${i}`));
  const versions = names.map(() => `${1 + pick(9)}.${pick(20)}.${pick(10)}`);
  const byName = (a: number, b: number): number => (names[a] as string).localeCompare(names[b] as string);
  const deps = names.map((_, i) => {
    const out = new Set<number>();
    const count = i < packageCount - 10 ? pick(5) : 0;
    for (let k = 0; k < count; k++) out.add(i + 1 + pick(Math.min(2000, packageCount - i - 1)));
    if (i % 500 === 499 && i >= 10) out.add(i - 10);
    return [...out].sort(byName);
  });
  const workspaces = Array.from({ length: workspaceCount }, (_, p) => {
    const external = new Set<number>();
    // The bound is drawn again each turn: the shape the benches have always measured.
    for (let k = 0; k < 8 + pick(12); k++) external.add(pick(Math.floor(packageCount / 2)));
    return {
      folder: workspaceFolder(p),
      name: p === 0 ? 'bench-root' : `project-${p}`,
      external: [...external].sort(byName),
      link: p > 0 && p % 3 === 0 ? 1 + pick(p - 1 || 1) : undefined,
    };
  });
  const hash = (kind: 'hex' | 'base64'): string => {
    const chars =
      kind === 'hex' ? '0123456789abcdef' : 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    let out = '';
    for (let i = 0; i < (kind === 'hex' ? 128 : 86); i++) out += chars[Math.floor(next() * chars.length)];
    return out;
  };
  return { names, versions, deps, workspaces, hash };
}

// The fingerprint and run benches' workspace: its own graph (seed 1), pnpm or npm.

export interface SyntheticOptions {
  /** Workspace projects (importers besides the root). */
  readonly importers: number;
  /** Distinct external packages in the lockfile. */
  readonly packages: number;
  /** Direct dependencies per project (default 8). */
  readonly depsPerImporter?: number;
  /** Dependencies per package in `snapshots` (default 3). */
  readonly depsPerPackage?: number;
  readonly seed?: number;
}

interface Pkg {
  readonly name: string;
  readonly version: string;
  readonly integrity: string;
  readonly deps: readonly number[];
}

function model(options: SyntheticOptions): { pkgs: Pkg[]; importerDeps: number[][] } {
  const random = prng(options.seed ?? 1);
  const pick = (n: number): number => Math.floor(random() * n);
  const pkgs: Pkg[] = [];
  for (let i = 0; i < options.packages; i++) {
    const scoped = i % 5 === 0;
    const name = scoped ? `@scope${i % 37}/pkg-${i.toString(36)}` : `pkg-${i.toString(36)}`;
    const version = `${1 + pick(20)}.${pick(30)}.${pick(50)}`;
    const integrity = `sha512-${createHash('sha512').update(`${name}@${version}`).digest('base64')}`;
    // Dependencies point at later packages only: an acyclic graph like a real closure.
    const deps: number[] = [];
    const count = i + 1 < options.packages ? (options.depsPerPackage ?? 3) : 0;
    for (let d = 0; d < count; d++) deps.push(i + 1 + pick(Math.max(1, Math.min(options.packages - i - 1, 400))));
    pkgs.push({
      name,
      version,
      integrity,
      deps: [...new Set(deps)].filter((dep) => dep < options.packages).sort((x, y) => x - y),
    });
  }
  const importerDeps: number[][] = [];
  for (let i = 0; i <= options.importers; i++) {
    const deps = new Set<number>();
    for (let d = 0; d < (options.depsPerImporter ?? 8) && options.packages > 0; d++) deps.add(pick(options.packages));
    importerDeps.push([...deps].sort((x, y) => x - y));
  }
  return { pkgs, importerDeps };
}

/** The package name of importer `i` (1-based). */
function projectName(i: number): string {
  return `p${String(i).padStart(4, '0')}`;
}

/** The project path of importer `i` (1-based; 0 is the root `.`). */
export function importerPath(i: number): string {
  return i === 0 ? '.' : `packages/${projectName(i)}`;
}

function compare(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/** pnpm v9 lockfile text for the fingerprint model: the root's devDependencies, each project on its sibling. */
export function pnpmLockfileText(options: SyntheticOptions): string {
  const { pkgs, importerDeps } = model(options);
  const importers = importerDeps.map((deps, i): PnpmImporter => {
    const entries: [string, string, string][] = [];
    for (const index of deps) {
      const pkg = pkgs[index];
      if (pkg !== undefined) entries.push([pkg.name, `^${pkg.version}`, pkg.version]);
    }
    if (i > 1 && deps.length > 0) entries.push([projectName(i - 1), 'workspace:*', `link:../${projectName(i - 1)}`]);
    const group = i === 0 ? 'devDependencies' : 'dependencies';
    return { id: importerPath(i), group, entries: entries.sort(([x], [y]) => compare(x, y)) };
  });
  // pnpm writes packages and snapshots sorted by key.
  const sorted = [...pkgs].sort((x, y) => compare(`${x.name}@${x.version}`, `${y.name}@${y.version}`));
  const packages = sorted.map(
    (pkg): PnpmPackage => ({
      key: `${pkg.name}@${pkg.version}`,
      integrity: pkg.integrity,
      engines: true,
      deps: pkg.deps.flatMap((index) => {
        const dep = pkgs[index];
        return dep === undefined ? [] : [[dep.name, dep.version] as const];
      }),
    }),
  );
  return pnpmV9Text(importers, packages);
}

/** package-lock.json v3 text for an npm workspace (`packages/*`), as npm formats it (2-space JSON). */
export function npmLockfileText(options: SyntheticOptions): string {
  const { pkgs, importerDeps } = model(options);
  const packages: Record<string, unknown> = {
    '': { name: 'synthetic', workspaces: ['packages/*'], devDependencies: depsOf(importerDeps[0] ?? [], pkgs) },
  };
  for (let i = 1; i < importerDeps.length; i++) {
    packages[`node_modules/${projectName(i)}`] = { resolved: importerPath(i), link: true };
  }
  for (const pkg of pkgs) {
    packages[`node_modules/${pkg.name}`] = {
      version: pkg.version,
      resolved: `https://registry.npmjs.org/${pkg.name}/-/${pkg.name.split('/').at(-1)}-${pkg.version}.tgz`,
      integrity: pkg.integrity,
      ...(pkg.deps.length === 0 ? {} : { dependencies: depsOf(pkg.deps, pkgs) }),
    };
  }
  for (let i = 1; i < importerDeps.length; i++) {
    packages[importerPath(i)] = { version: '1.0.0', dependencies: depsOf(importerDeps[i] ?? [], pkgs) };
  }
  return `${JSON.stringify({ name: 'synthetic', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`;
}

function depsOf(indexes: readonly number[], pkgs: readonly Pkg[]): Record<string, string> {
  const deps: Record<string, string> = {};
  for (const index of indexes) {
    const pkg = pkgs[index];
    if (pkg !== undefined) deps[pkg.name] = `^${pkg.version}`;
  }
  return deps;
}

export interface WorkspaceOptions extends SyntheticOptions {
  readonly manager: 'pnpm' | 'npm';
  /** Also write the install-tree markers an install leaves (default false). */
  readonly installed?: boolean;
  /** Write each project's package.json (default true). */
  readonly projects?: boolean;
}

/** Write a synthetic workspace into `root` (created if needed); returns the lockfile's path. */
export function writeSyntheticWorkspace(root: string, options: WorkspaceOptions): string {
  mkdirSync(root, { recursive: true });
  const pnpm = options.manager === 'pnpm';
  writeFileSync(
    join(root, 'package.json'),
    `${JSON.stringify({ name: 'synthetic', private: true, ...(pnpm ? {} : { workspaces: ['packages/*'] }) }, null, 2)}\n`,
  );
  if (pnpm) writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages:\n  - "packages/*"\n');
  if (options.projects !== false) {
    for (let i = 1; i <= options.importers; i++) {
      const dir = join(root, importerPath(i));
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'package.json'),
        `${JSON.stringify({ name: projectName(i), version: '1.0.0' }, null, 2)}\n`,
      );
    }
  }
  const text = pnpm ? pnpmLockfileText(options) : npmLockfileText(options);
  const lockfile = join(root, pnpm ? 'pnpm-lock.yaml' : 'package-lock.json');
  writeFileSync(lockfile, text);
  if (options.installed === true) {
    if (pnpm) {
      mkdirSync(join(root, 'node_modules/.pnpm'), { recursive: true });
      writeFileSync(join(root, 'node_modules/.pnpm/lock.yaml'), text);
      const modules = {
        layoutVersion: 5,
        nodeLinker: 'isolated',
        packageManager: 'pnpm@10.34.8',
        prunedAt: new Date(0).toUTCString(),
        storeDir: '/store/v10',
        virtualStoreDir: '.pnpm',
      };
      writeFileSync(join(root, 'node_modules/.modules.yaml'), `${JSON.stringify(modules, null, 2)}\n`);
    } else {
      mkdirSync(join(root, 'node_modules'), { recursive: true });
      writeFileSync(join(root, 'node_modules/.package-lock.json'), text);
    }
  }
  return lockfile;
}
