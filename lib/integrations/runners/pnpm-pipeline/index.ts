// pnpm 12's `pnpm pipeline` as one runner adapter: everything lockguard knows of it, behind RunnerAdapter.
//
// Owns: the `pnpmPipeline` object and its detection (`tasks:`/`pipelines:` in pnpm-workspace.yaml, or a
// command `pnpm pipeline`). Its parts: cache.ts (`<pnpm cache>/pipeline/<sha256(root)[:32]>/`, the run
// events), listing.ts (`tasks/<key[:2]>/<key>/`), plan.ts (`--dry-run --json`), remote.ts, protocol.ts
// (signed v8), npmrc-auth.ts (pnpm's credential for its remote). doctor has no pipeline check.
// Invariants: those of its parts; entries are not mapped to projects (every save after a move is withheld).

import { join } from 'node:path';
import { classifyCommand } from '../../package-managers/argv.js';
import type { RunnerAdapter } from '../adapter.js';
import { present } from '../workspace-files.js';
import { pipelineSummary, resolvePipelineCache } from './cache.js';
import { pipelineUnits } from './listing.js';
import { planPipeline } from './plan.js';
import { pipelineV8 } from './protocol.js';
import { detectPipeline, pipelineWritesOff, pointPipelineAt } from './remote.js';
import { readBounded } from '../../../core/bounded-read.js';

/** A top-level `tasks:` or `pipelines:` key in pnpm-workspace.yaml (pnpm 12's pipeline). */
function hasPipelineTasks(workspaceYaml: string | Buffer | undefined): boolean {
  if (workspaceYaml === undefined) return false;
  const text = typeof workspaceYaml === 'string' ? workspaceYaml : workspaceYaml.toString('utf8');
  return /^(tasks|pipelines):/m.test(text);
}

function workspaceYaml(root: string, given: Buffer | undefined): Buffer | undefined {
  if (given !== undefined || !present(join(root, 'pnpm-workspace.yaml'))) return given;
  try {
    return readBounded(join(root, 'pnpm-workspace.yaml'), { kind: 'config', root });
  } catch {
    return undefined;
  }
}

export const pnpmPipeline: RunnerAdapter = {
  name: 'pnpm-pipeline',
  label: 'pnpm pipeline',
  installsBeforeKeying: true,
  startedBy: (argv) => {
    const cmd = classifyCommand(argv);
    return cmd?.manager === 'pnpm' && cmd.command === 'pipeline';
  },
  configuredAt: (root, hints) => hasPipelineTasks(workspaceYaml(root, hints.workspaceYaml)),
  resolveCache: (root, _argv, env) => resolvePipelineCache(root, env),
  units: pipelineUnits,
  unitPaths: (unit) => [unit.primary],
  summary: pipelineSummary,
  projects: { mapped: false, reason: "pnpm pipeline's cache entries are not mapped to projects here" },
  plan: (argv, options, settings) => planPipeline(argv, options, settings),
  remote: {
    protocol: 'pnpm-pipeline-v8',
    gate: pipelineV8,
    detect: (root, env) => detectPipeline(root, env),
    pointAt: (_detection, gateUrl, argv) => pointPipelineAt(gateUrl, argv),
    writesOff: (_mode, why) => pipelineWritesOff(why),
  },
  doctor: () => [],
};
