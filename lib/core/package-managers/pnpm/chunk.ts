// pnpm's code that only some commands run: the install check and the lockfile's slice reader (with the YAML
// reader under them). A CLI bundle loads it on first use as its own chunk (../chunk-load.ts).
//
// Owns: nothing but the list. Invariants: exports functions only; index.ts reaches them through
// chunk-load.ts's `managerChunk('pnpm')`, never by importing these modules itself.

export { checkPnpm } from './install-check.js';
export { pnpmLockfileSliceGraph, pnpmSliceGraphAsync } from './slices.js';
