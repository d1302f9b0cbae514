// Which run a command means: `--run` (an id or a folder), a variable naming one (`LOCKGUARD_RUN`,
// `LOCKGUARD_RUN_<NAME>`), else the latest run this host recorded in the workspace.
//
// Owns: `findRun`, and what its refusals say (a run of another workspace named as such; a value from the
// environment printed only when it names a run).
// Invariants: only a run folder of this workspace's ledger is loaded (ledger.ts `loadRun` validates it); the
// latest run is never one stamped in the future or recorded on another host (a committed ledger's bait).

import { lstatSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { LockguardError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import { listRunIds, loadRun, runDir, runIdTime, type RunHandle, type RunKind } from './ledger.js';
import { ledgerFolder } from './ledger-fs.js';
import { LEDGER, ledgerPath, RUN_FILES } from './ledger-layout.js';
import { RUN_ID } from './run-record.js';
import { thisMachine } from './trust.js';

/** How far in the future a run id may be stamped and still be taken for the latest run (clock adjustments). */
const FUTURE_SLACK_MS = 10 * 60 * 1000;

/**
 * Resolve which run a command means: an explicit `--run` (id or folder), else `LOCKGUARD_RUN`, else the
 * latest run of `kind` in the workspace that this host recorded and whose id is not stamped in the future
 * (a committed ledger cannot offer itself as the latest run). A run that belongs to another workspace is refused.
 */
export function findRun(
  root: string,
  explicit: string | undefined,
  fromEnv: string | undefined,
  kind?: RunKind,
  name?: string,
): RunHandle {
  const given = explicit ?? fromEnv;
  // The name the user set: the flag, a named gate's variable (snapshot --name), or LOCKGUARD_RUN.
  if (given !== undefined && given !== '')
    return namedRun(
      root,
      given,
      explicit !== undefined ? '--run' : name !== undefined ? `LOCKGUARD_RUN_${name}` : 'LOCKGUARD_RUN',
    );
  const future = Date.now() + FUTURE_SLACK_MS;
  for (const id of listRunIds(root)) {
    if (kind !== undefined && !id.includes(`-${kind}-`)) continue;
    // A run stamped in the future was not made by this clock (a committed ledger's bait for "the latest run").
    if (runIdTime(id) > future) continue;
    // A folder still being created (its record is written last) is no run yet.
    if (lstatSync(join(runDir(root, id), RUN_FILES.record), { throwIfNoEntry: false }) === undefined) continue;
    const run = loadRun(runDir(root, id), root);
    // The latest run is this host's own: one another machine (or a pull request) recorded is never it.
    if (run.record.host !== thisMachine().host) continue;
    // A named gate judges the latest run of its name only (snapshot --name).
    if (name !== undefined && run.record.name !== name) continue;
    return run;
  }
  throw new LockguardError(
    'ERR_LOCKGUARD_NO_SNAPSHOT',
    `No lockguard ${name === undefined ? (kind ?? 'run') : `snapshot named ${name}`} found in "${ledgerPath(root)}".`,
    {
      path: ledgerPath(root),
      hint:
        name !== undefined
          ? `Take one first: lockguard snapshot --name ${name} (before this cache is restored).`
          : kind === 'snapshot' || kind === undefined
            ? 'Take one first: lockguard snapshot (at the start of the job).'
            : 'Start one with lockguard run -- <command>.',
    },
  );
}

/** The run `given` names (an id or a folder) through `source` (--run or a variable), or why it is none. */
function namedRun(root: string, given: string, source: string): RunHandle {
  const dir = RUN_ID.test(given) ? runDir(root, given) : resolve(given);
  const unset = `unset ${source === '--run' ? 'the flag' : source} to use the latest run, or take a new snapshot.`;
  if (dirname(dir) !== ledgerPath(resolve(root), LEDGER.runs) || !RUN_ID.test(basename(dir))) {
    const runs = ledgerPath(root, LEDGER.runs);
    // A run folder of another workspace (…/<workspace>/.lockguard/runs/<id>) is named as such; anything else is
    // no run at all.
    const other = RUN_ID.test(basename(dir)) ? dirname(dirname(dirname(dir))) : undefined;
    const foreign = other !== undefined && ledgerPath(other, LEDGER.runs) === dirname(dir);
    throw new LockguardError(
      'ERR_LOCKGUARD_BAD_RUN',
      foreign
        ? `${source} names a run of the workspace at "${other}", not of "${root}" (its runs are in ${runs}).`
        : `${source} names ${shownRun(source, given)}, which is neither a run id (as lockguard status prints it) nor the folder of a run of "${root}" (its runs are in ${runs}).`,
      {
        path: dir,
        hint: foreign
          ? `Run lockguard in that workspace (lockguard -C "${other}" ...), or ${unset}`
          : `Pass a run id lockguard status lists, or ${unset}`,
      },
    );
  }
  const there = ledgerFolder(root, [LEDGER.runs, basename(dir)], false);
  if (there === undefined) {
    throw new LockguardError(
      'ERR_LOCKGUARD_BAD_RUN',
      `${source} names ${shownRun(source, given)}, which is not a run folder (missing).`,
      { path: dir, hint: `Pass a run id lockguard status lists, or ${unset}` },
    );
  }
  return loadRun(dir, root);
}

/**
 * A run as an error names it: what --run was given, or a variable's value that names a run (an id, or a folder
 * named as one); any other value of a variable is not printed (README: errors print no environment values).
 */
function shownRun(source: string, given: string): string {
  return source === '--run' || RUN_ID.test(basename(given)) ? `"${printable(given)}"` : 'a value';
}
