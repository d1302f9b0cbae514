// Which nx a command really starts: the workspace's own (`require('nx')` from the root), else Lerna's (Lerna's
// `lerna run` is nx's task runner, and under pnpm nx is Lerna's dependency, not resolvable from the root:
// FIELD-NOTES "Other caching runners").
//
// Owns: `whichNx(root)`: the folder Node resolves nx from (the root, or Lerna's own package folder), nx's
// package.json there and its version; `lernaManifestAt(root)`.
// Invariants: resolution only (Node's own algorithm through createRequire, links followed as Node follows
// them); never runs anything; never throws (nothing found is undefined).

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface NxAt {
  /** The folder whose `require('nx')` finds this nx (the root, or Lerna's package folder). */
  readonly from: string;
  /** Who starts it: the workspace itself, or Lerna. */
  readonly via: 'workspace' | 'lerna';
  /** nx's package.json. */
  readonly manifest: string;
  /** Its version, when the manifest says one. */
  readonly version: string | undefined;
}

function resolveFrom(dir: string, request: string): string | undefined {
  try {
    return createRequire(join(dir, 'package.json')).resolve(request);
  } catch {
    return undefined;
  }
}

function versionOf(manifest: string): string | undefined {
  try {
    const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown }).version;
    return typeof version === 'string' && /^\d+\.\d+\.\d+/.test(version) ? version : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Lerna's package.json as Node finds the package from the root (the node_modules folders Node searches, in
 * its order; Lerna's `exports` leave package.json out, so it is found by folder), its real path, or undefined.
 */
export function lernaManifestAt(root: string): string | undefined {
  try {
    for (const dir of createRequire(join(root, 'package.json')).resolve.paths('lerna') ?? []) {
      const manifest = join(dir, 'lerna', 'package.json');
      if (existsSync(manifest)) return realpathSync(manifest);
    }
  } catch {
    // An unreadable folder on the way: no Lerna found.
  }
  return undefined;
}

/** The nx the workspace's commands start: its own, else Lerna's (undefined when neither resolves). */
export function whichNx(root: string): NxAt | undefined {
  const own = resolveFrom(root, 'nx/package.json');
  if (own !== undefined) return { from: root, via: 'workspace', manifest: own, version: versionOf(own) };
  const lerna = lernaManifestAt(root);
  if (lerna === undefined) return undefined;
  const from = dirname(lerna);
  const viaLerna = resolveFrom(from, 'nx/package.json');
  if (viaLerna === undefined) return undefined;
  return { from, via: 'lerna', manifest: viaLerna, version: versionOf(viaLerna) };
}
