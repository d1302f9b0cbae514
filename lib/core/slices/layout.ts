// Where a workspace's linker puts the hoisted pool (issue 29): in the root node_modules, where every project's
// own code resolves it too, or only where installed packages resolve it (pnpm's private hoist, yarn PnP).
//
// Owns: `poolAtRoot(root, format, head)`, asked of each package manager's adapter (package-managers/<pm>/). The pool is at the root (every project folds it, reach.ts):
// npm (measured: test/e2e/reach-npm-yarn.test.ts, a's own undeclared require resolves b's tiny-dep from the
// root), yarn v1 and yarn berry's `node-modules` and `pnpm` linkers, bun's hoisted linker (`bunfig.toml`, or a
// bun.lock without `configVersion` 1: bun 1.3+ installs workspaces isolated), pnpm with `node-linker=hoisted`, `shamefully-hoist` or any `public-hoist-pattern`
// (measured: test/e2e/reach-pnpm-hoisted.test.ts). It is not for pnpm's isolated linker without public
// hoisting and yarn PnP (a workspace's own code resolves what it declares; PnP's fallback goes to the top-level
// workspace's dependencies: the root's slice, folded as the slice files' root line).
// Read from the committed settings only (.npmrc, pnpm-workspace.yaml, .yarnrc.yml, bunfig.toml at the root),
// never from the installed tree: committed mode (`key --check-slices`) computes the same before any install.
// Not seen: settings from the user's ~/.npmrc or the environment, and pnpm 9's default public-hoist-pattern
// (`*eslint*`, `*prettier*`; pnpm 10 has none).
// Invariants: reads at most four small config files (bounded), never throws (an unreadable file reads as
// absent); when a setting cannot be told, the answer is the sound one (at the root) except for pnpm's and
// yarn's documented defaults.

import type { PackageManager } from '../package-managers/names.js';
import { coreOf } from '../package-managers/registry.js';

/** Whether the linker at `root` puts the hoisted pool in the root node_modules (every project resolves it). */
export function poolAtRoot(root: string, format: PackageManager, lockfileHead: string): boolean {
  return coreOf(format).poolAtRoot(root, lockfileHead);
}
