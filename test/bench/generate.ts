// Synthetic workspaces shaped like the real ones, for benchmarks beyond the size of the real fixtures.
//
// Owns: `pnpmLockfileText` (pnpm v9 lockfile text in pnpm's fixed 2-space layout: settings, importers with
// specifier/version pairs, packages with resolution/engines, snapshots with dependencies),
// `npmLockfileText` (package-lock.json v3 with workspaces), and `writeSyntheticWorkspace`, which writes a
// whole workspace (manifests, projects, lockfile, optional install markers).
// Invariants: deterministic (a seeded generator: the same options give the same bytes); writes only
// under the folder it is given; sizes up to 1,000 importers / 20,000 packages in well under a second.

import { mkdirSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { prng } from '../helpers/prng.js';

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

/** The project path of importer `i` (1-based; 0 is the root `.`). */
export function importerPath(i: number): string {
  return i === 0 ? '.' : `packages/p${String(i).padStart(4, '0')}`;
}

function compare(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

function yamlKey(name: string): string {
  return name.startsWith('@') ? `'${name}'` : name;
}

/** pnpm v9 lockfile text, in the layout pnpm writes (blank lines between entries, 2-space indent). */
export function pnpmLockfileText(options: SyntheticOptions): string {
  const { pkgs, importerDeps } = model(options);
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
  importerDeps.forEach((deps, i) => {
    out.push(`  ${importerPath(i)}:`);
    if (deps.length === 0) {
      out[out.length - 1] += ' {}';
    } else {
      out.push(i === 0 ? '    devDependencies:' : '    dependencies:');
      const entries: [string, string, string][] = [];
      for (const index of deps) {
        const pkg = pkgs[index];
        if (pkg !== undefined) entries.push([pkg.name, `^${pkg.version}`, pkg.version]);
      }
      const sibling = `p${String(i - 1).padStart(4, '0')}`;
      if (i > 1) entries.push([sibling, 'workspace:*', `link:../${sibling}`]);
      for (const [name, specifier, version] of entries.sort(([x], [y]) => compare(x, y))) {
        out.push(`      ${yamlKey(name)}:`, `        specifier: ${specifier}`, `        version: ${version}`);
      }
    }
    out.push('');
  });
  // pnpm writes packages and snapshots sorted by key.
  const sorted = [...pkgs].sort((x, y) => compare(`${x.name}@${x.version}`, `${y.name}@${y.version}`));
  out.push('packages:', '');
  for (const pkg of sorted) {
    out.push(
      `  ${yamlKey(`${pkg.name}@${pkg.version}`)}:`,
      `    resolution: {integrity: ${pkg.integrity}}`,
      "    engines: {node: '>=18'}",
      '',
    );
  }
  out.push('snapshots:', '');
  for (const pkg of sorted) {
    const key = yamlKey(`${pkg.name}@${pkg.version}`);
    if (pkg.deps.length === 0) {
      out.push(`  ${key}: {}`, '');
      continue;
    }
    out.push(`  ${key}:`, '    dependencies:');
    for (const index of pkg.deps) {
      const dep = pkgs[index];
      if (dep !== undefined) out.push(`      ${yamlKey(dep.name)}: ${dep.version}`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** package-lock.json v3 text for an npm workspace (`packages/*`), as npm formats it (2-space JSON). */
export function npmLockfileText(options: SyntheticOptions): string {
  const { pkgs, importerDeps } = model(options);
  const packages: Record<string, unknown> = {
    '': { name: 'synthetic', workspaces: ['packages/*'], devDependencies: depsOf(importerDeps[0] ?? [], pkgs) },
  };
  for (let i = 1; i < importerDeps.length; i++) {
    const name = `p${String(i).padStart(4, '0')}`;
    packages[`node_modules/${name}`] = { resolved: importerPath(i), link: true };
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
        `${JSON.stringify({ name: `p${String(i).padStart(4, '0')}`, version: '1.0.0' }, null, 2)}\n`,
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
