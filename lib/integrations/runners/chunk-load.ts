// Each runner's heavy half (its `<runner>/chunk.ts`: cache, listing, summary, withholding, plan, remote, sound-key
// edits, doctor), reached on first use.
//
// Owns: `runnerChunk(name)`. In the ES modules it is an ordinary import. A CLI bundle carries none of the six:
// lib/build/bundle.mjs replaces this module with one that asks the launcher for `dist/cli/runner-<name>.cjs`
// (core/chunks.ts), so a command loads only the runners it guards, plans or checks. Why: the six adapters were
// 141 KB of `run`'s bundle, read, compiled and initialized on every run though a workspace uses one or two of
// them (stop 42 measured 13 M instructions for leaving five runners and two package managers out).
// Invariants: the same functions on every call; the replacement keeps this signature; named imports, never a
// namespace, so a bundle without a launcher (an install hook) keeps only what it calls
// (test/cli/bundle-load.test.ts: no command's bundle defines these functions; each chunk defines its own).

import {
  detectTurbo,
  planTurbo,
  pointTurboAt,
  resolveTurboCache,
  runDry,
  turboChecks,
  turboDryArgv,
  turboEdits,
  turboEntryFiles,
  turboEntryTask,
  turboFolds,
  turboProof,
  turboSummary,
  turboUnitPaths,
  turboUnits,
  turboV8,
  turboWritesOff,
} from './turbo/chunk.js';
import {
  detectNx,
  nxChecks,
  nxEdits,
  nxFolds,
  nxGraphArgv,
  nxProof,
  nxSummary,
  nxV1,
  nxWritesOff,
  planNx,
  pointNxAt,
  resolveNxCache,
  runDry as nxRunDry,
  withholdNx,
} from './nx/chunk.js';
import {
  detectMoon,
  moonChecks,
  moonEdits,
  moonEntryTask,
  moonFolds,
  moonProof,
  moonSummary,
  moonUnitPaths,
  moonUnits,
  moonWritesOff,
  planMoon,
  resolveMoonCache,
  withholdMoon,
} from './moon/chunk.js';
import {
  detectLage,
  lageChecks,
  lageEdits,
  lageFolds,
  lageProof,
  lageSummary,
  lageUnitPaths,
  lageUnits,
  lageWritesOff,
  planLage,
  resolveLageCache,
} from './lage/chunk.js';
import {
  detectWireit,
  resolveWireitCache,
  wireitChecks,
  wireitEdits,
  wireitFolds,
  wireitProof,
  wireitSummary,
  wireitUnits,
  wireitWritesOff,
  withholdWireit,
} from './wireit/chunk.js';
import {
  detectPipeline,
  pipelineSummary,
  pipelineUnits,
  pipelineV8,
  pipelineWritesOff,
  planPipeline,
  pointPipelineAt,
  resolvePipelineCache,
} from './pnpm-pipeline/chunk.js';
import type { GuardedRunner } from './adapter.js';

const LOCAL = {
  turbo: {
    runDry,
    resolveTurboCache,
    turboSummary,
    turboChecks,
    turboEntryFiles,
    turboEntryTask,
    turboUnitPaths,
    turboUnits,
    planTurbo,
    turboDryArgv,
    turboV8,
    detectTurbo,
    pointTurboAt,
    turboWritesOff,
    turboEdits,
    turboFolds,
    turboProof,
  },
  nx: {
    runDry: nxRunDry,
    nxSummary,
    resolveNxCache,
    nxChecks,
    nxGraphArgv,
    planNx,
    nxV1,
    detectNx,
    nxWritesOff,
    pointNxAt,
    nxEdits,
    nxFolds,
    nxProof,
    withholdNx,
  },
  moon: {
    moonEntryTask,
    moonSummary,
    moonUnitPaths,
    moonUnits,
    resolveMoonCache,
    moonChecks,
    planMoon,
    detectMoon,
    moonWritesOff,
    moonEdits,
    moonFolds,
    moonProof,
    withholdMoon,
  },
  lage: {
    lageSummary,
    lageUnitPaths,
    lageUnits,
    resolveLageCache,
    lageChecks,
    planLage,
    detectLage,
    lageWritesOff,
    lageEdits,
    lageFolds,
    lageProof,
  },
  wireit: {
    resolveWireitCache,
    wireitSummary,
    wireitUnits,
    wireitChecks,
    detectWireit,
    wireitWritesOff,
    wireitEdits,
    wireitFolds,
    wireitProof,
    withholdWireit,
  },
  'pnpm-pipeline': {
    pipelineSummary,
    resolvePipelineCache,
    pipelineUnits,
    planPipeline,
    pipelineV8,
    detectPipeline,
    pipelineWritesOff,
    pointPipelineAt,
  },
} as const;

type RunnerChunks = typeof LOCAL;

/** The heavy half of runner `name`. */
export function runnerChunk<N extends GuardedRunner>(name: N): RunnerChunks[N] {
  return LOCAL[name];
}
