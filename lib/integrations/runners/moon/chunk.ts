// moon's code that only a run, plan or doctor of moon itself runs: its cache, listing, summary, withholding, plan,
// remote, sound-key edits and doctor checks. A CLI bundle loads it on first use as its own chunk
// (../chunk-load.ts); what every command asks of every runner (is it started, configured; its sound keys'
// config files) stays in index.ts.
//
// Owns: nothing but the list. Invariants: exports functions only; index.ts reaches them through
// chunk-load.ts's `runnerChunk('moon')`, never by importing these modules itself.

export { moonEntryTask, moonSummary, moonUnitPaths, moonUnits, resolveMoonCache } from './cache.js';
export { moonChecks } from './doctor.js';
export { planMoon } from './plan.js';
export { detectMoon, moonWritesOff } from './remote.js';
export { moonEdits, moonFolds, moonProof } from './sound-keys.js';
export { withholdMoon } from './withhold.js';
