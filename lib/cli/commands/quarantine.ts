// `lockguard quarantine list|restore`: what guarded runs withheld from the runners' caches, and putting it back.

import {
  dropQuarantine,
  type DropResult,
  listQuarantine,
  type QuarantinedEntry,
  restore,
} from '../../ledger/quarantine/index.js';
import { RUNNER_NAMES } from '../../integrations/runners/index.js';
import { LockguardError } from '../../core/errors.js';
import { flag, parse, stringValue, type Parsed } from '../args.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { PlacesNow } from '../../guard/guard-file.js';
import type { Command } from '../command.js';
import { recoverFirst } from '../recover.js';
import { summarised } from '../summary.js';
import { DIR_HELP, DIR_OPTION, workspaceOf } from '../workspace-option.js';

const help = `Usage: lockguard quarantine list [--run <id>] [--json]
       lockguard quarantine restore --run <id> [--entry <key>] [--json]
       lockguard quarantine drop --run <id> [--json]

When a task rewrites the lockfile during "lockguard run", the cache entries the runner saved afterwards
were keyed on the old lockfile: the runner would replay them whenever the tree goes back to it. lockguard
moves them (it never deletes them by itself) into .lockguard/quarantine/<run id>/, with a manifest of
every file's path, size and sha256.

  list      the runs that withheld entries, newest first, and their entries (runner, key, task, size,
            original paths, restored or not; entries a killed pass left in flight are counted)
  restore   put a run's entries (or one, with --entry) back into the runner's cache, byte for byte under
            their original names. An entry the cache already holds again (the runner rebuilt it under the
            same key) is skipped, never overwritten. Restore only when you know the entry is good, e.g.
            the lockfile change was reverted and the outputs do not depend on it. Entries go back only into
            a cache its runners use now, the one the record names (set the same TURBO_CACHE_DIR /
            NX_CACHE_DIRECTORY as the run had), and only when the record was made on this host.
  drop      delete a run's quarantine (every entry it withheld) once you know you will not restore it:
            the runner rebuilds them under the new lockfile's keys. Refused while the run's guard is live
            or another lockguard works on that quarantine; a pass a kill left half done is settled first.
            The run's record can then go too (lockguard prune).

Options:
${DIR_HELP}
  --run <id>           the run (see list); required for restore and drop
  --entry <key>        restore one entry: its key (or runner:key)
  --json               print the data as JSON
  --verbose            list every entry (over 20 are summarised with a count)
  -h, --help           this text

Exit code: 0, or 1 when an entry could not be restored and is still in quarantine (it changed there, a
move failed, its cache is not one this workspace is configured for now, a link is in the way, another
host recorded it); skipped entries the cache already holds, or restored before, are not failures.

Examples:
  lockguard quarantine list
  lockguard quarantine restore --run 20261130T031500123456Z-run-a1b2c3 --entry 1e20c7866ed9838d
  lockguard quarantine drop --run 20261130T031500123456Z-run-a1b2c3
`;

function describe(entry: QuarantinedEntry): string {
  const state = entry.restoredAt === undefined ? `withheld ${entry.withheldAt}` : `restored ${entry.restoredAt}`;
  return `  ${entry.runner} ${entry.key}${entry.task === undefined ? '' : ` (${entry.task})`}, ${entry.size} bytes, ${state}\n    from ${entry.cacheDir}: ${entry.paths.join(', ')}`;
}

export const command: Command = {
  help,
  async run(argv, io: Io) {
    const parsed = parse(
      'quarantine',
      argv,
      { ...DIR_OPTION, run: { type: 'string' }, entry: { type: 'string' }, json: { type: 'boolean' } },
      true,
    );
    const action = actionOf(parsed);
    const workspace = await workspaceOf(parsed, io);
    // A guard that died before its final check is finished first (cli/recover.ts).
    const stopped = await recoverFirst(workspace.root, io, 'lenient', 'quarantine');
    if (stopped !== undefined) return stopped;
    const runId = stringValue(parsed, 'run');
    if (action === 'list') return list(parsed, workspace.root, runId, io);
    if (runId === undefined) {
      throw new LockguardError('ERR_LOCKGUARD_USAGE', `lockguard quarantine ${action} needs --run <id>.`, {
        hint: 'lockguard quarantine list shows the run ids.',
      });
    }
    if (action === 'drop') return drop(parsed, workspace.root, runId, io);
    return restoreRun(parsed, workspace.root, runId, io);
  },
};

/** The action after `lockguard quarantine` (list, restore or drop), alone; anything else is a usage error. */
function actionOf(parsed: Parsed): 'list' | 'restore' | 'drop' {
  const [action, extra] = parsed.positionals;
  if ((action !== 'list' && action !== 'restore' && action !== 'drop') || extra !== undefined) {
    throw new LockguardError(
      'ERR_LOCKGUARD_USAGE',
      `Expected "list", "restore" or "drop" after lockguard quarantine, got ${action === undefined ? 'nothing' : `"${[action, extra].filter(Boolean).join(' ')}"`}.`,
      {
        hint: 'lockguard quarantine --help explains them.',
      },
    );
  }
  return action;
}

/** `list`: every run's quarantine (or --run's), as JSON or a line per run and per entry. */
function list(parsed: Parsed, root: string, runId: string | undefined, io: Io): number {
  if (stringValue(parsed, 'entry') !== undefined)
    throw new LockguardError('ERR_LOCKGUARD_USAGE', '--entry goes with restore, not list.', {
      hint: 'lockguard quarantine list [--run <id>]',
    });
  const runs = listQuarantine(root).filter((run) => runId === undefined || run.run === runId);
  if (runId !== undefined && runs.length === 0) {
    throw new LockguardError(
      'ERR_LOCKGUARD_BAD_RUN',
      `No quarantine for the run "${runId}" in "${root}/.lockguard/quarantine".`,
      { hint: 'lockguard quarantine list shows the runs that withheld entries.' },
    );
  }
  if (flag(parsed, 'json')) {
    io.stdout.write(
      `${JSON.stringify(
        runs.map((run) => ({
          run: run.run,
          dir: run.dir,
          entries: run.manifest?.entries ?? null,
          inFlight: run.inFlight ?? 0,
          problem: run.problem ?? null,
        })),
        null,
        2,
      )}\n`,
    );
    return EXIT.ok;
  }
  if (runs.length === 0) {
    io.stdout.write('No withheld cache entries in this workspace.\n');
    return EXIT.ok;
  }
  for (const run of runs) io.stdout.write(runLines(run, io));
  return EXIT.ok;
}

/** One run's quarantine, for `list`: its counts (in flight, a problem), then each entry. */
function runLines(run: ReturnType<typeof listQuarantine>[number], io: Io): string {
  if (run.manifest === undefined) return `run ${run.run}: ${run.problem ?? 'unreadable manifest'}\n`;
  const waiting = run.manifest.entries.filter((entry) => entry.restoredAt === undefined).length;
  const flight =
    run.inFlight === undefined
      ? ''
      : `, ${run.inFlight} in flight (a pass was killed: the next lockguard command settles them)`;
  const problem = run.problem === undefined ? '' : ` (${run.problem})`;
  const entries = summarised(io, run.manifest.entries.map(describe), 'entries', '  ');
  return `run ${run.run}: ${run.manifest.entries.length} entr${run.manifest.entries.length === 1 ? 'y' : 'ies'}, ${waiting} still withheld${flight}${problem}\n${entries.map((line) => `${line}\n`).join('')}`;
}

/** `drop --run`: the run's whole quarantine deleted, and what it held said. */
function drop(parsed: Parsed, root: string, runId: string, io: Io): number {
  if (stringValue(parsed, 'entry') !== undefined)
    throw new LockguardError(
      'ERR_LOCKGUARD_USAGE',
      "--entry goes with restore: drop removes a run's whole quarantine.",
      {
        hint: 'lockguard quarantine drop --run <id>',
      },
    );
  const dropped = dropQuarantine(root, runId, new PlacesNow(root, io.env).trusted(RUNNER_NAMES));
  if (flag(parsed, 'json')) io.stdout.write(`${JSON.stringify(dropped, null, 2)}\n`);
  else io.stdout.write(`${dropLine(runId, dropped)}\n`);
  return EXIT.ok;
}

/** `restore --run [--entry]`: the run's entries (or one) back into their caches; exit 1 when one could not be. */
function restoreRun(parsed: Parsed, root: string, runId: string, io: Io): number {
  const entry = stringValue(parsed, 'entry');
  const result = restore(root, runId, {
    ...(entry === undefined ? {} : { entry }),
    places: new PlacesNow(root, io.env).trusted(RUNNER_NAMES),
  });
  if (flag(parsed, 'json')) {
    io.stdout.write(
      `${JSON.stringify({ run: runId, restored: result.restored, skipped: result.skipped.map((s) => ({ key: s.entry.key, runner: s.entry.runner, reason: s.reason, detail: s.detail })) }, null, 2)}\n`,
    );
  } else {
    const restored = result.restored.map((done) => `restored ${done.runner} ${done.key} into ${done.cacheDir}`);
    const skipped = result.skipped.map(
      (skip) => `skipped  ${skip.entry.runner} ${skip.entry.key}: ${skip.reason} (${skip.detail})`,
    );
    for (const line of [...summarised(io, restored, 'restored'), ...summarised(io, skipped, 'skipped')])
      io.stdout.write(`${line}\n`);
    if (result.restored.length === 0 && result.skipped.length === 0) io.stdout.write('Nothing to restore.\n');
  }
  // Only what is already back is no failure: an entry still waiting in quarantine (its cache not configured
  // now, a link in the way, another host's record, a changed or failed move) is exit 1, as the help says.
  return result.skipped.some((s) => s.reason !== 'already-in-cache' && s.reason !== 'already-restored')
    ? EXIT.moved
    : EXIT.ok;
}

/** `dropped the quarantine of <run>: 2 withheld entries deleted (1 restored before, their record with it)` */
function dropLine(runId: string, dropped: DropResult): string {
  if (dropped.withheld === null)
    return `dropped the quarantine of ${runId}: its journal was unreadable, so its entries were deleted uncounted`;
  const restored =
    dropped.restored === null || dropped.restored === 0
      ? ''
      : ` (${dropped.restored} restored before, their record with it)`;
  const torn =
    dropped.unreadableLines === 0
      ? ''
      : `; ${dropped.unreadableLines} line(s) of its journal could not be read, so entries they named went uncounted`;
  return `dropped the quarantine of ${runId}: ${dropped.withheld} withheld entr${dropped.withheld === 1 ? 'y' : 'ies'} deleted${restored}${torn}`;
}
