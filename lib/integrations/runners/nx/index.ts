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
import { runnerChunk } from '../chunk-load.js';
import type { CacheUnit } from '../types.js';
import { present } from '../workspace-files.js';
import { nxConfigured } from './sound-keys.js';
import { readConfigText } from '../../../core/bounded-read.js';

/** An nx entry: a folder named by its decimal hash. */
const NX_ENTRY = /^\d+$/;

const heavy = () => runnerChunk('nx');

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
  resolveCache: (root, _argv, env) => heavy().resolveNxCache(root, env),
  units: (_dir, names): CacheUnit[] =>
    names.filter((name) => NX_ENTRY.test(name)).map((key) => ({ key, primary: key })),
  unitPaths: (unit) => [unit.key, `terminalOutputs/${unit.key}`],
  summary: (cache, options) => heavy().nxSummary(cache, options),
  withhold: (cache, before, options, env, pass) => heavy().withholdNx(cache, before, options, env, pass),
  projects: { mapped: false, reason: "nx's cache entries are not mapped to projects here" },
  plan: (argv, options, settings) => heavy().planNx(argv, options, settings),
  remote: {
    protocol: 'nx-v1',
    gate: () => heavy().nxV1(),
    detect: (root, env, argv) => heavy().detectNx(root, env, argv),
    pointAt: (_detection, gateUrl, argv) => heavy().pointNxAt(gateUrl, argv),
    writesOff: (_mode, why) => heavy().nxWritesOff(why),
  },
  soundKeys: {
    configFiles: ['nx.json', '.nxignore'],
    configured: nxConfigured,
    edits: (root, mode) => heavy().nxEdits(root, mode),
    proof: (root, env, mode) => heavy().nxProof(root, env, mode),
    folds: async (argv, root, env) => {
      const chunk = heavy();
      return chunk.nxFolds(await chunk.runDry(chunk.nxGraphArgv(argv), { root, env }));
    },
  },
  doctor: (root, env) => heavy().nxChecks(root, env),
};
