// lage (2.17.0) as one runner adapter: everything lockguard knows of lage, behind RunnerAdapter.
//
// Owns: the `lage` object and its detection: a command `lage` (a root script `lage build` is followed there by
// detect.ts), or lage's config at the root (config.ts: lage's own cosmiconfig search), or lage in the root's
// dependencies. Its parts: config.ts, cache.ts (the fixed node_modules/.cache/lage, one save = the outputs
// folder and its log), remote.ts (backfill's remote: not gated; LAGE_WRITE_CACHE=false), sound-keys.ts
// (committed mode only: lage hashes only what git lists; `lage info` for doctor's proof), doctor.ts.
// lage keys every target's external dependencies from one lockfile parse at the start of the run (its
// TargetHasher), so a lockfile-only change made during the run (variant L) is saved under the old key and
// replayed after going back (test/e2e/lage-poisoning.test.ts). lage writes no run report: its entries are
// judged by when they were written, named by their keys, not mapped to projects (every save after a move is
// withheld).
// Invariants: those of its parts; detection reads the root package.json and a few lstats.

import { executableName } from '../../package-managers/argv.js';
import { sliceFilesIgnored } from '../../../ledger/slice-files.js';
import type { RunnerAdapter } from '../adapter.js';
import { lageSummary, lageUnitPaths, lageUnits, resolveLageCache } from './cache.js';
import { planLage } from './plan.js';
import { lageConfigured } from './config.js';
import { lageChecks } from './doctor.js';
import { detectLage, lageWritesOff } from './remote.js';
import { lageEdits, lageFolds, lageProof, lageUnsupported } from './sound-keys.js';

export const lage: RunnerAdapter = {
  name: 'lage',
  label: 'lage',
  startedBy: (argv) => argv[0] !== undefined && executableName(argv[0]) === 'lage',
  configuredAt: (root) => lageConfigured(root),
  resolveCache: resolveLageCache,
  units: lageUnits,
  unitPaths: lageUnitPaths,
  summary: lageSummary,
  projects: { mapped: false, reason: "lage's cache entries are not mapped to projects here" },
  plan: planLage,
  remote: {
    detect: (root, env) => detectLage(root, env),
    writesOff: (_mode, why, context) => lageWritesOff(why, context.env),
  },
  soundKeys: {
    configFiles: ['lage.config.js'],
    configured: lageConfigured,
    edits: (root, mode) => lageEdits(root, mode),
    unsupported: (root, mode) => lageUnsupported(root, mode),
    proof: (root, env, mode) => lageProof(root, env, mode),
    folds: (_argv, root, env) => lageFolds(root, env, sliceFilesIgnored(root) ? 'ignored' : undefined),
  },
  doctor: (root, env) => lageChecks(root, env),
};
