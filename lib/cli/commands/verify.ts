// `lockguard verify`: may the cache be saved? Re-checks a recorded run's table now.

import { redactRecord, redactText } from '../../core/redact.js';
import { appendGithub, appendSummary, checkoutPath, requireGithubFile } from '../../integrations/ci/github.js';
import { movedAnnotations, verdictDotenv, verdictGithubOutputs, verdictSummary } from '../../integrations/ci/report.js';
import { listQuarantine } from '../../ledger/quarantine/index.js';
import { findRun } from '../../ledger/find-run.js';
import type { RunHandle } from '../../ledger/ledger.js';
import { LockguardError } from '../../core/errors.js';
import { namedRunsIn, runNameOf, runVariable } from '../../integrations/ci/named-runs.js';
import type { Env } from '../../core/env.js';
import { verifyRun } from '../../ledger/verdict.js';
import { lockfileMovesAmong, sliceMoveJson } from '../../ledger/slice-report.js';
import { stringValue, type Parsed } from '../args.js';
import {
  MOVED_EXIT_HELP,
  MOVED_EXIT_OPTION,
  movedExitCode,
  OUTPUT_OPTIONS,
  onGithub,
  parseAnswering,
  reportFailure,
  writeDotenv,
  checkOutputTargets,
  type OutputModes,
} from '../ci-outputs.js';
import { EXIT } from '../exit-codes.js';
import { paint, type Io, warn, writeWorkflowCommand } from '../io.js';
import type { Command } from '../command.js';
import { recoverFirst } from '../recover.js';
import { verifyLine } from '../verdict-words.js';
import { DIR_HELP, DIR_OPTION, workspaceOf } from '../workspace-option.js';

const help = `Usage: lockguard verify [options]

Re-checks the fingerprint table a snapshot (or a guarded run) recorded. Exit 0: nothing moved, the cache
may be saved. Exit 1: something moved (the status line names it), do not save. Exit 2: usage or setup
error (no snapshot, not a workspace). Once a run has moved it stays moved, even if the bytes come back.
The line says when ("since the snapshot"; for a guarded run "during run <id>" for what its own checks saw,
"since run <id>" for what changed after it) and the scope judged: a snapshot's own (--scope full counts the
install markers), a guarded run's inputs (what the runners' keys fold).
The verdict is recorded in the run's events; on a ledger that cannot be written (a full or read-only
disk) it is still printed and still decides the exit code, with a one-line warning.

The run is --run, else $LOCKGUARD_RUN, else the latest run of the workspace (a snapshot or a guarded run:
right after "lockguard run", that run). In CI, snapshot --github-output sets $LOCKGUARD_RUN for later steps.
With several caches in a job, each gate names its snapshot: "snapshot --name store" then "verify --name
store" judges $LOCKGUARD_RUN_STORE, else the latest snapshot named store. A verify without --name refuses to
guess when the job holds several named runs, or when the latest run is a named one.

Options:
${DIR_HELP}
  --run <id|folder>    the run to judge
  --name <name>        the named snapshot to judge (snapshot --name): one cache's gate among several
  --summary <when>     when to write GitHub's job summary: refused (the default: a refused save or an
                       error), always, never
  --github-output      append save=true|false and moved=<comma-separated paths> to $GITHUB_OUTPUT
                       (on an error: save=false and error=<code>)
  --dotenv <path>      write LOCKGUARD_SAVE=true|false, LOCKGUARD_KEY=<key>, LOCKGUARD_MOVED=<paths> to the
                       file (GitLab's artifacts:reports:dotenv); on an error LOCKGUARD_SAVE=false and
                       LOCKGUARD_ERROR=<code>
  --json               print the verdict as JSON: {version, exitCode, run, scope, key, save, moved: [{path,
                       kind, was, now}], slices: [{lockfile, text, diff: {changed, added, removed, unchanged}}]};
                       on an error {version, command, exitCode, error: {code, message, hint}}
${MOVED_EXIT_HELP}
  -h, --help           this text

Inside GitHub Actions ($GITHUB_ACTIONS=true) a refused save also writes an ::error annotation on each moved
file and a job summary ($GITHUB_STEP_SUMMARY: what moved, the slice diff, what was withheld).

When the lockfile moved, a second line says which projects' slices changed and how (pnpm-lock.yaml,
package-lock.json), comparing the bytes the run read with the file now.
`;

export const command: Command = {
  help,
  async run(argv, io: Io) {
    const { parsed, modes } = await parseAnswering(
      'verify',
      argv,
      {
        ...DIR_OPTION,
        run: { type: 'string' },
        name: { type: 'string' },
        summary: { type: 'string' },
        ...OUTPUT_OPTIONS,
        ...MOVED_EXIT_OPTION,
      },
      io,
    );
    try {
      return await verifyAgainstSnapshot(parsed, modes, io);
    } catch (error) {
      // Every exit leaves an answer in the outputs asked for: save=false and the error's code.
      await reportFailure('verify', error, io, modes);
      throw error;
    }
  },
};

async function verifyAgainstSnapshot(parsed: Parsed, modes: OutputModes, io: Io): Promise<number> {
  const movedCode = movedExitCode(parsed, 'verify');
  const summary = summaryOf(stringValue(parsed, 'summary'));
  const name = runNameOf(stringValue(parsed, 'name'), 'verify');
  // A missing $GITHUB_OUTPUT is refused before anything is recorded (no stray run, no stray verdict).
  if (modes.github) requireGithubFile(io.env, 'GITHUB_OUTPUT');
  checkOutputTargets(modes, io);
  const workspace = await workspaceOf(parsed, io);
  // A guard that died before its final check is finished first (cli/recover.ts).
  const stopped = await recoverFirst(workspace.root, io, 'lenient', 'verify');
  if (stopped !== undefined) return stopped;
  const run = runToJudge(workspace.root, stringValue(parsed, 'run'), name, io.env);
  const { unrecorded, duringRun, ...verdict } = verifyRun(run);
  // The verdict stands even when it could not be recorded (a full or read-only ledger): one line says so.
  if (unrecorded !== undefined) warn(io, `the verdict was not recorded in the run's events (${unrecorded.message})`);
  const slices = verdict.save
    ? []
    : await lockfileMovesAmong(
        run.record,
        verdict.moved.map((file) => file.path),
      );
  const exitCode = verdict.save ? EXIT.ok : movedCode;
  const kind = run.record.kind;
  const line = verdict.save
    ? `lockguard: nothing moved since ${verdict.run} (judged on ${verdict.scope}): the cache may be saved`
    : verifyLine(verdict.moved, new Set(duringRun), kind, verdict.run, verdict.scope);
  if (modes.github) appendGithub(io.env, 'GITHUB_OUTPUT', verdictGithubOutputs(verdict));
  writeDotenv(modes, io, verdictDotenv({ ...verdict, key: verdict.key ?? '' }));
  if (onGithub(io))
    githubReport(io, workspace.root, run, summary, { ...verdict, line, slices: slices.map((move) => move.text) });
  if (modes.json) {
    const version = await (await import('../version.js')).version();
    io.stdout.write(
      `${JSON.stringify(redactRecord({ version, exitCode, ...verdict, slices: slices.map(sliceMoveJson) }), null, 2)}\n`,
    );
  } else if (verdict.save) {
    io.stdout.write(`${line}\n`);
  } else {
    io.stderr.write(`${paint(io, io.stderr, 'yellow', line)}\n`);
    for (const move of slices) io.stderr.write(`  ${redactText(move.text)}\n`);
  }
  return exitCode;
}

type SummaryWhen = 'refused' | 'always' | 'never';

/** Inside GitHub Actions: an ::error annotation on each moved file, and the job summary when --summary wants it. */
function githubReport(
  io: Io,
  root: string,
  run: RunHandle,
  summary: SummaryWhen,
  verdict: Omit<ReturnType<typeof verifyRun>, 'duringRun' | 'unrecorded'> & {
    readonly line: string;
    readonly slices: readonly string[];
  },
): void {
  const kind = run.record.kind;
  const since = kind === 'snapshot' ? 'since the snapshot' : `during or since run ${verdict.run}`;
  for (const annotation of movedAnnotations(verdict.moved, since, (path) => checkoutPath(io.env, root, path)))
    writeWorkflowCommand(io.stderr, annotation);
  // A green gate writes nothing to the summary unless asked (--summary always): one section per refusal.
  if (summary === 'never' || (summary === 'refused' && verdict.save)) return;
  const withheld = verdict.save || kind === 'snapshot' ? [] : withheldBy(root, verdict.run);
  appendSummary(
    io.env,
    verdictSummary({
      save: verdict.save,
      key: verdict.key ?? '',
      moved: verdict.moved,
      line: verdict.line,
      slices: verdict.slices,
      withheld,
      ...(run.record.name === undefined ? {} : { name: run.record.name }),
    }),
  );
}

function summaryOf(given: string | undefined): SummaryWhen {
  if (given === undefined) return 'refused';
  if (given === 'refused' || given === 'always' || given === 'never') return given;
  throw new LockguardError(
    'ERR_LOCKGUARD_USAGE',
    `--summary takes refused, always or never, not "${given.slice(0, 40)}" (lockguard verify).`,
    { hint: 'The default, refused, writes the job summary only when the save is refused.' },
  );
}

/**
 * The run this gate judges: --run; --name (LOCKGUARD_RUN_<NAME>, else the latest snapshot of that name);
 * else LOCKGUARD_RUN; else the job's one named run; else the latest run. Never a guess among named runs.
 */
function runToJudge(root: string, explicit: string | undefined, name: string | undefined, env: Env): RunHandle {
  if (name !== undefined) {
    if (explicit !== undefined)
      throw new LockguardError('ERR_LOCKGUARD_USAGE', 'Give --run or --name, not both (lockguard verify).', {
        hint: '--name judges the snapshot taken with the same --name.',
      });
    return findRun(root, undefined, env[runVariable(name)], 'snapshot', name);
  }
  const plain = env['LOCKGUARD_RUN'];
  if (explicit !== undefined || (plain !== undefined && plain !== '')) return findRun(root, explicit, plain);
  const named = namedRunsIn(env);
  if (named.length === 1) return findRun(root, undefined, named[0]?.[1], undefined, named[0]?.[0]);
  const run = named.length > 1 ? undefined : findRun(root, undefined, undefined);
  const names = run === undefined ? named.map(([one]) => one) : run.record.name === undefined ? [] : [run.record.name];
  if (run !== undefined && names.length === 0) return run;
  throw new LockguardError(
    'ERR_LOCKGUARD_USAGE',
    `${run === undefined ? `The job holds ${names.length} named runs (${names.join(', ')})` : `The latest run is the snapshot named ${names[0]}`} and verify was given no --name: it will not guess which cache's gate this is (lockguard verify).`,
    {
      hint: `Name the gate: lockguard verify --name ${(names[0] ?? 'store').toLowerCase()} (the same --name as its snapshot).`,
    },
  );
}

/** The runner cache entries a guarded run withheld, one label each (for the job summary). */
function withheldBy(root: string, runId: string): string[] {
  const listing = listQuarantine(root).find((entry) => entry.run === runId);
  return (listing?.manifest?.entries ?? []).map(
    (entry) => `${entry.runner} ${entry.key}${entry.task === undefined ? '' : ` (${entry.task})`}`,
  );
}
