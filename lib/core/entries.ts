// Which files the fingerprint table holds, and in which scope.
//
// Owns: the entries' kinds and scopes (each package manager's own list is its adapter's, package-managers/<pm>/;
// registry.ts `baseEntries` filters it by scope), the patch files a lockfile
// or workspace manifest names, and the normalization of install markers that carry volatile fields.
// Invariants: entries never leave the workspace root (the watch's promise 5, lib/README.md: a file outside it is not watched),
// but for the install markers of a `node_modules` folder above it (`ancestor-marker`: Node resolves a name a
// project's own node_modules lacks from every ancestor's, issue 29), which are watched and never keyed; hoisted
// links and `.pnpm-workspace-state-v1.json` are never entries (they change on every install).
// yarn is one manager for berry (2+) and classic (v1): each flavour's files are absent in the other's
// workspace, and an absent entry costs one lstat. Measured with yarn 4.18.1, yarn 1.22.22 and bun 1.4.5
// (no-op, frozen/immutable, fresh and `add` installs): `.yarn/install-state.gz` is volatile (its Maps'
// order varies between installs of one lockfile) and is no entry; `.pnp.cjs`, `.yarn-state.yml` and
// `.yarn-integrity` are byte-identical across installs of one lockfile; bun writes no marker.

import { posix } from 'node:path';
import { plainJson } from './digest.js';

/** inputs: what an install reads. full: inputs plus the install-tree markers. */
export type Scope = 'inputs' | 'full';

/**
 * `config`: a package manager's own settings file that changes what an install does (.yarnrc.yml, bunfig.toml).
 * `ancestor-marker`: an install marker of a `node_modules` above the workspace root (`../node_modules/…`):
 * watched in every scope, folded into no key (it is no file of the workspace, and keys must agree between
 * machines).
 */
export type EntryKind =
  | 'lockfile'
  | 'workspace-manifest'
  | 'pnpmfile'
  | 'config'
  | 'patch'
  | 'install-marker'
  | 'ancestor-marker';

export type Normalizer = 'modules-yaml';

export interface EntrySpec {
  /** Workspace-relative POSIX path. */
  readonly path: string;
  readonly kind: EntryKind;
  /** Set for markers whose bytes carry fields that change without the install changing. */
  readonly normalize?: Normalizer;
}

export function isScope(value: string): value is Scope {
  return value === 'inputs' || value === 'full';
}

export function inScope(kind: EntryKind, scope: Scope): boolean {
  return scope === 'full' || kind !== 'install-marker';
}

/** What every package manager writes in a `node_modules` folder it installed (npm, pnpm, yarn berry and v1). */
const ANCESTOR_MARKERS: readonly EntrySpec[] = [
  { path: 'node_modules/.package-lock.json', kind: 'ancestor-marker' },
  { path: 'node_modules/.modules.yaml', kind: 'ancestor-marker', normalize: 'modules-yaml' },
  { path: 'node_modules/.pnpm/lock.yaml', kind: 'ancestor-marker' },
  { path: 'node_modules/.yarn-state.yml', kind: 'ancestor-marker' },
  { path: 'node_modules/.yarn-integrity', kind: 'ancestor-marker' },
];

/** The marker entries of a `node_modules` folder `depth` levels above the workspace root (`../` × depth). */
export function ancestorEntries(depth: number): EntrySpec[] {
  const up = '../'.repeat(depth);
  return ANCESTOR_MARKERS.map((spec) => ({ ...spec, path: `${up}${spec.path}` }));
}

/** Whether `path` is an ancestor marker's path as `ancestorEntries` writes it (a ledger's entries are checked by it). */
export function isAncestorMarkerPath(path: string): boolean {
  const match = /^((?:\.\.\/){1,64})(node_modules\/.+)$/.exec(path);
  return match !== null && ANCESTOR_MARKERS.some((spec) => spec.path === match[2]);
}

/**
 * Patch files named by a `patchedDependencies` block (pnpm lockfile, pnpm-workspace.yaml) or a
 * package.json `pnpm.patchedDependencies` map. A line scan, not a YAML parse: the table must not
 * depend on a parser that refuses pnpm 12's two-document lockfiles.
 */
export function patchPaths(text: string): string[] {
  const found = new Set<string>();
  const lines = text.split('\n');
  let inBlock = false;
  for (const line of lines) {
    if (/^\S/.test(line)) {
      inBlock = /^patchedDependencies:\s*$/.test(line);
      continue;
    }
    if (!inBlock || !line.includes('.patch')) continue;
    const match = /([^\s'":]+\.patch)['"]?\s*,?\s*$/.exec(line);
    if (match?.[1] !== undefined) found.add(match[1]);
  }
  // package.json: "patchedDependencies": { "pkg@1": "patches/pkg@1.patch" }
  for (const match of text.matchAll(/"patchedDependencies"\s*:\s*\{([^}]*)\}/g)) {
    for (const value of (match[1] ?? '').matchAll(/:\s*"([^"]+\.patch)"/g)) {
      if (value[1] !== undefined) found.add(value[1]);
    }
  }
  return [...found]
    .map((path) => posix.normalize(path.replaceAll('\\', '/')))
    .filter(insideRoot)
    .sort();
}

function insideRoot(relPath: string): boolean {
  return relPath !== '' && !relPath.startsWith('../') && relPath !== '..' && !posix.isAbsolute(relPath);
}

/** The bytes a normalized marker is hashed and compared by. */
export function normalizeBytes(normalizer: Normalizer, bytes: Buffer): Buffer {
  switch (normalizer) {
    case 'modules-yaml':
      return normalizeModulesYaml(bytes);
  }
}

// `node_modules/.modules.yaml` is written as JSON by pnpm 9+; `prunedAt` changes when pnpm prunes,
// without the installed tree changing. Older pnpm wrote YAML: drop the same field line-wise.
function normalizeModulesYaml(bytes: Buffer): Buffer {
  const text = bytes.toString('utf8');
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const copy = { ...(parsed as Record<string, unknown>) };
      delete copy['prunedAt'];
      // Not JSON.stringify: a deeply nested file would overflow the stack, and where it does depends on the caller.
      return Buffer.from(plainJson(copy));
    }
  } catch {
    // Not JSON: fall through to the line filter.
  }
  return Buffer.from(
    text
      .split('\n')
      .filter((line) => !line.startsWith('prunedAt:'))
      .join('\n'),
  );
}
