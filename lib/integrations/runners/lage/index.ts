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
import { runnerChunk } from '../chunk-load.js';
import { lageConfigured } from './config.js';
import { lageUnsupported } from './sound-keys.js';

const heavy = () => runnerChunk('lage');

export const lage: RunnerAdapter = {
  name: 'lage',
  label: 'lage',
  startedBy: (argv) => argv[0] !== undefined && executableName(argv[0]) === 'lage',
  configuredAt: (root) => lageConfigured(root),
  resolveCache: (root, argv, env) => heavy().resolveLageCache(root, argv, env),
  units: (dir, names) => heavy().lageUnits(dir, names),
  unitPaths: (unit) => heavy().lageUnitPaths(unit),
  summary: () => heavy().lageSummary(),
  projects: { mapped: false, reason: "lage's cache entries are not mapped to projects here" },
  plan: (argv, options, settings, pnpmWorkspace) => heavy().planLage(argv, options, settings, pnpmWorkspace),
  remote: {
    detect: (root, env) => heavy().detectLage(root, env),
    writesOff: (_mode, why, context) => heavy().lageWritesOff(why, context.env),
  },
  soundKeys: {
    configFiles: ['lage.config.js'],
    configured: lageConfigured,
    edits: (root, mode) => heavy().lageEdits(root, mode),
    unsupported: (root, mode) => lageUnsupported(root, mode),
    proof: (root, env, mode) => heavy().lageProof(root, env, mode),
    folds: (_argv, root, env) => heavy().lageFolds(root, env, sliceFilesIgnored(root) ? 'ignored' : undefined),
  },
  doctor: (root, env) => heavy().lageChecks(root, env),
};
