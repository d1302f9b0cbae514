// turbo 2 (2.0 to 2.11) as one runner adapter: everything lockguard knows of turbo, behind RunnerAdapter.
//
// Owns: the `turbo` object. Its parts: cache.ts (cache dir, `.turbo/runs` summary, turbo.json), listing.ts
// (what one entry is), entries.ts (an entry's project from its manifest), plan.ts (`--dry=json`),
// remote.ts (remote detection, `TURBO_API`, `TURBO_CACHE`), protocol.ts (v8 artifacts), binary.ts (the
// native binary a run starts in the launcher's place), sound-keys.ts (`inputs` naming the slice file, and
// the dry run's proof), doctor.ts.
// Invariants: those of its parts; guarded when turbo.json/turbo.jsonc is at the root or a command starts
// `turbo` (detect.ts follows scripts and launchers to the simple command).

import { join } from 'node:path';
import { executableName } from '../../package-managers/argv.js';
import type { RunnerAdapter } from '../adapter.js';
import { runnerChunk } from '../chunk-load.js';
import { present } from '../workspace-files.js';
import { turboFileIn } from './sound-keys.js';

const heavy = () => runnerChunk('turbo');

export const turbo: RunnerAdapter = {
  name: 'turbo',
  label: 'turbo',
  startedBy: (argv) => argv[0] !== undefined && executableName(argv[0]) === 'turbo',
  configuredAt: (root) => present(join(root, 'turbo.json')) || present(join(root, 'turbo.jsonc')),
  resolveCache: (root, argv, env) => heavy().resolveTurboCache(root, argv, env),
  units: (_dir, names) => heavy().turboUnits(names),
  unitPaths: (unit) => heavy().turboUnitPaths(unit),
  summary: (cache, options) => heavy().turboSummary(cache, options),
  projects: { mapped: true, entryFiles: (cache, projects) => heavy().turboEntryFiles(cache, projects) },
  entryTask: (cache, key) => heavy().turboEntryTask(cache, key),
  plan: (argv, options, settings, pnpmWorkspace) => heavy().planTurbo(argv, options, settings, pnpmWorkspace),
  remote: {
    protocol: 'turbo-v8',
    gate: () => heavy().turboV8(),
    detect: (root, env, argv) => heavy().detectTurbo(root, env, argv),
    pointAt: (detection, gateUrl, argv) => heavy().pointTurboAt(detection, gateUrl, argv),
    writesOff: (mode, why, context) => heavy().turboWritesOff(mode, why, context),
  },
  soundKeys: {
    configFiles: ['turbo.json', 'turbo.jsonc'],
    configured: (root) => turboFileIn(root) !== undefined,
    edits: (root, mode) => heavy().turboEdits(root, mode),
    proof: (root, env, mode) => heavy().turboProof(root, env, mode),
    folds: async (argv, root, env) => {
      const chunk = heavy();
      return chunk.turboFolds(await chunk.runDry(chunk.turboDryArgv(argv), { root, env }), root);
    },
  },
  doctor: (root, env, manager) => heavy().turboChecks(root, env, manager),
};
