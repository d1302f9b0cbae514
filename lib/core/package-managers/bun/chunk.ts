// bun's code that only some commands run: the install check and bun.lock's reader and slice graph. A CLI
// bundle loads it on first use as its own chunk (../chunk-load.ts).
//
// Owns: nothing but the list. Invariants: exports functions only; index.ts reaches them through
// chunk-load.ts's `managerChunk('bun')`, never by importing these modules itself.

export { checkBun } from './install-check.js';
export { bunSliceGraph } from './graph.js';
export { readBunLock } from './lock.js';
