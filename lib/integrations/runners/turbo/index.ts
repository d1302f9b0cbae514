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
import { runDry } from '../../plan/spawn-runner.js';
import type { RunnerAdapter } from '../adapter.js';
import { present } from '../workspace-files.js';
import { resolveTurboCache, turboSummary } from './cache.js';
import { turboChecks } from './doctor.js';
import { turboEntryFiles, turboEntryTask } from './entries.js';
import { turboUnitPaths, turboUnits } from './listing.js';
import { planTurbo, turboDryArgv } from './plan.js';
import { turboV8 } from './protocol.js';
import { detectTurbo, pointTurboAt, turboWritesOff } from './remote.js';
import { turboEdits, turboFileIn, turboFolds, turboProof } from './sound-keys.js';

export const turbo: RunnerAdapter = {
  name: 'turbo',
  label: 'turbo',
  startedBy: (argv) => argv[0] !== undefined && executableName(argv[0]) === 'turbo',
  configuredAt: (root) => present(join(root, 'turbo.json')) || present(join(root, 'turbo.jsonc')),
  resolveCache: resolveTurboCache,
  units: (_dir, names) => turboUnits(names),
  unitPaths: turboUnitPaths,
  summary: turboSummary,
  projects: { mapped: true, entryFiles: turboEntryFiles },
  entryTask: turboEntryTask,
  plan: planTurbo,
  remote: {
    protocol: 'turbo-v8',
    gate: turboV8,
    detect: detectTurbo,
    pointAt: pointTurboAt,
    writesOff: turboWritesOff,
  },
  soundKeys: {
    configFiles: ['turbo.json', 'turbo.jsonc'],
    configured: (root) => turboFileIn(root) !== undefined,
    edits: turboEdits,
    proof: turboProof,
    folds: async (argv, root, env) => turboFolds(await runDry(turboDryArgv(argv), { root, env }), root),
  },
  doctor: turboChecks,
};
