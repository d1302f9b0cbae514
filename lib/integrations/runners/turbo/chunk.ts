// turbo's code that only a run, plan or doctor of turbo itself runs: its cache, listing, summary, withholding, plan,
// remote, sound-key edits and doctor checks. A CLI bundle loads it on first use as its own chunk
// (../chunk-load.ts); what every command asks of every runner (is it started, configured; its sound keys'
// config files) stays in index.ts.
//
// Owns: nothing but the list. Invariants: exports functions only; index.ts reaches them through
// chunk-load.ts's `runnerChunk('turbo')`, never by importing these modules itself.

export { runDry } from '../../plan/spawn-runner.js';
export { resolveTurboCache, turboSummary } from './cache.js';
export { turboChecks } from './doctor.js';
export { turboEntryFiles, turboEntryTask } from './entries.js';
export { turboUnitPaths, turboUnits } from './listing.js';
export { planTurbo, turboDryArgv } from './plan.js';
export { turboV8 } from './protocol.js';
export { detectTurbo, pointTurboAt, turboWritesOff } from './remote.js';
export { turboEdits, turboFolds, turboProof } from './sound-keys.js';
