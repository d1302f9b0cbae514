// Which nx a command really starts: the workspace's own (`require('nx')` from the root), else Lerna's (Lerna's
// `lerna run` is nx's task runner, and under pnpm nx is Lerna's dependency, not resolvable from the root:
// FIELD-NOTES "Other caching runners").
//
// Owns: `whichNx(root)`: the folder Node resolves nx from (the root, or Lerna's own package folder), nx's
// package.json there and its version; `lernaManifestAt(root)`; `nxCommand`: how to start that nx's CLI.
// Invariants: resolution only (Node's own algorithm through createRequire, links followed as Node follows
// them); never runs anything; never throws (nothing found is undefined).

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import type { Env } from '../../../core/env.js';
import { nodeModule } from '../../../core/lazy-builtins.js';

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
    return nodeModule().createRequire(join(dir, 'package.json')).resolve(request);
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
function lernaManifestAt(root: string): string | undefined {
  try {
    for (const dir of nodeModule().createRequire(join(root, 'package.json')).resolve.paths('lerna') ?? []) {
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

/**
 * How to start the CLI of the nx the workspace's commands start, with what to add to its environment. The
 * workspace's own: `nx` (the root's `node_modules/.bin`). Lerna's: its bin through Node, with `NODE_PATH`
 * naming the folder that holds it: nx's CLI looks for a local nx from the workspace root and stops ("Could not
 * find Nx modules") where that is Lerna's dependency only (pnpm), and Node's lookup from there takes in
 * `NODE_PATH` (measured: Lerna 9.0.7's nx 22.7.12 on pnpm 10, as pnpm's own bin shims do).
 */
export function nxCommand(nx: NxAt | undefined, env: Env): { argv: string[]; env: Record<string, string> } {
  if (nx === undefined || nx.via === 'workspace') return { argv: ['nx'], env: {} };
  let bin: unknown;
  try {
    bin = (JSON.parse(readFileSync(nx.manifest, 'utf8')) as { bin?: unknown }).bin;
  } catch {
    return { argv: ['nx'], env: {} };
  }
  const path =
    typeof bin === 'string' ? bin : typeof bin === 'object' && bin !== null ? (bin as { nx?: unknown }).nx : undefined;
  if (typeof path !== 'string') return { argv: ['nx'], env: {} };
  const holder = dirname(dirname(nx.manifest));
  const before = env['NODE_PATH'];
  return {
    argv: [process.execPath, join(dirname(nx.manifest), path)],
    env: { NODE_PATH: before === undefined || before === '' ? holder : `${holder}${delimiter}${before}` },
  };
}
