// `lockguard snapshot`: read the table, record a run in the ledger, print the run and its key.

import { readWorkspaceFingerprints } from '../../core/fingerprints.js';
import { appendGithub, requireGithubFile, githubFile } from '../../integrations/github.js';
import { createRun } from '../../run/ledger.js';
import { flag, parse } from '../args.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import type { Command } from '../command.js';
import { recoverFirst } from '../recover.js';
import { warnTrackedLedger } from '../tracked-ledger.js';
import { DIR_HELP, DIR_OPTION, SCOPE_HELP, SCOPE_OPTION, scopeOf, workspaceOf } from '../workspace-option.js';

const help = `Usage: lockguard snapshot [options]

Reads the fingerprint table (lockfile, workspace manifest, pnpmfile, patches; with --scope full also the
install-tree markers), records a run in <root>/.lockguard/runs/, and prints the run id and the cache key.
Take it at the start of a CI job, before restoring caches and installing; "lockguard verify" before the
cache save then says whether the save may happen.

Options:
${DIR_HELP}
${SCOPE_HELP}
  --github-output      append key=... and run=... to $GITHUB_OUTPUT, and LOCKGUARD_RUN=... to
                       $GITHUB_ENV when it is set, so later steps join this run
  --json               print {run, dir, key, scope, manager, entries} as JSON
  -h, --help           this text
`;

export const command: Command = {
  help,
  async run(argv, io: Io) {
    const parsed = parse('snapshot', argv, { ...DIR_OPTION, ...SCOPE_OPTION, 'github-output': { type: 'boolean' }, json: { type: 'boolean' } });
    // A missing $GITHUB_OUTPUT is refused before anything is recorded (no stray run, no stray verdict).
    if (flag(parsed, 'github-output')) requireGithubFile(io.env, 'GITHUB_OUTPUT');
    const workspace = await workspaceOf(parsed, io);
    // A guard that died before its final check is finished first (cli/recover.ts).
    const stopped = await recoverFirst(workspace.root, io, 'lenient', 'snapshot');
    if (stopped !== undefined) return stopped;
    const table = readWorkspaceFingerprints(workspace.root, { scope: scopeOf(parsed, 'inputs'), manager: workspace.manager });
    const run = createRun({ kind: 'snapshot', table });
    warnTrackedLedger(workspace.root, io);
    if (flag(parsed, 'github-output')) {
      appendGithub(io.env, 'GITHUB_OUTPUT', { key: table.key, run: run.record.id });
      if (githubFile(io.env, 'GITHUB_ENV') !== undefined) appendGithub(io.env, 'GITHUB_ENV', { LOCKGUARD_RUN: run.dir });
    }
    if (flag(parsed, 'json')) {
      const entries = table.entries.map((entry) => ({ path: entry.path, kind: entry.kind, digest: entry.digest }));
      io.stdout.write(`${JSON.stringify({ run: run.record.id, dir: run.dir, key: table.key, scope: table.scope, manager: table.manager, entries }, null, 2)}\n`);
    } else {
      const present = table.entries.filter((entry) => entry.digest !== null).length;
      io.stdout.write(`run  ${run.record.id}\nkey  ${table.key}\n`);
      const absent = table.entries.length - present;
      io.stderr.write(`lockguard: snapshot of ${table.scope} (${table.manager}: ${present} ${present === 1 ? 'file' : 'files'}, ${absent} absent) recorded in ${run.dir}\n`);
    }
    return EXIT.ok;
  },
};
