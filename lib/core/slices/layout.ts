// Where a workspace's linker puts the hoisted pool (issue 29): in the root node_modules, where every project's
// own code resolves it too, or only where installed packages resolve it (pnpm's private hoist, yarn PnP).
//
// Owns: `poolAtRoot(root, format, head)`. The pool is at the root (every project folds it, reach.ts):
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

import { join } from 'node:path';
import { readConfigText } from '../bounded-read.js';

function text(root: string, name: string): string {
  try {
    return readConfigText(join(root, name), root) ?? '';
  } catch {
    return '';
  }
}

/** A top-level `key: value` of a YAML file's text (the value's first line, unquoted), or undefined. */
function yamlKey(yaml: string, key: string): string | undefined {
  const match = new RegExp(`^${key}:[ \\t]*(.*)$`, 'm').exec(yaml);
  return match?.[1]
    ?.replace(/#.*$/, '')
    .trim()
    .replace(/^['"]|['"]$/g, '');
}

/** An `.npmrc` setting's value (the last assignment wins, as in npm's ini), or undefined. */
function npmrcKey(npmrc: string, key: string): string | undefined {
  let value: string | undefined;
  for (const line of npmrc.split(/\r?\n/)) {
    const match = /^\s*([^=;#\s][^=]*?)\s*=\s*(.*?)\s*$/.exec(line);
    if (match?.[1] === key || match?.[1] === `${key}[]`) value = match[2] ?? '';
  }
  return value;
}

function pnpmPoolAtRoot(root: string): boolean {
  const npmrc = text(root, '.npmrc');
  const yaml = text(root, 'pnpm-workspace.yaml');
  const linker = yamlKey(yaml, 'nodeLinker') ?? npmrcKey(npmrc, 'node-linker');
  const shameful = yamlKey(yaml, 'shamefullyHoist') ?? npmrcKey(npmrc, 'shamefully-hoist');
  // YAML: a block list (`publicHoistPattern:` then `  - x`) reads as an empty first line, counted as set;
  // .npmrc: `public-hoist-pattern=` (empty) is the empty list.
  const yamlPublic = yamlKey(yaml, 'publicHoistPattern');
  const npmrcPublic = npmrcKey(npmrc, 'public-hoist-pattern');
  const publicSet =
    yamlPublic !== undefined
      ? yamlPublic !== '[]' && yamlPublic !== "''"
      : npmrcPublic !== undefined && npmrcPublic !== '' && npmrcPublic !== '[]';
  return linker === 'hoisted' || shameful === 'true' || publicSet;
}

/** Whether the linker at `root` puts the hoisted pool in the root node_modules (every project resolves it). */
export function poolAtRoot(root: string, format: 'pnpm' | 'npm' | 'yarn' | 'bun', lockfileHead: string): boolean {
  switch (format) {
    case 'npm':
      return true;
    case 'pnpm':
      return pnpmPoolAtRoot(root);
    case 'yarn': {
      if (!/^__metadata:/m.test(lockfileHead)) return true;
      const linker = yamlKey(text(root, '.yarnrc.yml'), 'nodeLinker');
      return linker !== undefined && linker !== '' && linker !== 'pnp';
    }
    case 'bun': {
      const linker = /^\s*linker\s*=\s*["'](\w+)["']/m.exec(text(root, 'bunfig.toml'))?.[1];
      if (linker !== undefined) return linker !== 'isolated';
      // bun 1.3+ writes configVersion 1 and installs a workspace isolated by default (measured with bun 1.4.5:
      // node_modules/.bun/node_modules is the private pool, the root holds the root's own); before, hoisted.
      const config = /"configVersion"\s*:\s*(\d+)/.exec(lockfileHead)?.[1];
      return config === undefined || Number(config) < 1;
    }
  }
}
