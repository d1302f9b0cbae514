// nx (20 to 24) as one runner adapter: everything lockguard knows of nx, behind RunnerAdapter.
//
// Owns: the `nx` object and what is too small for a module of its own: detection (`nx.json`, `nx` in the
// root manifest, a command starting `nx` or `lerna run`) and the entry layout (`<cache>/<hash>/` +
// `<cache>/terminalOutputs/<hash>`). Its parts: cache.ts (cache dir, `run.json`), memo.ts (nx's own
// answer, remembered), task-db.ts and withhold.ts (nx 20 to 23 mark their task DB first), plan.ts
// (`--graph=stdout`), remote.ts, protocol.ts (self-hosted v1), sound-keys.ts (`.nxignore` and targets'
// `inputs`, and the task plans' proof), doctor.ts.
// Invariants: those of its parts; entries are not mapped to projects (every save after a move is withheld).

import { join } from 'node:path';
import { executableName } from '../../package-managers/argv.js';
import type { RunnerAdapter } from '../adapter.js';
import type { CacheUnit } from '../types.js';
import { present } from '../workspace-files.js';
import { nxSummary, resolveNxCache } from './cache.js';
import { nxChecks } from './doctor.js';
import { nxDryRun, planNx } from './plan.js';
import { nxV1 } from './protocol.js';
import { detectNx, nxWritesOff, pointNxAt } from './remote.js';
import { nxConfigured, nxEdits, nxFolds, nxProof } from './sound-keys.js';
import { withholdNx } from './withhold.js';
import { readConfigText } from '../../../core/bounded-read.js';

/** An nx entry: a folder named by its decimal hash. */
const NX_ENTRY = /^\d+$/;

function nxInManifest(root: string): boolean {
  try {
    const manifest = JSON.parse(readConfigText(join(root, 'package.json')) ?? '') as Record<string, unknown>;
    return ['dependencies', 'devDependencies'].some((field) => {
      const deps = manifest[field];
      return deps !== null && typeof deps === 'object' && 'nx' in deps;
    });
  } catch {
    return false;
  }
}

export const nx: RunnerAdapter = {
  name: 'nx',
  label: 'nx',
  // `lerna run` is nx's task runner (Lerna 6 and newer): its cache is nx's, resolved from Lerna's own nx.
  startedBy: (argv) =>
    argv[0] !== undefined &&
    (executableName(argv[0]) === 'nx' || (executableName(argv[0]) === 'lerna' && argv[1] === 'run')),
  configuredAt: (root) => present(join(root, 'nx.json')) || nxInManifest(root),
  resolveCache: (root, _argv, env) => resolveNxCache(root, env),
  units: (_dir, names): CacheUnit[] =>
    names.filter((name) => NX_ENTRY.test(name)).map((key) => ({ key, primary: key })),
  unitPaths: (unit) => [unit.key, `terminalOutputs/${unit.key}`],
  summary: nxSummary,
  withhold: withholdNx,
  projects: { mapped: false, reason: "nx's cache entries are not mapped to projects here" },
  plan: (argv, options, settings) => planNx(argv, options, settings),
  remote: {
    protocol: 'nx-v1',
    gate: nxV1,
    detect: detectNx,
    pointAt: (_detection, gateUrl, argv) => pointNxAt(gateUrl, argv),
    writesOff: (_mode, why) => nxWritesOff(why),
  },
  soundKeys: {
    configFiles: ['nx.json', '.nxignore'],
    configured: nxConfigured,
    edits: nxEdits,
    proof: nxProof,
    folds: async (argv, root, env) => nxFolds(await nxDryRun(argv, { root, env })),
  },
  doctor: (root, env) => nxChecks(root, env),
};
