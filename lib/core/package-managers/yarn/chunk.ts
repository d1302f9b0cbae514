// yarn's code that only some commands run: the install check and the slice readers (berry's and v1's
// parsers). A CLI bundle loads it on first use as its own chunk (../chunk-load.ts).
//
// Owns: nothing but the list. Invariants: exports functions only; index.ts reaches them through
// chunk-load.ts's `managerChunk('yarn')`, never by importing these modules itself.

export { checkYarn } from './install-check.js';
export { yarnSliceGraph } from './slices.js';
