// lage's code that only a run, plan or doctor of lage itself runs: its cache, listing, summary, withholding, plan,
// remote, sound-key edits and doctor checks. A CLI bundle loads it on first use as its own chunk
// (../chunk-load.ts); what every command asks of every runner (is it started, configured; its sound keys'
// config files) stays in index.ts.
//
// Owns: nothing but the list. Invariants: exports functions only; index.ts reaches them through
// chunk-load.ts's `runnerChunk('lage')`, never by importing these modules itself.

export { lageSummary, lageUnitPaths, lageUnits, resolveLageCache } from './cache.js';
export { lageChecks } from './doctor.js';
export { planLage } from './plan.js';
export { detectLage, lageWritesOff } from './remote.js';
export { lageEdits, lageFolds, lageProof } from './sound-keys.js';
