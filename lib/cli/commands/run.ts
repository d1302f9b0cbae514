// `lockguard run [options] -- <command...>`: guard a task graph.
//
// Composes: the table read and the pre-run check (core), the guarded session and the child (run), and
// the exit-code policy (here). Invariants: argv after `--` reaches the child exactly; the child's own
// failure code always wins; a move is reported in one status line on stderr.

import { checkInstall } from '../../core/install-check.js';
import { isInstallCommand } from '../../core/commands.js';
import { constants } from 'node:os';
import { isLockguardError, LockguardError } from '../../core/errors.js';
import { readWorkspaceFingerprints } from '../../core/fingerprints.js';
import { statusLine } from '../../core/watch.js';
import { runChild, type ChildEnd } from '../../run/child.js';
import { appendEvent, findRun, type Policy } from '../../run/ledger.js';
import { liveRunsFor } from '../../run/live.js';
import { buildReport, saveReport } from '../../run/report.js';
import { GuardSession } from '../../run/session.js';
import { oneOf, parse, stringValue, flag } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { paint, printError, type Io } from '../io.js';
import type { Command } from '../main.js';
import { DIR_HELP, DIR_OPTION, workspaceOf } from '../workspace-option.js';
import { afterRunner, prepareRunner, type RunnerOutcome, type RunnerPrepared } from '../runner-guard.js';
import { holdForQuarantine, passControl } from '../pass-control.js';
import type { Interrupts } from '../../run/interrupts.js';
import { remoteConfigured, type RemoteMode, type RunnerName } from '../../integrations/runners/index.js';
import { lockfileMovesAmong, sliceMoveJson } from '../../run/slice-report.js';
import { remoteOf, runnerOf, RUNNER_HELP, RUNNER_OPTIONS } from '../runner-option.js';

const POLICIES = ['flag', 'withhold', 'refuse'] as const;
const FAIL_MODES = ['auto', 'always', 'never'] as const;

const help = `Usage: lockguard run [options] -- <command> [args...]

Runs <command> (no shell: argv passed exactly, stdio inherited, SIGINT/SIGTERM/SIGHUP forwarded) and guards
it: reads the fingerprint table first (lockfile, workspace manifest, pnpmfile, patches, install markers),
notices installs inside the run (pnpmfile/npm hook reports, file events, and a final check after the command
exits), and applies the policy when the table moved.

Before the command, the pre-run check refuses to start (exit 3) when the installed tree does not hold what
the lockfile says (pnpm: node_modules/.pnpm/lock.yaml and the virtual store; npm: .package-lock.json):
every key would fold the lockfile while outputs are built from another tree. Skipped for install commands
and pnpm pipeline (they install first).

With turbo, nx or pnpm pipeline, every cache entry the run saved at or after the move (or by a task running
across it) is withheld: moved into .lockguard/quarantine/<run>/ (lockguard quarantine list|restore). For
pnpm pipeline, which runs its own frozen install before keying its tasks, the inputs scope is guarded.

Options:
${DIR_HELP}
  --policy <p>         what a move triggers (default withhold; also $LOCKGUARD_POLICY):
                         flag      report it
                         withhold  report it, and mark the run stale: lockguard verify refuses saves
                         refuse    the pnpmfile plugin freezes the lockfile at the source; a rewrite that
                                   slips through fails the run (also locally) and is withheld
  --fail-on-move <m>   auto (default): a move under withhold fails the run where $CI is set, not locally;
                       always; never. The command's own failure code always wins.
  --no-pre-check       skip the pre-run check
${RUNNER_HELP}
  -h, --help           this text

Exit codes: the command's own code (128+n for a signal); 1 when it succeeded but the table moved (see
--fail-on-move); 2 usage/setup error; 3 pre-run check refused; 127 command not found.

Examples:
  lockguard run -- turbo run build
  lockguard run --policy refuse -- pnpm -r run test
  LOCKGUARD_POLICY=flag lockguard run -- nx run-many -t build
`;

function splitArgv(argv: readonly string[]): { options: string[]; command: string[] } {
  const at = argv.indexOf('--');
  if (at === -1) {
    throw new LockguardError('ERR_LOCKGUARD_USAGE', 'lockguard run needs the command after "--".', {
      hint: 'For example: lockguard run -- turbo run build',
    });
  }
  const command = argv.slice(at + 1);
  if (command.length === 0) {
    throw new LockguardError('ERR_LOCKGUARD_USAGE', 'lockguard run got no command after "--".', { hint: 'For example: lockguard run -- turbo run build' });
  }
  return { options: argv.slice(0, at), command };
}

/**
 * Whether the run may hold an install, for the remote-cache decision under `--remote auto`. Only asked
 * when a remote cache is configured (otherwise there is no upload to stop); the plan comes from the
 * runner's own dry run, and any doubt (no plan in time, an error) counts as "may".
 */
async function mayContainWriter(runner: RunnerName, remote: RemoteMode, command: readonly string[], root: string, env: Io['env']): Promise<boolean> {
  if (remote !== 'auto') return true;
  if (!remoteConfigured(runner, root, env)) return false;
  try {
    const { planFor } = await import('../../integrations/plan/index.js');
    return (await planFor(command, root, env, { timeoutMs: 15_000 })).writers.length > 0;
  } catch {
    return true;
  }
}

function isCi(env: Io['env']): boolean {
  const value = env['CI'];
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function outcome(policy: Policy, runner: RunnerOutcome): string {
  const withheld = runner.withheld?.withheld.length ?? 0;
  const replayed = runner.tasksAfterMove.filter((task) => task.action === 'restored').map((task) => task.task);
  const after = replayed.length === 0 ? '' : `; ${plural(replayed.length, 'task')} restored from cache after it (${replayed.slice(0, 3).join(', ')}${replayed.length > 3 ? ', ...' : ''}): re-run them`;
  const details = ' (lockguard status for details)';
  switch (policy) {
    case 'flag':
      return `reported only (policy flag): outputs built after it are keyed on the old lockfile${after}${details}`;
    case 'withhold':
      return `${runner.withheld === undefined ? 'the run is marked stale and lockguard verify refuses its cache saves' : `${plural(withheld, 'cache save')} keyed before it ${withheld === 1 ? 'was' : 'were'} withheld`}${after}${details}`;
    case 'refuse':
      return `the rewrite was not refused at the source, so the run fails${runner.withheld === undefined ? '' : `; ${plural(withheld, 'cache save')} withheld`}${after}${details}`;
  }
}

export const command: Command = {
  summary: 'run a command (turbo, nx, pnpm -r, ...) and guard its cache saves',
  help,
  async run(argv, io: Io) {
    const { options, command: childArgv } = splitArgv(argv);
    const parsed = parse('run', options, { ...DIR_OPTION, ...RUNNER_OPTIONS, policy: { type: 'string' }, 'fail-on-move': { type: 'string' }, 'no-pre-check': { type: 'boolean' } });
    const policyWord = stringValue(parsed, 'policy');
    const policy = policyWord !== undefined ? oneOf('--policy', policyWord, POLICIES) : io.env['LOCKGUARD_POLICY'] !== undefined ? oneOf('LOCKGUARD_POLICY', io.env['LOCKGUARD_POLICY'], POLICIES) : 'withhold';
    const failMode = oneOf('--fail-on-move', stringValue(parsed, 'fail-on-move') ?? 'auto', FAIL_MODES);
    const runner = runnerOf(parsed, childArgv);
    const remote = remoteOf(parsed, io.env);
    const workspace = await workspaceOf(parsed, io);

    // Nested: a guarded run inside a guarded run joins it (the outer run watches the same table).
    if (io.env['LOCKGUARD_RUN'] !== undefined && io.env['LOCKGUARD_RUN'] !== '') {
      const outer = findRun(workspace.root, undefined, io.env['LOCKGUARD_RUN']);
      if (liveRunsFor(workspace.root, io.env).some((run) => run.id === outer.record.id)) {
        appendEvent(outer, { type: 'nested', command: childArgv, pid: process.pid });
        const end = await runChild(childArgv, { cwd: io.cwd, env: io.env });
        if (end.kind === 'failed') io.stderr.write(`lockguard: cannot run "${childArgv[0]}" (${end.reason}).\n`);
        return end.code;
      }
    }

    // pnpm pipeline installs (frozen) before it keys its tasks: its keys fold the inputs, not the markers.
    const pipeline = runner === 'pnpm-pipeline';
    const table = readWorkspaceFingerprints(workspace.root, { scope: pipeline ? 'inputs' : 'full', manager: workspace.manager });
    if (!flag(parsed, 'no-pre-check') && !isInstallCommand(childArgv) && !pipeline) {
      const verdict = checkInstall(table);
      if (!verdict.ok) {
        throw new LockguardError('ERR_LOCKGUARD_PRE_CHECK', `The installed tree does not hold what ${verdict.lockfile} says: ${verdict.detail}. Every cache key would fold the lockfile while outputs are built from another tree.`, {
          path: workspace.root,
          hint: `Install first (${workspace.manager === 'npm' ? 'npm ci' : `${workspace.manager} install --frozen-lockfile`}), or pass --no-pre-check.`,
        });
      }
    }

    const writerPossible = await mayContainWriter(runner, remote, childArgv, workspace.root, io.env);
    const session = new GuardSession(table, policy, childArgv);
    let end: ChildEnd;
    let prepared;
    const runStartedAt = Date.now();
    // Held from just before the child starts: while it runs, child.ts forwards signals to it; once it has
    // exited (arm), a signal waits for the final check and the withholding pass (a second one stops the pass
    // between two entries), so a cache entry is never left half moved.
    const interrupts = holdForQuarantine(io);
    try {
      try {
        prepared = prepareRunner(runner, workspace.root, childArgv, io.env, remote, writerPossible);
        for (const line of prepared.announce) io.stderr.write(`${line}\n`);
        session.listen();
        end = await runChild(prepared.argv, { cwd: io.cwd, env: { ...io.env, ...prepared.env, LOCKGUARD_RUN: session.run.dir } });
      } finally {
        session.stop();
        interrupts.arm();
      }
      return await finishRun({ io, session, policy, failMode, childArgv, end, prepared, runStartedAt, interrupts });
    } finally {
      interrupts.release();
    }
  },
};

interface Finishing {
  readonly io: Io;
  readonly session: GuardSession;
  readonly policy: Policy;
  readonly failMode: (typeof FAIL_MODES)[number];
  readonly childArgv: readonly string[];
  readonly end: ChildEnd;
  readonly prepared: RunnerPrepared;
  readonly runStartedAt: number;
  readonly interrupts: Interrupts;
}

/** Best effort for what only records (events, the report): a ledger that cannot be written warns once per write. */
function recordOrWarn(io: Io, what: string, write: () => void): void {
  try {
    write();
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    io.stderr.write(`lockguard: warning: ${what} was not written (${error.message})\n`);
  }
}

/**
 * After the child: the final check, the withholding pass, the verdict line and the exit code. The verdict
 * is printed and decides the exit code even when the report cannot be written; a withholding pass that a
 * disk fault stopped is a setup error (exit 2, its path and fix), and the run stays unfinished, so the next
 * lockguard command withholds what is left.
 */
async function finishRun(f: Finishing): Promise<number> {
  const { io, session, policy, end, prepared } = f;
  const runEndedAt = Date.now();
  if (end.kind === 'failed') io.stderr.write(`lockguard: cannot run "${f.childArgv[0]}" (${end.reason === 'not-found' ? 'command not found' : end.reason}).\n`);
  const move = session.finish();
  const runnerOutcome = await afterRunner(prepared, policy, move, session.run.record.id, { runStartedAt: f.runStartedAt, runEndedAt }, passControl(io, f.interrupts));
  const fault = runnerOutcome.withheld?.fault;
  const complete = runnerOutcome.withheld?.interrupted !== true && fault === undefined;

  let code = end.code;
  if (code === 0 && move !== undefined) {
    const fail = policy === 'refuse' || (policy === 'withhold' && (f.failMode === 'always' || (f.failMode === 'auto' && isCi(io.env))));
    if (fail) code = EXIT.moved;
  }
  if (fault !== undefined && (code === 0 || code === EXIT.moved)) code = EXIT.usage;
  const signal = f.interrupts.signal;
  if (signal !== undefined && (code === 0 || code === EXIT.moved)) code = 128 + (constants.signals[signal] ?? 0);
  recordOrWarn(io, 'the run\'s exit event', () => appendEvent(session.run, { type: 'exit', code, child: end }));
  const withheld = (runnerOutcome.withheld?.withheld ?? []).map((entry) => ({ runner: entry.runner, key: entry.key, task: entry.task ?? null, from: entry.paths.map((path) => `${entry.cacheDir}/${path}`), to: runnerOutcome.withheld?.quarantineDir ?? '', reason: entry.reason }));
  if (withheld.length > 0) recordOrWarn(io, 'the withheld event', () => appendEvent(session.run, { type: 'withheld', count: withheld.length, quarantine: runnerOutcome.withheld?.quarantineDir }));
  const slices = move === undefined ? [] : await lockfileMovesAmong(session.run.record, move.files.map((file) => file.path));
  const extra = { slices: slices.map(sliceMoveJson), runner: prepared.runner, cacheDir: prepared.cache?.dir ?? null, remote: prepared.announce[0] ?? null, tasksAfterMove: runnerOutcome.tasksAfterMove, keptBeforeMove: runnerOutcome.withheld?.keptBeforeMove ?? 0, complete };
  recordOrWarn(io, 'the run\'s report', () => saveReport(session.run, buildReport({ run: session.run, command: f.childArgv, policy, exit: end, exitCode: code, move, withheld, notes: runnerOutcome.notes, extra })));
  if (move !== undefined) {
    io.stderr.write(`${paint(io, io.stderr, 'yellow', statusLine(move.files, outcome(policy, runnerOutcome)))}\n`);
    for (const slice of slices) io.stderr.write(`  ${slice.text}\n`);
  }
  if (fault !== undefined) {
    printError(io, fault);
    io.stderr.write('  The entries not yet withheld stay in the cache until then: the next lockguard command in this workspace withholds them.\n');
  }
  // Finished only when the pass completed: otherwise the live marker stays, and the next command finishes it.
  if (complete && !session.close()) io.stderr.write('lockguard: warning: the run could not be marked finished; the next lockguard command will finish it again (nothing is lost).\n');
  return code;
}
