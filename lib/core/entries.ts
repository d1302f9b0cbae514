// Which files the fingerprint table holds, per package manager and scope.
//
// Owns: the list of entries (workspace-relative POSIX paths with their kind), the patch files a lockfile
// or workspace manifest names, and the normalization of install markers that carry volatile fields.
// Invariants: entries never leave the workspace root (seed: a file outside it is not watched); hoisted
// links and `.pnpm-workspace-state-v1.json` are never entries (they change on every install).

import { posix } from 'node:path';
import { plainJson } from './digest.js';
import type { PackageManager } from './workspace.js';

/** inputs: what an install reads. full: inputs plus the install-tree markers. */
export type Scope = 'inputs' | 'full';

export type EntryKind = 'lockfile' | 'workspace-manifest' | 'pnpmfile' | 'patch' | 'install-marker';

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

/** The fixed entries of a package manager, before patches (which depend on file contents). */
export function baseEntries(manager: PackageManager, scope: Scope): EntrySpec[] {
  const all = BASE[manager];
  return all.filter((entry) => inScope(entry.kind, scope));
}

const BASE: Record<PackageManager, readonly EntrySpec[]> = {
  pnpm: [
    { path: 'pnpm-lock.yaml', kind: 'lockfile' },
    { path: 'pnpm-workspace.yaml', kind: 'workspace-manifest' },
    { path: '.pnpmfile.cjs', kind: 'pnpmfile' },
    { path: '.pnpmfile.mjs', kind: 'pnpmfile' },
    { path: 'node_modules/.pnpm/lock.yaml', kind: 'install-marker' },
    { path: 'node_modules/.modules.yaml', kind: 'install-marker', normalize: 'modules-yaml' },
  ],
  npm: [
    { path: 'package-lock.json', kind: 'lockfile' },
    { path: 'npm-shrinkwrap.json', kind: 'lockfile' },
    { path: 'node_modules/.package-lock.json', kind: 'install-marker' },
  ],
  yarn: [
    { path: 'yarn.lock', kind: 'lockfile' },
    { path: 'node_modules/.yarn-state.yml', kind: 'install-marker' },
    { path: 'node_modules/.yarn-integrity', kind: 'install-marker' },
  ],
  bun: [
    { path: 'bun.lock', kind: 'lockfile' },
    { path: 'bun.lockb', kind: 'lockfile' },
  ],
};

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
  return [...found].map((path) => posix.normalize(path.replaceAll('\\', '/'))).filter(insideRoot).sort();
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
  return Buffer.from(text.split('\n').filter((line) => !line.startsWith('prunedAt:')).join('\n'));
}
