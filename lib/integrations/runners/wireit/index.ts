// wireit (0.14.13) as one runner adapter: everything lockguard knows of wireit, behind RunnerAdapter.
//
// Owns: the `wireit` object and its detection: a command `wireit` (what a wireit package's script runs; the
// walk through scripts finds it under `npm run build`), or a `wireit` block in the root package.json, or, with
// wireit installed at the root, in a workspace package's package.json (packages.ts). Its parts: cache.ts
// (WIREIT_CACHE, the entries under each package's .wireit/, the freshness stamps), withhold.ts (stamps off,
// then the shared pass), remote.ts (WIREIT_CACHE=github: not gated; the switch), sound-keys.ts (`files`
// naming .lockguard-slice: init's edits, doctor's finding), doctor.ts.
// wireit writes no run report and has no dry run: its entries are judged by when they were written, named by
// their keys, not mapped to projects (every save after a move is withheld), and `lockguard plan` says it cannot
// show wireit's graph (`plan`'s folds list every cached script of the workspace, from their `files`).
// Invariants: those of its parts; detection reads the root package.json, one or two lstats, and only when
// wireit is installed, the workspace packages' manifests.

import { executableName } from '../../package-managers/argv.js';
import { planError } from '../../plan/types.js';
import type { RunnerAdapter } from '../adapter.js';
import { resolveWireitCache, wireitSummary, wireitUnits } from './cache.js';
import { wireitChecks } from './doctor.js';
import { manifestAt, wireitBlock, wireitInstalled, wireitPackages } from './packages.js';
import { detectWireit, wireitWritesOff } from './remote.js';
import { wireitEdits, wireitFolds, wireitProof } from './sound-keys.js';
import { withholdWireit } from './withhold.js';

/** The root package.json has a `wireit` block, or wireit is installed and a workspace package has one. */
function wireitConfigured(root: string): boolean {
  if (wireitBlock(manifestAt(root)) !== undefined) return true;
  return wireitInstalled(root) && wireitPackages(root).length > 0;
}

export const wireit: RunnerAdapter = {
  name: 'wireit',
  label: 'wireit',
  startedBy: (argv) => argv[0] !== undefined && executableName(argv[0]) === 'wireit',
  configuredAt: (root) => wireitConfigured(root),
  resolveCache: resolveWireitCache,
  units: (dir) => wireitUnits(dir),
  unitPaths: (unit) => [unit.primary],
  summary: wireitSummary,
  withhold: withholdWireit,
  projects: { mapped: false, reason: "wireit's cache entries are not mapped to projects here" },
  plan: () =>
    Promise.reject(
      planError(
        'wireit has no dry run: lockguard plan cannot show its script graph.',
        'Run it guarded (lockguard run -- npm run <script>): stale saves are withheld after the run.',
      ),
    ),
  remote: {
    detect: (_root, env) => detectWireit(env),
    writesOff: (_mode, why, context) => wireitWritesOff(why, context.env),
  },
  soundKeys: {
    configFiles: ['package.json'],
    configured: wireitConfigured,
    edits: (root) => wireitEdits(root),
    proof: async (root, _env, mode) => wireitProof(root, mode),
    folds: async (_argv, root) => wireitFolds(root),
  },
  doctor: wireitChecks,
};
