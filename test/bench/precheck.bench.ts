// The pre-run check (issue 3) vs pnpm 10's own `verifyDepsBeforeRun=error` on the same installed
// workspace (goal: cheaper than pnpm's). Workspace: 18 importers, 300 local `file:` packages, really
// installed by pnpm 10 offline (workspaces.ts).
// Wall time: lockguard's check in-process, as `lockguard run` does it (readWorkspaceFingerprints, full
// scope, + checkInstall) vs `pnpm --config.verify-deps-before-run=error run noop` minus the same with it
// off (medians of whole processes sampled alternately: noisy on a loaded machine).
// Instructions (callgrind, when valgrind is here): `lockguard run -- true` minus `--no-pre-check`, vs the
// two pnpm runs' difference: both sides as cold processes, independent of the load.
// Also, as a note (not an assertion): a lockfile-only edit and a package folder deleted from
// node_modules/.pnpm, pnpm's check rc vs `lockguard run -- true` rc.
// Invariants: writes only under ctx.tmp; restores every edit before the next measurement; reports, never
// asserts.

import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { checkInstall } from '../../lib/core/install-check.js';
import { BIN } from '../helpers/cli.js';
import {
  countInstructions,
  hasValgrind,
  perOp,
  processRotation,
  type BenchContext,
  type BenchRow,
  type ProcessSpec,
} from './harness.js';
import { benchTools, PNPM10, WIDE, wideWorkspace } from './workspaces.js';

function rc(spec: ProcessSpec): number | string {
  const result = spawnSync(spec.command, [...spec.args], { ...spec.options, encoding: 'utf8', timeout: 60_000 });
  return result.status ?? result.signal ?? 'no status';
}

/** pnpm's and lockguard's verdicts on a workspace broken by `breakIt` (undone by `undo`). */
function verdicts(
  what: string,
  pnpmCheck: ProcessSpec,
  guard: ProcessSpec,
  breakIt: () => void,
  undo: () => void,
): string {
  breakIt();
  try {
    return `${what}: pnpm verifyDepsBeforeRun=error rc ${rc(pnpmCheck)}, lockguard run -- true rc ${rc(guard)}`;
  } finally {
    undo();
  }
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const tools = benchTools(ctx.tmp);
  const root = wideWorkspace(ctx.tmp, tools);
  const options = { cwd: root, env: tools.env };
  // pnpm settings go before `run`: after the script name they would be the script's own arguments.
  const pnpmOff: ProcessSpec = {
    command: process.execPath,
    args: [PNPM10, '--config.verify-deps-before-run=false', 'run', 'noop'],
    options,
  };
  const pnpmOn: ProcessSpec = {
    command: process.execPath,
    args: [PNPM10, '--config.verify-deps-before-run=error', 'run', 'noop'],
    options,
  };
  const guard: ProcessSpec = { command: process.execPath, args: [BIN, 'run', '--', 'true'], options };
  const noCheck: ProcessSpec = {
    command: process.execPath,
    args: [BIN, 'run', '--no-pre-check', '--', 'true'],
    options,
  };
  for (const spec of [pnpmOff, pnpmOn, guard, noCheck]) {
    const code = rc(spec);
    if (code !== 0) throw new Error(`${spec.args.join(' ')} exits ${code} on the freshly installed workspace`);
  }

  const table = readWorkspaceFingerprints(root);
  const lock = readFileSync(join(root, 'pnpm-lock.yaml'));
  const packages = (
    lock
      .toString('utf8')
      .split('\nsnapshots:\n')[1]
      ?.match(/^ {2}\S/gm) ?? []
  ).length;
  const check = (): void => {
    const verdict = checkInstall(readWorkspaceFingerprints(root));
    if (!verdict.ok) throw new Error(`the pre-run check fails on the installed workspace: ${verdict.detail}`);
  };
  // Wall time: pnpm's two modes as whole processes sampled together; lockguard's check in-process.
  // Half the samples: each pnpm process takes about a second here, and the instruction row decides.
  const pnpmRuns = Math.max(5, Math.ceil(ctx.runs / 2));
  const [offMs, onMs] = processRotation([pnpmOff, pnpmOn], pnpmRuns);
  const [checkMs] = await perOp(check, () => undefined, ctx.runs);
  const pnpmCheckMs = (onMs ?? Number.NaN) - (offMs ?? Number.NaN);

  // Correctness, as measured with the real pnpm: what each check says about two breakages pnpm does not see.
  const lockPath = join(root, 'pnpm-lock.yaml');
  const edited = lock
    .toString('utf8')
    .replace(
      'resolution: {directory: vendor/v000, type: directory}',
      'resolution: {directory: vendor/v001, type: directory}',
    );
  const store = join(root, 'node_modules', '.pnpm');
  const victim = readdirSync(store).find((name) => name.startsWith('v001@')) ?? 'v001@file+vendor+v001';
  const verdictNotes = [
    edited === lock.toString('utf8')
      ? 'lockfile-only edit: not made (no v000 resolution in the expected layout)'
      : verdicts(
          'lockfile-only edit (v000 resolved to another folder)',
          pnpmOn,
          guard,
          () => writeFileSync(lockPath, edited),
          () => writeFileSync(lockPath, lock),
        ),
    verdicts(
      `node_modules/.pnpm/${victim} deleted`,
      pnpmOn,
      guard,
      () => renameSync(join(store, victim), join(ctx.tmp, 'victim')),
      () => renameSync(join(ctx.tmp, 'victim'), join(store, victim)),
    ),
  ];

  const shape = `${WIDE.importers} importers, ${packages} packages, pnpm 10 install`;
  const rows: BenchRow[] = [
    {
      group: 'pre-run check',
      subject: `readWorkspaceFingerprints (${table.entries.length} entries) + checkInstall, in-process (${shape})`,
      subjectMs: checkMs,
      baseline: 'pnpm 10 verifyDepsBeforeRun=error: pnpm run noop, on minus off',
      baselineMs: pnpmCheckMs,
      goal: 1,
      note: `pnpm run noop: ${offMs?.toFixed(0)} ms with the check off, ${onMs?.toFixed(0)} ms with it on (medians of ${pnpmRuns} alternating samples each; a 1 s process on a loaded machine hides a 20–30 ms difference: the instruction row below is the one to read). ${verdictNotes.join('; ')}`,
    },
  ];

  // Instructions (load-independent), each side as a whole cold process: on minus off.
  if (hasValgrind()) {
    // --single-threaded (both sides): with V8's helper threads, GC and compile timing move pnpm's ~2.7 G
    // count by up to 5% between runs, more than the check itself; single-threaded runs repeat within 0.5%.
    const counted = [guard, noCheck, pnpmOn, pnpmOff].map((spec) => ({
      ...spec,
      args: ['--single-threaded', ...spec.args],
    }));
    const [guardCount, noCheckCount, onCount, offCount] = await Promise.all(counted.map(countInstructions));
    rows.push({
      group: 'pre-run check',
      subject: 'lockguard run -- true, pre-check on minus off',
      subjectMs: (guardCount ?? Number.NaN) - (noCheckCount ?? Number.NaN),
      baseline: 'pnpm 10 run noop, verifyDepsBeforeRun=error minus false',
      baselineMs: (onCount ?? Number.NaN) - (offCount ?? Number.NaN),
      goal: 1,
      unit: 'instructions',
      note: `callgrind, node --single-threaded, one run each: lockguard run -- true ${mega(guardCount)} on / ${mega(noCheckCount)} off (the table read happens either way); pnpm run noop ${mega(onCount)} on / ${mega(offCount)} off (pnpm's fast path: no manifest newer than its last check)`,
    });
  } else {
    rows.push({
      group: 'pre-run check',
      subject: 'pre-check on minus off, instructions',
      subjectMs: Number.NaN,
      baseline: 'pnpm verifyDepsBeforeRun=error minus false',
      baselineMs: Number.NaN,
      goal: 1,
      unit: 'instructions',
      note: 'skipped: valgrind is not installed (apt-get install valgrind)',
    });
  }
  return rows;
}

function mega(count: number | undefined): string {
  return count === undefined ? 'n/a' : `${(count / 1e6).toFixed(0)} M`;
}
