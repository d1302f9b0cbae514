// node:child_process, loaded on first use.
//
// Owns: `childProcess()`. Loading node:child_process (with its internal/child_process, net's dgram and the
// stream machinery) costs about 10 M instructions at start-up, and a bundle's imports all load when it starts:
// `verify`, `snapshot` and `key` spawn nothing on most runs (git, nx or pnpm are asked only in some workspaces),
// so the modules that spawn ask for it here, when they spawn.
// Invariants: one load per process (lazy-builtins.ts, which works in every bundle, the install hooks' too).

import type * as ChildProcessModule from 'node:child_process';
import { builtin } from './lazy-builtins.js';

let loaded: typeof ChildProcessModule | undefined;

/** node:child_process, required the first time it is asked for. */
export function childProcess(): typeof ChildProcessModule {
  loaded ??= builtin<typeof ChildProcessModule>('node:child_process');
  return loaded;
}
