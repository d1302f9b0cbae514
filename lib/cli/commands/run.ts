// `lockguard run [options] -- <command...>`: guard a task graph.
//
// Composes: which runner caches to guard (integrations/runners/detect.ts, through root scripts too), the
// table read and the pre-run check (core), the guarded session and the child (run), the runner-cache passes
// (runner-guard.ts) and the words and exit code (run-outcome.ts).
// Invariants: argv after `--` reaches the child exactly; the child's own failure code always wins; a move is
// reported in one status line on stderr; the pre-run check, the remote decision and runner resolution all
// read the command through the same walk (package-managers/script-walk.ts).
// Crash safety: runs whose guard died are finished before this run's child starts (cli/recover.ts); what
// this run guards is on disk (guard.json) before the child is spawned, and its pid is recorded once it is;
// signals after the child exited wait for the withholding pass (a second one stops it between entries);
// the run is marked finished only when its passes completed, so a later command finishes what is left.

import { checkInstall } from '../../core/install-check.js';
import { constants } from 'node:os';
import { isLockguardError, LockguardError } from '../../core/errors.js';
import { readWorkspaceFingerprints, type WorkspaceFingerprints } from '../../core/fingerprints.js';
import { redactText } from '../../core/redact.js';
import { statusLine } from '../../core/watch.js';
import type { Workspace } from '../../core/workspace.js';
import { directTurboStart, resolveGuard, runnersInCommand, stepsOf, withholdScope, type GuardPlan, type GuardedRunner, type RemoteMode, type WithholdScope } from '../../integrations/runners/index.js';
import { withWorkspaceBins } from '../../integrations/package-managers/on-path.js';
import { preparesTreeFirst } from '../../integrations/package-managers/script-walk.js';
import { runChild, type ChildEnd } from '../../run/child.js';
import { appendEvent, findRun, type Policy } from '../../run/ledger.js';
import { liveRunsFor } from '../../run/live.js';
import { buildReport, saveReport } from '../../run/report.js';
import { GuardSession } from '../../run/session.js';
import { lockfileMovesAmong, sliceMoveJson, type SliceMove } from '../../run/slice-report.js';
import { oneOf, parse, stringValue, flag } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { paint, printError, type Io } from '../io.js';
import { guardRecordOf } from '../guard-file.js';
import { holdForQuarantine, passControl, pauseAfterChild } from '../pass-control.js';
import { recoverFirst } from '../recover.js';
import { warnTrackedLedger } from '../tracked-ledger.js';
import { writeGuard } from '../../run/guard-record.js';
import { processStart } from '../../run/live.js';
import type { Interrupts } from '../../run/interrupts.js';
import type { Command } from '../command.js';
import { refuseSetup } from '../refuse-setup.js';
import { writeSliceFilesBeforeRun } from '../slice-files.js';
import { afterRunners, prepareRunners, scopeReport, type RunnerPrepared } from '../runner-guard.js';
import { remoteOf, runnerOverride, RUNNER_HELP, RUNNER_OPTIONS } from '../runner-option.js';
import { exitCodeOf, outcomeText, RUNNER_LABEL, type FailMode } from '../run-outcome.js';
import { detectionLine, installedLine, judgedText, treeLine } from '../verdict-words.js';
import { fallbackLines, openRemoteGates, refusedClause, type RemoteGateOutcome, type RemoteGates } from '../remote-gate-wiring.js';
import { DIR_HELP, DIR_OPTION, workspaceOf } from '../workspace-option.js';

const POLICIES = ['flag', 'withhold', 'refuse'] as const;
const FAIL_MODES = ['auto', 'always', 'never'] as const;
/** How long the remote decision may wait for the runner's dry run before it assumes a writer. */
const REMOTE_PLAN_TIMEOUT_MS = 15_000;

const help = `Usage: lockguard run [options] -- <command> [args...]

Runs <command> (no shell: argv passed exactly, stdio inherited, SIGINT/SIGTERM/SIGHUP forwarded; the
node_modules/.bin folders from the current folder up to the workspace root first on PATH, nearest first, as
package scripts and npx have them) and guards it: reads the fingerprint table first (lockfile, workspace manifest, pnpmfile, patches, install markers),
notices installs inside the run (pnpmfile/npm hook reports, file events, and a final check after the command
exits), and applies the policy when the table moved. A command that is turbo 2's Node launcher
(node_modules/.bin/turbo, or pnpm's shim of it) starts the native binary that launcher would start, one Node
start sooner, with the launcher's rules (its env marker and NODE_PATH; SIGTERM and SIGHUP forwarded, SIGINT
left to the process group).

It guards every runner cache the workspace is configured for (turbo.json, nx.json, tasks/pipelines in
pnpm-workspace.yaml), however the command starts the runner: directly, through a root script (pnpm build,
pnpm run build, npm run build, yarn build, bun run build), sh -c, npx, pnpm exec or pnpm dlx. Every cache entry
the run saved at or after the move (or by a task running across it) is withheld: moved into
.lockguard/quarantine/<run>/ (lockguard quarantine list|restore). With pnpm's isolated layout and turbo, only
the entries of tasks whose project's lockfile slice moved (or a dependency's) are; the others stay, and the
line says which (the root importer's slice, any other input, or another layout: every entry, and why).

Before the command, the pre-run check refuses to start (exit 3) when the installed tree does not hold what
the lockfile says (pnpm: node_modules/.pnpm/lock.yaml and the virtual store; npm: .package-lock.json):
every key would fold the lockfile while outputs are built from another tree. Skipped for install commands
and pnpm pipeline (they install first).

A move is a change to what the runners' keys fold: the inputs (lockfile, workspace manifest, pnpmfiles,
patches), never node_modules. An install that changes only the install markers (a first or frozen install
on a fresh clone) is reported ("installed: ...; no input changed"), never withheld, failed or refused, unless
the tree then no longer holds what the lockfile says. A move seen while the command runs is said at once.

Options:
${DIR_HELP}
  --policy <p>         what a move triggers (default withhold; also $LOCKGUARD_POLICY):
                         flag      report it
                         withhold  report it, withhold the runners' stale saves, record the run as moved
                                   (lockguard verify then refuses saves keyed on it)
                         refuse    stop lockfile rewrites at the source where the package manager allows it
                                   (pnpm: the environment, and the pnpmfile plugin for pnpm add/update/remove);
                                   a rewrite that slips through fails the run (also locally) and is withheld
  --fail-on-move <m>   auto (default): a move under withhold fails the run where $CI is set, not locally;
                       always; never. The command's own failure code always wins.
  --no-pre-check       skip the pre-run check
${RUNNER_HELP}
  -h, --help           this text

Exit codes: the command's own code (128+n for a signal); 1 when it succeeded but the table moved (see
--fail-on-move); 2 usage/setup error; 3 pre-run check refused; 127 command not found.

Examples:
  lockguard run -- pnpm build                    (a root script "build": "turbo run build")
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
 * Whether the run may hold an install, for the remote-cache decision under `--remote auto`. Asked only when
 * some guarded runner has a remote cache configured (otherwise there is no upload to stop); the plan comes
 * from the runners' own dry runs through the same walk, and any doubt (no plan in time, an error) is "may".
 */
async function mayContainWriter(runners: readonly GuardedRunner[], remote: RemoteMode, withRemote: ReadonlySet<string>, command: readonly string[], root: string, env: Io['env']): Promise<(runner: GuardedRunner) => boolean> {
  if (remote !== 'auto') return () => true;
  const configured = runners.filter((runner) => withRemote.has(runner));
  if (configured.length === 0) return () => false;
  let writer = true;
  try {
    const { planFor } = await import('../../integrations/plan/index.js');
    writer = (await planFor(command, root, env, { timeoutMs: REMOTE_PLAN_TIMEOUT_MS })).writers.length > 0;
  } catch {
    writer = true;
  }
  return (runner) => writer && configured.includes(runner);
}

interface RunOptions {
  readonly policy: Policy;
  readonly failMode: FailMode;
  readonly override: ReturnType<typeof runnerOverride>;
  readonly remote: RemoteMode;
  readonly preCheck: boolean;
}

function optionsOf(argv: readonly string[], io: Io): { options: RunOptions; childArgv: string[]; parsed: ReturnType<typeof parse> } {
  const { options, command: childArgv } = splitArgv(argv);
  const parsed = parse('run', options, { ...DIR_OPTION, ...RUNNER_OPTIONS, policy: { type: 'string' }, 'fail-on-move': { type: 'string' }, 'no-pre-check': { type: 'boolean' } });
  const policyWord = stringValue(parsed, 'policy');
  const fromEnv = io.env['LOCKGUARD_POLICY'];
  const policy = policyWord !== undefined ? oneOf('--policy', policyWord, POLICIES) : fromEnv !== undefined && fromEnv !== '' ? oneOf('LOCKGUARD_POLICY', fromEnv, POLICIES) : 'withhold';
  return {
    options: { policy, failMode: oneOf('--fail-on-move', stringValue(parsed, 'fail-on-move') ?? 'auto', FAIL_MODES), override: runnerOverride(parsed), remote: remoteOf(parsed, io.env), preCheck: !flag(parsed, 'no-pre-check') },
    childArgv,
    parsed,
  };
}

/** A guarded run inside a guarded run joins it (the outer run watches the same table); undefined when not nested. */
async function joinOuterRun(workspace: Workspace, childArgv: readonly string[], io: Io): Promise<number | undefined> {
  const named = io.env['LOCKGUARD_RUN'];
  if (named === undefined || named === '') return undefined;
  const outer = findRun(workspace.root, undefined, named);
  if (!liveRunsFor(workspace.root, io.env).some((run) => run.id === outer.record.id)) return undefined;
  appendEvent(outer, { type: 'nested', command: childArgv, pid: process.pid });
  const end = await runChild(childArgv, { cwd: io.cwd, env: withWorkspaceBins(io.env, io.cwd, workspace.root) });
  if (end.kind === 'failed') io.stderr.write(`lockguard: cannot run "${childArgv[0]}" (${end.reason}).\n`);
  return end.code;
}

/** The pre-run check: refuse to start when the installed tree does not hold what the lockfile says. */
function preCheck(table: WorkspaceFingerprints, workspace: Workspace): void {
  const verdict = checkInstall(table);
  if (verdict.ok) return;
  throw new LockguardError('ERR_LOCKGUARD_PRE_CHECK', `The installed tree does not hold what ${verdict.lockfile} says: ${verdict.detail}. Every cache key would fold the lockfile while outputs are built from another tree.`, {
    path: workspace.root,
    hint: `Install first (${verdict.fix ?? (workspace.manager === 'npm' ? 'npm ci' : `${workspace.manager} install --frozen-lockfile`)}), or pass --no-pre-check.`,
  });
}

export const command: Command = {
  help,
  async run(argv, io: Io) {
    const { options, childArgv, parsed } = optionsOf(argv, io);
    const workspace = await workspaceOf(parsed, io);
    const joined = await joinOuterRun(workspace, childArgv, io);
    if (joined !== undefined) return joined;
    // A guard that died left stale saves unchecked: finish its run before this command's runner starts.
    const stopped = await recoverFirst(workspace.root, io, 'strict', 'run');
    if (stopped !== undefined) return stopped;
    warnTrackedLedger(workspace.root, io);

    const steps = stepsOf(childArgv, io.cwd);
    // pnpm pipeline installs (frozen) before it keys its tasks: its keys fold the inputs, not the markers.
    const pipeline = options.override === 'pnpm-pipeline' || (options.override === undefined && runnersInCommand(childArgv, io.cwd, steps).includes('pnpm-pipeline'));
    const table = readWorkspaceFingerprints(workspace.root, { scope: pipeline ? 'inputs' : 'full', manager: workspace.manager });
    const guard = resolveGuard(childArgv, workspace.root, io.cwd, options.override, { workspaceYaml: table.files.get('pnpm-workspace.yaml') }, steps);
    if (options.preCheck && !pipeline && !preparesTreeFirst(steps)) preCheck(table, workspace);
    const refuse = options.policy === 'refuse' ? refuseSetup(table, io.env) : undefined;
    if (refuse?.warning !== undefined) io.stderr.write(`${paint(io, io.stderr, 'yellow', refuse.warning)}\n`);
    // Each project's .lockguard-slice, so turbo's and nx's own keys fold what the lockfile gives it.
    const sliceNotes = await writeSliceFilesBeforeRun(table, guard.runners, io);

    // A move is a change to what the runners' keys fold: the inputs (turbo, nx and pnpm pipeline key on the
    // lockfile and manifests, never on node_modules). The install markers are read for the pre-run check and
    // say what an install did; they never withhold, fail or refuse (a CI cache of node_modules is judged by
    // snapshot --scope full and verify).
    const session = new GuardSession(table, options.policy, childArgv, { judged: 'inputs' });
    // The remote gate, where it can stand: restores and uploads decided at the request, no up-front switch.
    const gates = await openRemoteGates({ runners: guard.runners, root: workspace.root, command: childArgv, env: io.env, remote: options.remote, policy: options.policy, session });
    let end: ChildEnd;
    let prepared: RunnerPrepared;
    const runStartedAt = Date.now();
    // Held from just before the child starts: while it runs, child.ts forwards signals to it; once it has
    // exited (arm), a signal waits for the final check and the withholding pass (a second one stops the
    // pass between two entries), so a cache entry is never left half moved.
    const interrupts = holdForQuarantine(io);
    try {
      let gateOutcome: RemoteGateOutcome;
      try {
        const remoteSwitch = await mayContainWriter(
          guard.runners.filter((runner) => !gates.gated.has(runner)),
          options.remote,
          gates.withRemote,
          childArgv,
          workspace.root,
          io.env,
        );
        prepared = prepareRunners(guard, workspace.root, gates.argv, io.env, options.remote, (runner) => !gates.gated.has(runner) && remoteSwitch(runner));
        for (const line of fallbackLines(gates, prepared.announce)) io.stderr.write(`${line}\n`);
        // What this run guards is on disk before the child can save anything (run/guard-record.ts); a run
        // that guards no runner cache has nothing a later command could withhold, and writes nothing.
        if (prepared.caches.length > 0) writeGuard(session.run.dir, guardRecordOf(prepared.caches, runStartedAt));
        const guardedCount = prepared.caches.length;
        session.onDetect((move) => io.stderr.write(`${paint(io, io.stderr, 'yellow', detectionLine(move, options.policy, guardedCount))}\n`));
        session.listen();
        // The workspace's node_modules/.bin folders first on PATH, as package scripts and npx have them.
        const childEnv = { ...withWorkspaceBins(io.env, io.cwd, workspace.root), ...prepared.env, ...gates.env, ...refuse?.env, LOCKGUARD_RUN: session.run.dir };
        // turbo's Node launcher would only start turbo's native binary: the run starts it in its place.
        const direct = directTurboStart(prepared.argv, io.cwd, childEnv);
        end = await runChild(direct?.argv ?? prepared.argv, {
          cwd: io.cwd,
          env: direct?.env ?? childEnv,
          ...(direct === undefined ? {} : { forward: direct.forward }),
          onSpawn: (pid) => recordOrWarn(io, "the child's pid", () => appendEvent(session.run, { type: 'child', pid, pidStart: processStart(pid) })),
        });
      } finally {
        session.stop();
        gateOutcome = await gates.close();
        interrupts.arm();
      }
      for (const line of gateOutcome.loud) io.stderr.write(`${paint(io, io.stderr, 'yellow', line)}\n`);
      return await finishRun({ io, session, options, childArgv, end, prepared, guard, runStartedAt, interrupts, gates, gateOutcome, sliceNotes });
    } finally {
      interrupts.release();
    }
  },
};

interface Finishing {
  readonly io: Io;
  readonly session: GuardSession;
  readonly options: RunOptions;
  readonly childArgv: readonly string[];
  readonly end: ChildEnd;
  readonly prepared: RunnerPrepared;
  readonly guard: GuardPlan;
  readonly runStartedAt: number;
  readonly interrupts: Interrupts;
  readonly gates: RemoteGates;
  readonly gateOutcome: RemoteGateOutcome;
  /** What the slice files written before the command changed (cli/slice-files.ts), for the report. */
  readonly sliceNotes: readonly string[];
}

/** Best effort for what only records (events, the report): a ledger that cannot be written warns, never hides the verdict. */
function recordOrWarn(io: Io, what: string, write: () => void): void {
  try {
    write();
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    io.stderr.write(`lockguard: warning: ${what} was not written (${error.message})\n`);
  }
}

/**
 * After the child: the final check, the withholding passes, the verdict line and the exit code. The verdict
 * is printed and decides the exit code even when the report cannot be written; a pass a disk fault stopped
 * is a setup error (exit 2, its path and fix), and a pass a second signal stopped exits 128+n: either way
 * the run stays unfinished (its live marker stays), so the next lockguard command withholds what is left.
 */
async function finishRun(f: Finishing): Promise<number> {
  const { io, session, options, end, prepared, guard } = f;
  const runId = session.run.record.id;
  const runEndedAt = Date.now();
  if (end.kind === 'failed') io.stderr.write(`lockguard: cannot run "${redactText(f.childArgv[0] ?? '')}" (${end.reason === 'not-found' ? 'command not found' : end.reason}).\n`);
  await pauseAfterChild(io, f.interrupts);
  const move = session.finish();
  // Which saves after the move to withhold: per project where the slices are exact, else all (and why). A
  // ledger problem reading the slices never stops the pass: it withholds every save, then is thrown as before.
  let slices: SliceMove[] = [];
  let sliceProblem: LockguardError | undefined;
  if (move !== undefined) {
    try {
      slices = await lockfileMovesAmong(
        session.run.record,
        move.files.map((file) => file.path),
      );
    } catch (error) {
      if (!isLockguardError(error)) throw error;
      sliceProblem = error;
    }
  }
  const scope: WithholdScope | undefined =
    move === undefined
      ? undefined
      : sliceProblem !== undefined
        ? { kind: 'all', reason: `the slices cannot be compared (${sliceProblem.code})` }
        : withholdScope({ root: session.table.root, manager: session.table.manager, moved: move.files, slices });
  const outcome = await afterRunners(prepared, options.policy, move, runId, { runStartedAt: f.runStartedAt, runEndedAt }, passControl(io, f.interrupts), scope);
  const complete = !outcome.interrupted && outcome.fault === undefined;
  let code = exitCodeOf(end.code, move !== undefined, options.policy, options.failMode, io.env);
  if (outcome.fault !== undefined && (code === 0 || code === EXIT.moved)) code = EXIT.usage;
  const signal = f.interrupts.signal;
  if (signal !== undefined && (code === 0 || code === EXIT.moved)) code = 128 + (constants.signals[signal] ?? 0);
  recordOrWarn(io, "the run's exit event", () => appendEvent(session.run, { type: 'exit', code, child: end }));

  const withheld = outcome.caches.flatMap((cache) =>
    (cache.withheld?.withheld ?? []).map((entry) => ({
      runner: entry.runner,
      key: entry.key,
      task: entry.task ?? null,
      from: entry.paths.map((path) => `${entry.cacheDir}/${path}`),
      to: cache.withheld?.quarantineDir ?? '',
      reason: entry.reason,
    })),
  );
  if (withheld.length > 0) recordOrWarn(io, 'the withheld event', () => appendEvent(session.run, { type: 'withheld', count: withheld.length, quarantine: [...new Set(withheld.map((entry) => entry.to))] }));
  const cacheNames = prepared.caches.map((guarded) => RUNNER_LABEL[guarded.runner]);
  if (sliceProblem !== undefined) throw sliceProblem;
  recordOrWarn(io, "the run's report", () =>
    saveReport(
      session.run,
      buildReport({
        run: session.run,
        command: f.childArgv,
        policy: options.policy,
        exit: end,
        exitCode: code,
        move,
        runner: guard.started[0] ?? guard.runners[0] ?? 'none',
        caches: prepared.caches.map((guarded) => ({ runner: guarded.runner, cacheDir: guarded.cache.dir, source: guarded.cache.source, started: guarded.started })),
        withheld,
        keptBeforeMove: outcome.keptBeforeMove,
        ...(scope === undefined ? {} : { withholdScope: scopeReport(scope, outcome) }),
        tasksAfterMove: outcome.tasksAfterMove,
        remote: fallbackLines(f.gates, prepared.announce),
        remoteGate: { gates: f.gateOutcome.gates, refused: { uploads: f.gateOutcome.refusedUploads, blobs: f.gateOutcome.refusedParts, restores: f.gateOutcome.refusedRestores } },
        slices: slices.map(sliceMoveJson),
        installed: session.installed,
        judged: judgedText(session.judged, cacheNames),
        notes: [...f.sliceNotes, ...outcome.notes, ...f.gateOutcome.notes],
      }),
    ),
  );
  if (move !== undefined) {
    const done = outcomeText(options.policy, outcome, prepared.caches, runId, refusedClause(f.gateOutcome, outcome.spared));
    io.stderr.write(`${paint(io, io.stderr, 'yellow', move.tree === undefined ? statusLine(move.files, done) : treeLine({ files: move.files, tree: move.tree }, done))}\n`);
    for (const slice of slices) io.stderr.write(`  ${redactText(slice.text)}\n`);
    io.stderr.write(`  ${judgedText(session.judged, cacheNames)}\n`);
  } else if (session.installed.length > 0) {
    // An install that left every input as it was (a first or frozen install on a fresh clone): said, not withheld.
    io.stderr.write(`${installedLine(session.installed)}\n  ${judgedText(session.judged, cacheNames)}\n`);
  }
  if (outcome.fault !== undefined) {
    printError(io, outcome.fault);
    io.stderr.write('  The stale entries not yet withheld stay in the cache until then: the next lockguard command in this workspace withholds them.\n');
  } else if (outcome.interrupted) {
    io.stderr.write(`lockguard: the withholding pass was stopped; the next lockguard command in this workspace withholds the rest (run ${runId}).\n`);
  }
  // Finished only when the passes completed: otherwise the live marker stays, and the next command finishes the run.
  if (complete && !session.close()) io.stderr.write('lockguard: warning: the run could not be marked finished; the next lockguard command finishes it again (nothing is lost).\n');
  return code;
}
