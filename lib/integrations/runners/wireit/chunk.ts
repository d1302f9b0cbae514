// wireit's code that only a run, plan or doctor of wireit itself runs: its cache, listing, summary, withholding, plan,
// remote, sound-key edits and doctor checks. A CLI bundle loads it on first use as its own chunk
// (../chunk-load.ts); what every command asks of every runner (is it started, configured; its sound keys'
// config files) stays in index.ts.
//
// Owns: nothing but the list. Invariants: exports functions only; index.ts reaches them through
// chunk-load.ts's `runnerChunk('wireit')`, never by importing these modules itself.

export { resolveWireitCache, wireitSummary, wireitUnits } from './cache.js';
export { wireitChecks } from './doctor.js';
export { detectWireit, wireitWritesOff } from './remote.js';
export { wireitEdits, wireitFolds, wireitProof } from './sound-keys.js';
export { withholdWireit } from './withhold.js';
