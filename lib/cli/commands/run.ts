// `lockguard run [options] -- <command...>`: guard a task graph.
//
// Owns: the command's arguments, its help, and rendering a guarded run (guard/run.ts guardedRun, which does
// the work) into its lines and exit code: the events as they come (cli/guard-words.ts), then the status line.
// Invariants: argv after `--` reaches the child exactly; the child's own failure code always wins; a move is
// reported in one status line on stderr; runs whose guard died are finished before this run's child starts
// (cli/recover.ts); what the run leaves unfinished (a pass stopped by a signal or a fault) is said, with
// what the next lockguard command does about it.

import { MOVED_EXIT_HELP, MOVED_EXIT_OPTION, movedExitCode } from '../ci-outputs.js';
import { redactText } from '../../core/redact.js';
import type { Policy } from '../../ledger/ledger.js';
import type { RemoteMode } from '../../integrations/runners/index.js';
import { guardedRun, joinOuterRun } from '../../guard/run.js';
import type { RunFinished } from '../../guard/finish.js';
import { judgedText } from '../../guard/record-words.js';
import { runnerLabel, stepsOf } from '../../integrations/runners/index.js';
import { rushHere, type RushHere } from '../../integrations/runners/rush.js';
import { LockguardError } from '../../core/errors.js';
import { oneOf, parse, stringValue, flag } from '../args.js';
import type { Command } from '../command.js';
import { guardContext } from '../guard-words.js';
import { moveStatusLine, runEventLines, rushLine } from '../run-words.js';
import { paint, printError, quietIo, type Io, warn } from '../io.js';
import { runAnswer } from '../run-json.js';
import { recoverFirst } from '../recover.js';
import { outcomeText, refusedClause, runExitCode, type FailMode } from '../run-outcome.js';
import { remoteOf, runnerOverride, RUNNER_HELP, RUNNER_OPTIONS } from '../runner-option.js';
import { warnTrackedLedger } from '../tracked-ledger.js';
import { installedLine, treeLine } from '../verdict-words.js';
import { DIR_HELP, DIR_OPTION, workspaceOf } from '../workspace-option.js';
import { keepLedgerBounded } from '../retention-step.js';
import { decide, readSettings, type TeamSettings } from '../settings.js';

const POLICIES = ['flag', 'withhold', 'refuse'] as const;
const FAIL_MODES = ['auto', 'always', 'never'] as const;

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
  --policy <p>         what a move triggers (default withhold; also $LOCKGUARD_POLICY, "policy" in settings):
                         flag      report it
                         withhold  report it, withhold the runners' stale saves, record the run as moved
                                   (lockguard verify then refuses saves keyed on it)
                         refuse    stop lockfile rewrites at the source where the package manager allows it
                                   (pnpm: the environment, and the pnpmfile plugin for pnpm add/update/remove);
                                   a rewrite that slips through fails the run (also locally) and is withheld
  --fail-on-move <m>   auto (default): a move under withhold fails the run where $CI is set, not locally;
                       always; never ("failOnMove" in settings). The command's own failure code always wins.
  --no-pre-check       skip the pre-run check ("preCheck": false in settings)
${MOVED_EXIT_HELP}
${RUNNER_HELP}
  --json               after the command, one line on stdout (the last: the command's own output comes first):
                       {version, command, exitCode, run, policy, moved, tree, caches, withheld, spared,
                       staleLeft, stopped, unguarded, rush}, instead of the status lines (errors and
                       warnings stay); an error: {version, command, exitCode, error}, one line too
  -h, --help           this text

Settings a team decides once go in the workspace root's package.json, overridden by the environment, then
by flags: "lockguard": {"policy": "refuse", "failOnMove": "always", "remote": "off", "preCheck": true}.

Exit codes: the command's own code (128+n for a signal); 1 (or --moved-exit-code) when it succeeded but
the table moved (see --fail-on-move); 2 usage/setup error; 3 pre-run check refused; 127 command not found.

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
    throw new LockguardError('ERR_LOCKGUARD_USAGE', 'lockguard run got no command after "--".', {
      hint: 'For example: lockguard run -- turbo run build',
    });
  }
  return { options: argv.slice(0, at), command };
}

interface RunOptions {
  readonly policy: Policy;
  readonly failMode: FailMode;
  readonly override: ReturnType<typeof runnerOverride>;
  readonly remote: RemoteMode;
  readonly preCheck: boolean;
  readonly movedCode: number;
}

const RUN_OPTIONS = {
  ...DIR_OPTION,
  ...RUNNER_OPTIONS,
  policy: { type: 'string' },
  'fail-on-move': { type: 'string' },
  'no-pre-check': { type: 'boolean' },
  json: { type: 'boolean' },
  ...MOVED_EXIT_OPTION,
} as const;

/**
 * The options before `--` and the command after it. The options are judged first, so `run --policy` with its
 * value missing names --policy, not the missing command.
 */
function parsedRun(argv: readonly string[]): { childArgv: string[]; parsed: ReturnType<typeof parse> } {
  const at = argv.indexOf('--');
  // Without `--`, words that are no flag are the command given without it: splitArgv says so.
  const parsed = parse('run', at === -1 ? argv : argv.slice(0, at), RUN_OPTIONS, at === -1);
  const { command: childArgv } = splitArgv(argv);
  return { childArgv, parsed };
}

/** The run's settings: each flag, else its environment variable, else package.json's "lockguard" field, else the default. */
function optionsOf(parsed: ReturnType<typeof parse>, io: Io, team: TeamSettings): RunOptions {
  const policyWord = stringValue(parsed, 'policy');
  const fromEnv = io.env['LOCKGUARD_POLICY'];
  const policy = decide<Policy>(
    policyWord === undefined ? undefined : oneOf('--policy', policyWord, POLICIES),
    fromEnv === undefined || fromEnv === '' ? undefined : oneOf('LOCKGUARD_POLICY', fromEnv, POLICIES),
    team.policy,
    'withhold',
  ).value;
  const failWord = stringValue(parsed, 'fail-on-move');
  return {
    policy,
    failMode: decide<FailMode>(
      failWord === undefined ? undefined : oneOf('--fail-on-move', failWord, FAIL_MODES),
      undefined,
      team.failOnMove,
      'auto',
    ).value,
    override: runnerOverride(parsed),
    remote: remoteOf(parsed, io.env, team.remote as RemoteMode | undefined),
    preCheck: decide<boolean>(flag(parsed, 'no-pre-check') ? false : undefined, undefined, team.preCheck, true).value,
    movedCode: movedExitCode(parsed, 'run'),
  };
}

export const command: Command = {
  help,
  async run(argv, io: Io) {
    const { childArgv, parsed } = parsedRun(argv);
    const workspace = await workspaceOf(parsed, io);
    const settings = readSettings(workspace.root);
    const options = optionsOf(parsed, io, settings.settings);
    const context = guardContext(io, (event) => runEventLines(io, event));
    const joined = await joinOuterRun(workspace, childArgv, context);
    if (joined !== undefined) return joined;
    // A guard that died left stale saves unchecked: finish its run before this command's runner starts.
    const stopped = await recoverFirst(workspace.root, io, 'strict', 'run');
    if (stopped !== undefined) return stopped;
    warnTrackedLedger(workspace.root, io);
    const finished = await guardedRun(
      {
        workspace,
        command: childArgv,
        policy: options.policy,
        runner: options.override,
        remote: options.remote,
        preCheck: options.preCheck,
        exitCode: (verdict) => runExitCode(verdict, options.failMode, io.env, options.movedCode),
      },
      context,
    );
    // Rush (rush.json, or the command starts it) is said on the line: its cache needs no withholding, and why.
    const rush = rushHere(workspace.root, () => stepsOf(childArgv, io.cwd).map((step) => step.argv));
    if (flag(parsed, 'json')) {
      // The answer replaces the status lines; errors and warnings still go to stderr.
      printFinished(quietIo(io), finished, rush);
      const version = await (await import('../version.js')).version();
      io.stdout.write(`${runAnswer(version, finished, rush)}\n`);
    } else printFinished(io, finished, rush);
    keepLedgerBounded(workspace.root, io, settings);
    return finished.code;
  },
};

/** The run's last lines: the status line (or the install line), and what is left when the pass was cut short. */
function printFinished(io: Io, run: RunFinished, rush: RushHere | undefined): void {
  const { outcome, move } = run;
  const cacheNames = run.caches.map((guarded) => runnerLabel(guarded.runner));
  if (move !== undefined) {
    const done = outcomeText(run.policy, outcome, run.caches, run.runId, refusedClause(run.gates, outcome.spared));
    io.stderr.write(
      `${paint(io, io.stderr, 'yellow', move.tree === undefined ? moveStatusLine(move.files, done, cacheNames, rush, outcome.unresolved?.length ?? 0) : treeLine({ files: move.files, tree: move.tree }, done))}\n`,
    );
    for (const slice of run.slices) io.stderr.write(`  ${redactText(slice.text)}\n`);
    io.stderr.write(`  ${judgedText(run.judged, cacheNames)}\n`);
  } else if ((outcome.unresolved ?? []).length > 0) {
    // No move, yet a runner this run should guard could not be: said on every run, not only when it matters.
    for (const item of outcome.unresolved ?? [])
      io.stderr.write(
        `${paint(io, io.stderr, 'yellow', `[lockguard] the ${runnerLabel(item.runner)} cache is not guarded: ${item.why} (lockguard doctor says the fix)`)}\n`,
      );
  }
  if (move === undefined && run.installed.length > 0) {
    // An install that left every input as it was (a first or frozen install on a fresh clone): said, not withheld.
    io.stderr.write(`${installedLine(run.installed)}\n  ${judgedText(run.judged, cacheNames)}\n`);
  }
  // Rush on a run that moved nothing: said every time, so its cache is never taken for guarded or forgotten.
  if (move === undefined && rush !== undefined) io.stderr.write(`${paint(io, io.stderr, 'yellow', rushLine(rush))}\n`);
  if (outcome.stop?.kind === 'fault') {
    printError(io, outcome.stop.error);
    io.stderr.write(
      '  The stale entries not yet withheld stay in the cache until then: the next lockguard command in this workspace withholds them.\n',
    );
  } else if (outcome.stop?.kind === 'signal') {
    io.stderr.write(
      `lockguard: the withholding pass was stopped; the next lockguard command in this workspace withholds the rest (run ${run.runId}).\n`,
    );
  }
  if (!run.markedFinished)
    warn(io, 'the run could not be marked finished; the next lockguard command finishes it again (nothing is lost).');
}
