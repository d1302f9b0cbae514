// pnpm's pipeline's code that only a run, plan or doctor of pnpm's pipeline itself runs: its cache, listing, summary, withholding, plan,
// remote, sound-key edits and doctor checks. A CLI bundle loads it on first use as its own chunk
// (../chunk-load.ts); what every command asks of every runner (is it started, configured; its sound keys'
// config files) stays in index.ts.
//
// Owns: nothing but the list. Invariants: exports functions only; index.ts reaches them through
// chunk-load.ts's `runnerChunk('pnpm-pipeline')`, never by importing these modules itself.

export { pipelineSummary, resolvePipelineCache } from './cache.js';
export { pipelineUnits } from './listing.js';
export { planPipeline } from './plan.js';
export { pipelineV8 } from './protocol.js';
export { detectPipeline, pipelineWritesOff, pointPipelineAt } from './remote.js';
