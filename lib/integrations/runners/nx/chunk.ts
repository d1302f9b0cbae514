// nx's code that only a run, plan or doctor of nx itself runs: its cache, listing, summary, withholding, plan,
// remote, sound-key edits and doctor checks. A CLI bundle loads it on first use as its own chunk
// (../chunk-load.ts); what every command asks of every runner (is it started, configured; its sound keys'
// config files) stays in index.ts.
//
// Owns: nothing but the list. Invariants: exports functions only; index.ts reaches them through
// chunk-load.ts's `runnerChunk('nx')`, never by importing these modules itself.

export { runDry } from '../../plan/spawn-runner.js';
export { nxSummary, resolveNxCache } from './cache.js';
export { nxChecks } from './doctor.js';
export { nxGraphArgv, planNx } from './plan.js';
export { nxV1 } from './protocol.js';
export { detectNx, nxWritesOff, pointNxAt } from './remote.js';
export { nxEdits, nxFolds, nxProof } from './sound-keys.js';
export { withholdNx } from './withhold.js';
