// `lockguard verify`: may the cache be saved? Re-checks a recorded run's table now.

import { redactRecord, redactText } from '../../core/redact.js';
import { appendGithub, appendSummary, checkoutPath, requireGithubFile } from '../../integrations/ci/github.js';
import { movedAnnotations, verdictDotenv, verdictGithubOutputs, verdictSummary } from '../../integrations/ci/report.js';
import { listQuarantine } from '../../run/quarantine/index.js';
import { findRun } from '../../run/ledger.js';
import { verifyRun } from '../../run/verdict.js';
import { lockfileMovesAmong, sliceMoveJson } from '../../run/slice-report.js';
import { parse, stringValue, type Parsed } from '../args.js';
import {
  MOVED_EXIT_HELP,
  MOVED_EXIT_OPTION,
  movedExitCode,
  OUTPUT_OPTIONS,
  onGithub,
  outputModes,
  reportFailure,
  writeDotenv,
  checkOutputTargets,
  type OutputModes,
} from '../ci-outputs.js';
import { EXIT } from '../exit-codes.js';
import { paint, writeWorkflowCommand, type Io } from '../io.js';
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

Options:
${DIR_HELP}
  --run <id|folder>    the run to judge
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
    const parsed = parse('verify', argv, {
      ...DIR_OPTION,
      run: { type: 'string' },
      ...OUTPUT_OPTIONS,
      ...MOVED_EXIT_OPTION,
    });
    const modes = outputModes(parsed);
    try {
      return await judge(parsed, modes, io);
    } catch (error) {
      // Every exit leaves an answer in the outputs asked for: save=false and the error's code.
      await reportFailure('verify', error, io, modes);
      throw error;
    }
  },
};

async function judge(parsed: Parsed, modes: OutputModes, io: Io): Promise<number> {
  const movedCode = movedExitCode(parsed, 'verify');
  // A missing $GITHUB_OUTPUT is refused before anything is recorded (no stray run, no stray verdict).
  if (modes.github) requireGithubFile(io.env, 'GITHUB_OUTPUT');
  checkOutputTargets(modes, io);
  const workspace = await workspaceOf(parsed, io);
  // A guard that died before its final check is finished first (cli/recover.ts).
  const stopped = await recoverFirst(workspace.root, io, 'lenient', 'verify');
  if (stopped !== undefined) return stopped;
  const run = findRun(workspace.root, stringValue(parsed, 'run'), io.env['LOCKGUARD_RUN']);
  const { unrecorded, duringRun, ...verdict } = verifyRun(run);
  // The verdict stands even when it could not be recorded (a full or read-only ledger): one line says so.
  if (unrecorded !== undefined)
    io.stderr.write(`lockguard: warning: the verdict was not recorded in the run's events (${unrecorded.message})\n`);
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
  if (onGithub(io)) {
    const since = kind === 'snapshot' ? 'since the snapshot' : `during or since run ${verdict.run}`;
    for (const annotation of movedAnnotations(verdict.moved, since, (path) =>
      checkoutPath(io.env, workspace.root, path),
    ))
      writeWorkflowCommand(io.stderr, annotation);
    const withheld = verdict.save || kind === 'snapshot' ? [] : withheldBy(workspace.root, verdict.run);
    appendSummary(
      io.env,
      verdictSummary({
        save: verdict.save,
        key: verdict.key ?? '',
        moved: verdict.moved,
        line,
        slices: slices.map((move) => move.text),
        withheld,
      }),
    );
  }
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

/** The runner cache entries a guarded run withheld, one label each (for the job summary). */
function withheldBy(root: string, runId: string): string[] {
  const listing = listQuarantine(root).find((entry) => entry.run === runId);
  return (listing?.manifest?.entries ?? []).map(
    (entry) => `${entry.runner} ${entry.key}${entry.task === undefined ? '' : ` (${entry.task})`}`,
  );
}
