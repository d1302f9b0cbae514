// moon (2.5.5) as one runner adapter: everything lockguard knows of moon, behind RunnerAdapter.
//
// Owns: the `moon` object and its detection: a command `moon` or `moonx` (what a moon user types; the walk
// through scripts finds it under `pnpm run build`), or moon's workspace config at the root (`.moon/workspace.*`
// or `.config/moon/workspace.*`: config.ts). Its parts: cache.ts (MOON_CACHE, `.moon/cache/outputs/<hash>.tar.gz`
// with `hashes/<hash>.json`, the lastRun states), withhold.ts (states off, then the shared pass), remote.ts
// (the Bazel remote API: not gated; MOON_REMOTE_HOST empty), sound-keys.ts and task-files.ts (task `inputs`
// naming .lockguard-slice: init's edits; doctor's finding from `moon query projects`), doctor.ts.
// moon keys each task when it is about to run, but with its system toolchain no key folds the lockfile (its
// JavaScript toolchain folds the manifests' ranges and installs before tasks: moon#2673): every save after a
// move is withheld, named by its hash manifest's target, not mapped to projects; `lockguard plan` says it cannot
// show moon's graph.
// Invariants: those of its parts; detection is a few lstats and never runs moon.

import { executableName } from '../../package-managers/argv.js';
import type { RunnerAdapter } from '../adapter.js';
import { moonEntryTask, moonSummary, moonUnitPaths, moonUnits, resolveMoonCache } from './cache.js';
import { moonWorkspaceFile } from './config.js';
import { moonChecks } from './doctor.js';
import { detectMoon, moonWritesOff } from './remote.js';
import { moonEdits, moonFolds, moonProof } from './sound-keys.js';
import { withholdMoon } from './withhold.js';

import { planMoon } from './plan.js';

export const moon: RunnerAdapter = {
  name: 'moon',
  label: 'moon',
  startedBy: (argv) => {
    const name = argv[0] === undefined ? undefined : executableName(argv[0]);
    return name === 'moon' || name === 'moonx';
  },
  configuredAt: (root) => moonWorkspaceFile(root) !== undefined,
  resolveCache: resolveMoonCache,
  units: moonUnits,
  unitPaths: moonUnitPaths,
  summary: moonSummary,
  withhold: withholdMoon,
  projects: { mapped: false, reason: "moon's cache entries are not mapped to projects here" },
  entryTask: moonEntryTask,
  plan: planMoon,
  remote: {
    detect: (root, env) => detectMoon(root, env),
    writesOff: (_mode, why, context) => moonWritesOff(why, context.env),
  },
  soundKeys: {
    configFiles: ['.moon/workspace.yml'],
    configured: (root) => moonWorkspaceFile(root) !== undefined,
    edits: moonEdits,
    proof: moonProof,
    folds: (_argv, root, env) => moonFolds(root, env, undefined),
  },
  doctor: (root, env) => moonChecks(root, env),
};
