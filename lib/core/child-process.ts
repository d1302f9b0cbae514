// node:child_process, loaded on first use.
//
// Owns: `childProcess()`. Loading node:child_process (with its internal/child_process, net's dgram and the
// stream machinery) costs about 10 M instructions at start-up, and a bundle's imports all load when it starts:
// `verify`, `snapshot` and `key` spawn nothing on most runs (git, nx or pnpm are asked only in some workspaces),
// so the modules that spawn ask for it here, when they spawn.
// Invariants: one load per process; a builtin resolves from any base, so no import.meta is needed (the
// install-hook bundles have none).

import type * as ChildProcessModule from 'node:child_process';
import { createRequire } from 'node:module';

let loaded: typeof ChildProcessModule | undefined;

/** node:child_process, required the first time it is asked for. */
export function childProcess(): typeof ChildProcessModule {
  loaded ??= createRequire('/')('node:child_process') as typeof ChildProcessModule;
  return loaded;
}
