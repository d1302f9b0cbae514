// `lockguard snapshot`: read the table, record a run in the ledger, print the run and its key.

import { readWorkspaceFingerprints } from '../../core/fingerprints.js';
import { relative, resolve } from 'node:path';
import { LockguardError } from '../../core/errors.js';
import { printable } from '../../core/printable.js';
import { ciOf } from '../../integrations/ci/detect.js';
import { writeWhole } from '../../integrations/ci/files.js';
import { changedFromHead } from '../../integrations/git.js';
import { listPaths } from '../../core/watch.js';
import { appendGithub, requireGithubFile, githubFile } from '../../integrations/ci/github.js';
import { heldBy, keyVariable, runNameOf, runVariable } from '../../integrations/ci/named-runs.js';
import { createRun } from '../../ledger/ledger.js';
import { stringValue, type Parsed } from '../args.js';
import {
  checkOutputTargets,
  OUTPUT_OPTIONS,
  parseAnswering,
  reportFailure,
  writeDotenv,
  type OutputModes,
} from '../ci-outputs.js';
import { EXIT } from '../exit-codes.js';
import { type Io, warn } from '../io.js';
import type { Command } from '../command.js';
import { recoverFirst } from '../recover.js';
import { warnTrackedLedger } from '../tracked-ledger.js';
import { DIR_HELP, DIR_OPTION, SCOPE_HELP, SCOPE_OPTION, scopeOf, workspaceOf } from '../workspace-option.js';
import { keepLedgerBounded } from '../retention-step.js';
import { readSettings } from '../settings.js';
import type { Scope } from '../../core/entries.js';

const help = `Usage: lockguard snapshot [options]

Reads the fingerprint table (lockfile, workspace manifest, pnpmfile, patches; with --scope full also the
install-tree markers), records a run in <root>/.lockguard/runs/, and prints the run id and the cache key.
Take it at the start of a CI job, before restoring caches and installing; "lockguard verify" before the
cache save then says whether the save may happen. In CI ($CI, GitLab, CircleCI, GitHub) it warns when an
input differs from HEAD (GitLab keys cache:key:files on the commit, not on the working tree).

Options:
${DIR_HELP}
${SCOPE_HELP}
  --github-output      append key=... and run=... to $GITHUB_OUTPUT, and LOCKGUARD_RUN=... to
                       $GITHUB_ENV when it is set, so later steps join this run
                       (on an error: error=<code>). Refused when the job already holds LOCKGUARD_RUN
                       (a second snapshot would replace the run the first gate judges): use --name
  --name <name>        one gate among several in a job (one per cache): the run is recorded under the
                       name and handed on as LOCKGUARD_RUN_<NAME> and LOCKGUARD_KEY_<NAME> ($GITHUB_ENV,
                       --dotenv); "lockguard verify --name <name>" judges it. Refused when the job already
                       holds LOCKGUARD_RUN_<NAME>. A letter, then letters, digits or _
  --dotenv <path>      write LOCKGUARD_KEY=<key> and LOCKGUARD_RUN=<run folder> to the file (on an error
                       LOCKGUARD_SAVE=false and LOCKGUARD_ERROR=<code>)
  --key-file <path>    also write the key (one line) to this file, whole or not at all: a file outside the
                       checkout that CircleCI's {{ checksum "<path>" }} keys both cache steps on. Refused
                       inside .lockguard/ and on a file the key folds (the lockfile, ...)
  --json               print {run, dir, key, scope, manager, entries} as JSON; on an error
                       {version, command, exitCode, error: {code, message, hint}}
  -h, --help           this text
`;

export const command: Command = {
  help,
  async run(argv, io: Io) {
    const { parsed, modes } = await parseAnswering(
      'snapshot',
      argv,
      {
        ...DIR_OPTION,
        ...SCOPE_OPTION,
        ...OUTPUT_OPTIONS,
        'key-file': { type: 'string' },
        name: { type: 'string' },
      },
      io,
    );
    try {
      return await snapshot(parsed, modes, io);
    } catch (error) {
      // Every exit leaves an answer in the outputs asked for: the error's code.
      await reportFailure('snapshot', error, io, modes);
      throw error;
    }
  },
};

async function snapshot(parsed: Parsed, modes: OutputModes, io: Io): Promise<number> {
  // A missing $GITHUB_OUTPUT is refused before anything is recorded (no stray run, no stray verdict).
  if (modes.github) requireGithubFile(io.env, 'GITHUB_OUTPUT');
  checkOutputTargets(modes, io);
  const name = runNameOf(stringValue(parsed, 'name'), 'snapshot');
  // Before anything is recorded: a second snapshot never silently replaces the run an earlier gate judges.
  refuseReplacing(io, name, modes.github);
  const workspace = await workspaceOf(parsed, io);
  // A guard that died before its final check is finished first (cli/recover.ts).
  const stopped = await recoverFirst(workspace.root, io, 'lenient', 'snapshot');
  if (stopped !== undefined) return stopped;
  const settings = readSettings(workspace.root);
  const table = readWorkspaceFingerprints(workspace.root, {
    scope: scopeOf(parsed, (settings.settings.scope as Scope | undefined) ?? 'inputs'),
    manager: workspace.manager,
  });
  const keyFile = keyFileOf(parsed, io, workspace.root, table.entries);
  // The key file first: a path that cannot be written records no run.
  if (keyFile !== undefined) writeWhole(keyFile, `${table.key}\n`, '--key-file');
  const run = createRun({ kind: 'snapshot', table, ...(name === undefined ? {} : { name }) });
  warnTrackedLedger(workspace.root, io);
  if (ciOf(io.env) !== undefined) warnChangedFromHead(workspace.root, table.entries, io);
  handOn(modes, io, name, table.key, run);
  if (modes.json) {
    const entries = table.entries.map((entry) => ({ path: entry.path, kind: entry.kind, digest: entry.digest }));
    io.stdout.write(
      `${JSON.stringify({ run: run.record.id, dir: run.dir, key: table.key, scope: table.scope, manager: table.manager, entries }, null, 2)}\n`,
    );
  } else {
    const present = table.entries.filter((entry) => entry.digest !== null).length;
    io.stdout.write(`run  ${run.record.id}\nkey  ${table.key}\n`);
    const absent = table.entries.length - present;
    io.stderr.write(
      `lockguard: snapshot of ${table.scope} (${table.manager}: ${present} ${present === 1 ? 'file' : 'files'}, ${absent} absent) recorded in ${run.dir}\n`,
    );
  }
  keepLedgerBounded(workspace.root, io, settings);
  return EXIT.ok;
}

/** The run and its key for later steps: --dotenv, $GITHUB_OUTPUT, $GITHUB_ENV (named variables for --name). */
function handOn(
  modes: OutputModes,
  io: Io,
  name: string | undefined,
  key: string,
  run: { readonly dir: string; readonly record: { readonly id: string } },
): void {
  const variables =
    name === undefined ? { LOCKGUARD_RUN: run.dir } : { [runVariable(name)]: run.dir, [keyVariable(name)]: key };
  writeDotenv(modes, io, name === undefined ? { LOCKGUARD_KEY: key, LOCKGUARD_RUN: run.dir } : variables);
  if (!modes.github) return;
  appendGithub(io.env, 'GITHUB_OUTPUT', { key, run: run.record.id });
  if (githubFile(io.env, 'GITHUB_ENV') !== undefined) appendGithub(io.env, 'GITHUB_ENV', variables);
}

/**
 * A snapshot that would replace the run an earlier gate of this job judges is refused: a named one whose
 * variable the job holds, an unnamed `--github-output` one when the job holds LOCKGUARD_RUN (the second
 * cache of issue 28: the later snapshot's run took the first gate's place, and its verify passed a move).
 */
function refuseReplacing(io: Io, name: string | undefined, github: boolean): void {
  const variable = runVariable(name);
  if (name === undefined && !github) return;
  const where = heldBy(io.env, variable);
  if (where === undefined) return;
  const source = where === 'env' ? 'the job already holds' : 'this step already wrote to $GITHUB_ENV';
  throw new LockguardError(
    'ERR_LOCKGUARD_USAGE',
    `${source} ${variable} (an earlier snapshot${name === undefined ? '' : ` --name ${name.toLowerCase()}`}): this snapshot would replace the run that gate judges (lockguard snapshot).`,
    {
      hint:
        name === undefined
          ? 'Give each cache its own gate: lockguard snapshot --name store ... lockguard verify --name store, and another --name for the next cache.'
          : `Use another --name for this cache's gate (each cache of the job its own), or drop this second snapshot.`,
    },
  );
}

/**
 * In CI: a warning when an input differs from HEAD. GitLab keys `cache:key:files` on the commit, so a file
 * changed before the snapshot (a generated lockfile, a script before it) keys GitLab's cache on other bytes.
 */
function warnChangedFromHead(root: string, entries: readonly { readonly path: string }[], io: Io): void {
  const changed = changedFromHead(
    root,
    entries.map((entry) => entry.path),
    io.env,
  );
  if (changed.length === 0) return;
  const paths = listPaths(changed.map(printable));
  warn(
    io,
    `${paths} ${changed.length === 1 ? 'differs' : 'differ'} from HEAD in the working tree: a cache keyed on the commit (GitLab's cache:key:files) folds HEAD's bytes, this snapshot the working tree's; commit the change, or snapshot before whatever made it`,
  );
}

/**
 * `--key-file`, absolute; refused inside the ledger (lockguard's own folder, which prune and recovery
 * rewrite) and on a file the key folds (writing the key there would move what it was taken from).
 */
function keyFileOf(
  parsed: Parsed,
  io: Io,
  root: string,
  entries: readonly { readonly path: string }[],
): string | undefined {
  const given = stringValue(parsed, 'key-file');
  if (given === undefined) return undefined;
  const path = resolve(io.cwd, given);
  const inside = relative(root, path);
  const underLedger = inside === '.lockguard' || inside.startsWith(`.lockguard/`);
  const folded = entries.some((entry) => resolve(root, entry.path) === path);
  if (given === '' || underLedger || folded || inside === '') {
    throw new LockguardError(
      'ERR_LOCKGUARD_USAGE',
      `--key-file "${printable(given)}" ${underLedger ? 'is inside .lockguard/' : folded ? 'is a file the key folds' : 'is not a file path'} (lockguard snapshot).`,
      {
        hint: 'Write the key outside the checkout, for example --key-file /tmp/lockguard-key.',
      },
    );
  }
  return path;
}
