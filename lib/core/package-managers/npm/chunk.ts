// npm's code that only some commands run: the install check and package-lock.json's slice reader. A CLI
// bundle loads it on first use as its own chunk (../chunk-load.ts).
//
// Owns: nothing but the list. Invariants: exports functions only; index.ts reaches them through
// chunk-load.ts's `managerChunk('npm')`, never by importing these modules itself.

export { checkNpm } from './install-check.js';
export { npmSliceGraph } from './lock.js';
