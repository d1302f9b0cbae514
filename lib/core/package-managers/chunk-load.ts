// Each package manager's heavy half (its `<pm>/chunk.ts`: install check, lockfile readers), reached on first use.
//
// Owns: `managerChunk(name)` and `asyncManagerChunk(name)` (the readers only an asynchronous path runs: pnpm 8's
// 6.x). In the ES modules they are ordinary imports. A CLI bundle carries none of the four: lib/build/bundle.mjs
// replaces this module with one that asks the launcher for `dist/cli/pm-<name>.cjs` (core/chunks.ts), so a
// command loads only the package manager of its workspace, and only when it checks an install or reads slices.
// Why: the four were 126 KB of `verify`'s 265 KB bundle, read, compiled and initialized on every start though a
// `verify` where nothing moved reads no lockfile (test/bench/README.md "The code cache").
// Invariants: the same functions on every call; the replacement keeps these signatures
// (test/cli/start-modules.test.ts proves the bundles carry no reader and load only the chunk they need). Named
// imports, never a namespace: an install hook's bundle (no launcher, so no chunk) keeps only what it calls,
// and never the asynchronous reader, which would inline @pnpm/lockfile-file
// (test/architecture/hook-bundles.test.ts).

import { bunSliceGraph, checkBun, readBunLock } from './bun/chunk.js';
import type { PackageManager } from './names.js';
import { checkNpm, npmSliceGraph } from './npm/chunk.js';
import { checkPnpm, pnpmLockfileSliceGraph, pnpmSliceGraphAsync } from './pnpm/chunk.js';
import { checkYarn, yarnSliceGraph } from './yarn/chunk.js';

const LOCAL = {
  pnpm: { checkPnpm, pnpmLockfileSliceGraph },
  yarn: { checkYarn, yarnSliceGraph },
  bun: { checkBun, bunSliceGraph, readBunLock },
  npm: { checkNpm, npmSliceGraph },
} as const;

const ASYNC_LOCAL = { pnpm: { pnpmSliceGraphAsync } } as const;

type ManagerChunks = typeof LOCAL;
type AsyncManagerChunks = typeof ASYNC_LOCAL;

/** The heavy half of package manager `name`. */
export function managerChunk<N extends PackageManager>(name: N): ManagerChunks[N] {
  return LOCAL[name];
}

/** The asynchronous readers of package manager `name` (registry.ts ASYNC_SLICE_READERS). */
export function asyncManagerChunk<N extends keyof AsyncManagerChunks>(name: N): AsyncManagerChunks[N] {
  return ASYNC_LOCAL[name];
}
