// `lockguard status`: the latest run's state and report.

import { MESSAGE_MAX, printable, printableUpTo } from '../../core/printable.js';
import { plural } from '../../core/words.js';
import { findRun } from '../../ledger/find-run.js';
import { latestEvents, readReport, scanEvents, type RunEvent, type RunHandle } from '../../ledger/ledger.js';
import type { RunReport } from '../../ledger/report.js';
import { recordedMoves } from '../../ledger/verdict.js';
import { countRuns, retentionSlack } from '../../ledger/retention.js';
import { type Decided, readSettings, type Retention, retentionOf } from '../settings.js';
import { lifeOf, type Life } from '../../ledger/recovery.js';
import { lockfileMovesAmong, reportedSliceMoves, sliceMoveJson } from '../../ledger/slice-report.js';
import { flag, parse, stringValue } from '../args.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import type { Command } from '../command.js';
import { recoverFirst } from '../recover.js';
import { installedText } from '../verdict-words.js';
import { DIR_HELP, DIR_OPTION, workspaceOf } from '../workspace-option.js';
import { isoTime } from '../../core/iso-time.js';
import { redactArgv, redactRecord, redactText } from '../../core/redact.js';

const help = `Usage: lockguard status [options]

Shows a run (the latest of the workspace, or --run / $LOCKGUARD_RUN): what it read, what moved and when,
its verdicts, whether it is live, finished, or died before its final check, and its report. It does not
re-check the files (lockguard verify does); like every workspace command it first finishes runs whose
guard died (their stale saves are withheld, restorably).

Options:
${DIR_HELP}
  --run <id|folder>    the run to show
  --json               print {run, kind, root, scope, key, createdAt, moved, slices, verifies, events (the
                       latest 1000), report, ledger: {runs, keep, from}}

When a lockfile moved, says which projects' slices changed and how: a finished run's as its report
recorded them (what the run saw, even if the file is back since); otherwise comparing the bytes the run
read (kept in the ledger) with the file as it is now. Credentials in the command and in lockfile URLs
(token, secret, password and auth options, URL userinfo, ?_authToken= and the like) are shown as ***.
  -h, --help           this text
`;

/** What the human form adds from a guarded run's report: the caches, what was withheld, the notes. */
function reportLines(report: unknown): string[] {
  if (report === null || typeof report !== 'object') return [];
  const r = report as Partial<RunReport>;
  const lines: string[] = [];
  if (typeof r.exitCode === 'number') lines.push(`exit     ${r.exitCode}`);
  if (Array.isArray(r.caches)) {
    lines.push(
      r.caches.length === 0
        ? 'guarded  no runner cache'
        : `guarded  ${r.caches.map((cache) => `${cache.runner} (${cache.cacheDir})`).join(', ')}`,
    );
  }
  if (typeof r.judged === 'string') lines.push(`judged   ${r.judged.replace(/^judged /, '')}`);
  if (Array.isArray(r.installed) && r.installed.length > 0)
    lines.push(
      `install  ${installedText(r.installed, r.moved !== null && r.moved !== undefined).replace(/^installed: /, '')}`,
    );
  if (Array.isArray(r.withheld) && r.withheld.length > 0) {
    lines.push(
      `withheld ${plural(r.withheld.length, 'cache entry', 'cache entries')} into ${[...new Set(r.withheld.map((entry) => entry.to))].join(', ')} (lockguard quarantine list):`,
    );
    for (const entry of r.withheld.slice(0, SHOWN_ENTRIES))
      lines.push(
        // By task where the runner said which (its summary, or the entry's own files), by key only where not.
        `           ${entry.runner} ${typeof entry.task === 'string' ? `${printable(entry.task)} (${entry.key})` : entry.key}: ${entry.reason}`,
      );
    if (r.withheld.length > SHOWN_ENTRIES)
      lines.push(`           and ${r.withheld.length - SHOWN_ENTRIES} more (lockguard status --json)`);
  }
  const scope = r.withholdScope;
  if (
    scope !== undefined &&
    scope !== null &&
    typeof scope === 'object' &&
    Array.isArray(scope.kept) &&
    Array.isArray(scope.reasons)
  ) {
    // Which saves after the move were judged per project (integrations/runners/affected.ts), and which not.
    for (const reason of scope.reasons.slice(0, SHOWN_ENTRIES))
      lines.push(`scope    every save after the move (${printableUpTo(String(reason), MESSAGE_MAX)})`);
    if (scope.kept.length > 0)
      lines.push(
        `kept     ${plural(scope.kept.length, 'cache save', 'cache saves')} after the move, their projects' slices and reach did not move:`,
      );
    for (const entry of scope.kept.slice(0, SHOWN_ENTRIES))
      lines.push(
        `           ${printableUpTo(`${String(entry.runner)} ${String(entry.key)} (${String(entry.task)})`, MESSAGE_MAX)}`,
      );
    if (scope.kept.length > SHOWN_ENTRIES)
      lines.push(`           and ${scope.kept.length - SHOWN_ENTRIES} more (lockguard status --json)`);
  }
  if (Array.isArray(r.tasksAfterMove)) {
    const restored = r.tasksAfterMove.filter((task) => task.action === 'restored');
    if (restored.length > 0)
      lines.push(`re-run   ${restored.map((task) => task.task).join(', ')} (restored from cache after the move)`);
  }
  for (const note of Array.isArray(r.notes) ? r.notes : []) lines.push(`note     ${note}`);
  return lines;
}

/** How a guarded run ended: live, finished by itself, finished for a dead guard, or dead and unfinished. */
function lifeLines(life: Life): string[] {
  const recovered = (event: RunEvent | undefined): string[] => {
    if (event === undefined) return [];
    const withheld = typeof event['withheld'] === 'number' ? event['withheld'] : 0;
    const since = typeof event['since'] === 'number' ? isoTime(event['since']) : 'its start';
    return [
      `           ${String(event['reason'] ?? 'its guard died')}: ${plural(withheld, 'cache save', 'cache saves')} since ${since} withheld by ${String(event['by'] ?? 'a later command')}`,
    ];
  };
  switch (life.state) {
    case 'live':
      return [`life     live (guard pid ${life.pid})`];
    case 'finished':
      return life.by === 'recovery'
        ? ['life     finished for its dead guard by a later lockguard command:', ...recovered(life.recovery)]
        : ['life     finished'];
    case 'dead-unfinished':
      return [
        `life     dead, unfinished: its guard${life.pid === undefined ? '' : ` (pid ${life.pid})`} died before its final check; the next lockguard command that can write the ledger finishes it`,
        ...recovered(life.recovery),
      ];
    case 'ended':
      return [];
    case 'foreign':
      return [
        'life     not made on this machine since it last booted (a copied or committed ledger?): lockguard neither judges nor finishes it',
      ];
  }
}

/** How many of the latest events `status --json` shows (the log itself may be any size). */
const EVENTS_SHOWN = 1000;

/** How many withheld entries the human form lists before "and N more". */
const SHOWN_ENTRIES = 10;

export const command: Command = {
  help,
  async run(argv, io: Io) {
    const parsed = parse('status', argv, { ...DIR_OPTION, run: { type: 'string' }, json: { type: 'boolean' } });
    const workspace = await workspaceOf(parsed, io);
    // A guard that died before its final check is finished first (cli/recover.ts).
    const stopped = await recoverFirst(workspace.root, io, 'lenient', 'status');
    if (stopped !== undefined) return stopped;
    const run = findRun(workspace.root, stringValue(parsed, 'run'), io.env['LOCKGUARD_RUN']);
    const shown = await readStatus(run, workspace.root);
    // Both forms say the ledger's retention, so both read the team settings (a broken package.json is exit 2 in
    // each: the JSON form once skipped it and answered 0).
    const ledger = { runs: countRuns(workspace.root), ...retentionOf(readSettings(workspace.root), io.env) };
    if (flag(parsed, 'json')) {
      // Redacted as printed too (core/redact.ts): a record from an older lockguard, or a forged one.
      const body = { ...statusJson(run, shown), ledger: { runs: ledger.runs, keep: ledger.value, from: ledger.from } };
      io.stdout.write(`${JSON.stringify(redactRecord(body), null, 2)}\n`);
      return EXIT.ok;
    }
    io.stdout.write(`${redactText(statusLines(run.record, shown).join('\n'))}\n`);
    io.stdout.write(`${ledgerLine(ledger)}\n`);
    return EXIT.ok;
  },
};

/** How many runs the ledger holds, and how many it keeps by itself (the retention and where it was set). */
function ledgerLine({ runs, value, from }: { runs: number } & Decided<Retention>): string {
  const kept =
    value === 'all'
      ? 'none pruned by itself'
      : `the newest ${value} kept, older ones pruned after a run once ${value + retentionSlack(value)} pile up`;
  const where =
    from === 'default'
      ? 'the default; "keepRuns" in package.json\'s "lockguard" field'
      : from === 'environment'
        ? 'LOCKGUARD_KEEP_RUNS'
        : 'keepRuns in package.json';
  return `ledger   ${plural(runs, 'run')} (${kept}: ${where})`;
}

/** What status shows of a run, read from its ledger folder. */
interface Shown {
  readonly moved: ReturnType<typeof recordedMoves>;
  readonly verifies: number;
  readonly report: ReturnType<typeof readReport>;
  readonly life: Life | undefined;
  readonly slices: readonly ReturnType<typeof sliceMoveJson>[];
}

/** The run's moves, verify count, report, life and slice moves (the log read streaming, any size). */
async function readStatus(run: RunHandle, root: string): Promise<Shown> {
  const { record } = run;
  // The log is read streaming (any size): the counts cover all of it, the JSON view its latest events.
  const moved = recordedMoves(run.dir, record);
  let verifies = 0;
  scanEvents(run.dir, () => verifies++, ['verify']);
  const report = readReport(run.dir);
  const life = record.kind === 'run' ? lifeOf(root, run) : undefined;
  // A finished run's report says how its lockfile moved during the run (the file may be back since);
  // a run without one (live, a snapshot) is compared with the file as it is now.
  const slices =
    reportedSliceMoves(report) ??
    (
      await lockfileMovesAmong(
        record,
        moved.map((file) => file.path),
        root,
      )
    ).map(sliceMoveJson);
  return { moved, verifies, report, life, slices };
}

/** `status --json`: the record's fields, what moved, the latest events and the report. */
function statusJson(run: RunHandle, { moved, verifies, report, life, slices }: Shown) {
  const { record } = run;
  return {
    run: record.id,
    dir: run.dir,
    kind: record.kind,
    state: moved.length > 0 ? 'moved' : 'unmoved',
    root: record.root,
    manager: record.manager,
    scope: record.scope,
    key: record.key,
    createdAt: isoTime(record.at),
    policy: record.policy ?? null,
    command: record.command ?? null,
    moved,
    slices,
    verifies,
    life: life ?? null,
    events: latestEvents(run.dir, EVENTS_SHOWN),
    report: report ?? null,
  };
}

/** The human form: the run, its table and command, its life, what moved (and its slices), its report. */
function statusLines(record: RunHandle['record'], { moved, verifies, report, life, slices }: Shown): string[] {
  const lines = [
    `run      ${record.id} (${record.kind}${record.policy === undefined ? '' : `, policy ${record.policy}`})`,
    `started  ${isoTime(record.at)}`,
    `table    ${record.manager}, ${record.scope} scope${record.judged === undefined ? '' : ` (judged on ${record.judged})`}, ${record.entries.length} entries, key ${record.key}`,
  ];
  if (record.command !== undefined) lines.push(`command  ${redactArgv(record.command).join(' ')}`);
  if (life !== undefined) lines.push(...lifeLines(life));
  if (moved.length === 0) {
    lines.push(
      `state    nothing recorded as moved${verifies === 0 ? ' (not verified yet)' : ` (verified ${verifies}x)`}`,
    );
  } else {
    lines.push('state    moved:');
    for (const file of moved)
      lines.push(
        `           ${file.path} (${file.kind}: ${file.was?.slice(0, 12) ?? 'absent'} -> ${file.now?.slice(0, 12) ?? 'absent'})`,
      );
    for (const move of slices) lines.push(`slices   ${move.text}`);
  }
  lines.push(...reportLines(report));
  return lines;
}
