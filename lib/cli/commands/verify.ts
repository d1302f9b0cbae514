// `lockguard verify`: may the cache be saved? Re-checks a recorded run's table now.

import { redactRecord, redactText } from '../../core/redact.js';
import { appendGithub, requireGithubFile } from '../../integrations/github.js';
import { findRun } from '../../run/ledger.js';
import { verifyRun } from '../../run/verdict.js';
import { lockfileMovesAmong, sliceMoveJson } from '../../run/slice-report.js';
import { flag, parse, stringValue } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { paint, type Io } from '../io.js';
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
  --json               print the verdict as JSON: {run, scope, key, save, moved: [{path, kind, was, now}],
                       slices: [{lockfile, text, diff: {changed, added, removed, unchanged}}]}

When the lockfile moved, a second line says which projects' slices changed and how (pnpm-lock.yaml,
package-lock.json), comparing the bytes the run read with the file now.
  -h, --help           this text
`;

export const command: Command = {
  help,
  async run(argv, io: Io) {
    const parsed = parse('verify', argv, { ...DIR_OPTION, run: { type: 'string' }, 'github-output': { type: 'boolean' }, json: { type: 'boolean' } });
    // A missing $GITHUB_OUTPUT is refused before anything is recorded (no stray run, no stray verdict).
    if (flag(parsed, 'github-output')) requireGithubFile(io.env, 'GITHUB_OUTPUT');
    const workspace = await workspaceOf(parsed, io);
    // A guard that died before its final check is finished first (cli/recover.ts).
    const stopped = await recoverFirst(workspace.root, io, 'lenient', 'verify');
    if (stopped !== undefined) return stopped;
    const run = findRun(workspace.root, stringValue(parsed, 'run'), io.env['LOCKGUARD_RUN']);
    const { unrecorded, duringRun, ...verdict } = verifyRun(run);
    // The verdict stands even when it could not be recorded (a full or read-only ledger): one line says so.
    if (unrecorded !== undefined) io.stderr.write(`lockguard: warning: the verdict was not recorded in the run's events (${unrecorded.message})\n`);
    const slices = verdict.save
      ? []
      : await lockfileMovesAmong(
          run.record,
          verdict.moved.map((file) => file.path),
        );
    if (flag(parsed, 'github-output')) {
      appendGithub(io.env, 'GITHUB_OUTPUT', { save: String(verdict.save), moved: verdict.moved.map((file) => file.path).join(',') });
    }
    if (flag(parsed, 'json')) {
      io.stdout.write(`${JSON.stringify(redactRecord({ ...verdict, slices: slices.map(sliceMoveJson) }), null, 2)}\n`);
    } else if (verdict.save) {
      io.stdout.write(`lockguard: nothing moved since ${verdict.run} (judged on ${verdict.scope}): the cache may be saved\n`);
    } else {
      io.stderr.write(`${paint(io, io.stderr, 'yellow', verifyLine(verdict.moved, new Set(duringRun), run.record.kind, verdict.run, verdict.scope))}\n`);
      for (const move of slices) io.stderr.write(`  ${redactText(move.text)}\n`);
    }
    return verdict.save ? EXIT.ok : EXIT.moved;
  },
};
