// `lockguard prune`: remove old finished runs from the ledger (ledger/prune.ts decides and removes).

import { LockguardError } from '../../core/errors.js';
import { plural } from '../../core/words.js';
import { DEFAULT_KEEP, pruneLedger, type PruneResult } from '../../ledger/prune.js';
import { flag, parse, stringValue } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { type Io, warn } from '../io.js';
import type { Command } from '../command.js';
import { runsNamedIn } from '../retention-step.js';
import { recoverFirst } from '../recover.js';
import { DIR_HELP, DIR_OPTION, workspaceOf } from '../workspace-option.js';

const help = `Usage: lockguard prune [--keep <n>] [--dry-run] [options]

Every "lockguard run" and "lockguard snapshot" leaves a folder in .lockguard/runs/ (its record, events and
report, some 3-20 KB): they are what "verify --run" and "status --run" read. prune removes the older ones,
and the lockfile copies in .lockguard/blobs/ that only they kept.

After each guarded run and snapshot, lockguard prunes by itself: once the ledger holds a tenth more runs
than the workspace keeps (at least 10 more), down to the newest it keeps. It keeps 100 unless "keepRuns" in
the root package.json's "lockguard" field or $LOCKGUARD_KEEP_RUNS says another number, or "all" (never by
itself). lockguard status shows the count and the setting.

Always kept, whatever --keep says: the newest snapshot and the newest guarded run; runs that are live
(or whose lockguard process still runs), or died and are not finished yet; runs whose withheld cache
entries are in quarantine (prune never deletes those: lockguard quarantine restore or drop them); the run
$LOCKGUARD_RUN or a $LOCKGUARD_RUN_<NAME> names; and runs whose record cannot be read (each named in a warning: look, then remove
its folder by hand).

A kill at any moment loses nothing that is kept: a run leaves the ledger by one rename before it is
deleted, and the next prune finishes what a killed one began. Like every workspace command, prune first
finishes runs whose guard died.

Options:
${DIR_HELP}
  --keep <n>           how many of the newest runs to keep (default ${DEFAULT_KEEP}; 0 keeps only the above)
  --dry-run            say what would be removed; remove nothing
  --json               print {dryRun, removed: [{id, bytes, stranded}], kept: [{id, reason, problem?}],
                       blobs: {removed, bytes, kept, why?}, finished}
  -h, --help           this text

Exit code: 0; 2 for a bad --keep or a ledger that cannot be changed (the message names the path).

Examples:
  lockguard prune --dry-run
  lockguard prune --keep 200
`;

export const command: Command = {
  help,
  async run(argv, io: Io) {
    const parsed = parse('prune', argv, {
      ...DIR_OPTION,
      keep: { type: 'string' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
    });
    const keep = keepOf(stringValue(parsed, 'keep'));
    const workspace = await workspaceOf(parsed, io);
    const stopped = await recoverFirst(workspace.root, io, 'lenient', 'prune');
    if (stopped !== undefined) return stopped;
    // The run LOCKGUARD_RUN names and every named gate's (LOCKGUARD_RUN_<NAME>, snapshot --name).
    const named = runsNamedIn(io.env);
    const result = pruneLedger(workspace.root, { keep, dryRun: flag(parsed, 'dry-run'), named });
    if (flag(parsed, 'json')) {
      io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return EXIT.ok;
    }
    for (const run of result.kept) {
      if (run.reason === 'unreadable') warn(io, `kept run ${run.id}: ${run.problem ?? 'it has no record yet'}`);
    }
    if (result.blobs.why !== undefined) warn(io, `kept every lockfile copy: ${result.blobs.why}`);
    io.stdout.write(`${summary(result)}\n`);
    return EXIT.ok;
  },
};

function keepOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_KEEP;
  if (/^\d{1,9}$/.test(value)) return Number(value);
  throw new LockguardError(
    'ERR_LOCKGUARD_USAGE',
    `Expected --keep to be a whole number of runs (0 or more), got "${value}" (lockguard prune).`,
    {
      hint: `lockguard prune --keep ${DEFAULT_KEEP} keeps the newest ${DEFAULT_KEEP} runs.`,
    },
  );
}

/** `lockguard: removed 132 runs (2.4 MB) and 3 lockfile copies (1.1 MB); kept 52: the newest 50, 2 live` */
function summary(result: PruneResult): string {
  const runBytes = result.removed.reduce((sum, run) => sum + run.bytes, 0);
  const counts = new Map<string, number>();
  for (const run of result.kept) {
    // The newest snapshot and the newest guarded run are named as such.
    const reason =
      run.reason === 'newest-of-kind' ? (run.id.includes('-snapshot-') ? 'newest-snapshot' : 'newest-run') : run.reason;
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  const why = [...counts].map(([reason, count]) => keptPhrase(reason, count)).join(', ');
  const kept =
    result.kept.length === 0
      ? 'no run kept'
      : `kept ${plural(result.kept.length, 'run', 'runs')}${why === '' ? '' : `: ${why}`}`;
  const verb = result.dryRun ? 'would remove' : 'removed';
  if (result.removed.length === 0 && result.blobs.removed === 0) return `lockguard: nothing to prune; ${kept}`;
  const blobs =
    result.blobs.removed === 0
      ? ''
      : ` and ${plural(result.blobs.removed, 'lockfile copy', 'lockfile copies')} (${size(result.blobs.bytes)})`;
  return `lockguard: ${verb} ${plural(result.removed.length, 'run', 'runs')} (${size(runBytes)})${blobs}; ${kept}`;
}

function keptPhrase(reason: string, count: number): string {
  switch (reason) {
    case 'newest':
      return count === 1 ? 'the newest run' : `the newest ${count}`;
    case 'newest-snapshot':
      return 'the newest snapshot';
    case 'newest-run':
      return 'the newest guarded run';
    case 'live':
      return `${count} live or unfinished`;
    case 'quarantine':
      return `${count} with withheld entries in quarantine`;
    case 'named':
      return `${count} named by LOCKGUARD_RUN or LOCKGUARD_RUN_<NAME>`;
    default:
      return `${count} unreadable`;
  }
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
