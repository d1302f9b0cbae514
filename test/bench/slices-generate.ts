// A synthetic pnpm v9 lockfile at monorepo scale (default: 1,000 importers, 20,000 packages), following the
// real fixtures' layout: importers with specifier/version pairs and workspace links, `packages` entries
// with integrity, `snapshots` with dependencies (a few cycles).
//
// The graph is generate.ts's `monorepoShape` (the one yarn berry's and bun's synthetic lockfiles share), the
// layout its `pnpmV9Text`. Deterministic for a seed; writes nothing itself (the caller writes the text where
// it wants).

import { monorepoShape, pnpmV9Text, workspaceFolder, type PnpmImporter, type PnpmPackage } from './generate.js';

export interface GenerateOptions {
  readonly importers?: number;
  readonly packages?: number;
  readonly seed?: number;
}

export function generateLockfile(options: GenerateOptions = {}): string {
  const { names, versions, deps, workspaces, hash } = monorepoShape({
    workspaces: options.importers ?? 1000,
    packages: options.packages ?? 20_000,
    seed: options.seed ?? 42,
  });
  // Every importer lists its dependencies (the root too); a workspace link comes first.
  const importers = workspaces.map(({ folder, external, link }): PnpmImporter => {
    const entries: [string, string, string][] = [];
    if (link !== undefined)
      entries.push([
        `project-${link}`,
        'workspace:*',
        `link:${workspaceFolder(link).replace(/^packages\//, '../../')}`,
      ]);
    for (const i of external) entries.push([names[i] as string, `^${versions[i]}`, versions[i] as string]);
    return { id: folder, group: 'dependencies', entries };
  });
  const keyOf = (i: number): string => `${names[i]}@${versions[i]}`;
  const order = names.map((_, i) => i).sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  // The integrities are drawn in the order the packages are written.
  const packages = order.map(
    (i): PnpmPackage => ({
      key: keyOf(i),
      integrity: `sha512-${hash('base64')}==`,
      engines: i % 11 === 0,
      deps: (deps[i] as number[]).map((d) => [names[d] as string, versions[d] as string] as const),
    }),
  );
  return pnpmV9Text(importers, packages);
}
