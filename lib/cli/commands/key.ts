// `lockguard key`: the current cache key of the fingerprint table, for scripts; with --project/--projects,
// per-project lockfile slice digests (for per-package CI caches).

import { readWorkspaceFingerprints } from '../../core/fingerprints.js';
import { LockguardError } from '../../core/errors.js';
import { printable } from '../../core/printable.js';
import type { Workspace } from '../../core/workspace.js';
import { flag, parse, stringValue, type Parsed } from '../args.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import type { Command } from '../command.js';
import { summarised } from '../summary.js';
import { DIR_HELP, DIR_OPTION, SCOPE_HELP, SCOPE_OPTION, scopeOf, workspaceOf } from '../workspace-option.js';

const help = `Usage: lockguard key [options]

       lockguard key --project <name|path> [--json]
       lockguard key --projects [--json]
       lockguard key --write-slices
       lockguard key --check-slices

Prints the key of the fingerprint table as it is now: sha256 over the entries' paths and bytes (or
absence), never stat data, so two machines with the same files print the same key. Records nothing.

With --project, prints one project's lockfile slice digest instead: its importer entry (pnpm-lock.yaml,
package-lock.json, yarn.lock of yarn berry or v1, or the text bun.lock) and every entry it reaches, so the
key changes only when that project's dependencies do. --projects prints every project's: digest, importer
path, package name. Other lockfiles (bun.lockb, pnpm 7's lockfileVersion 5.x) have no slices.

With --write-slices, writes each project's slice digest into <project>/.lockguard-slice (with the root
importer's, whose bins reach every project's scripts) where the file is missing or differs, removes the
files it wrote for projects that left the workspace, and prints what it wrote or removed. Nothing is
computed when the lockfile is the one the files were last written for. turbo and nx fold the files once
their inputs name them (lockguard init --sound-keys); lockguard run and the install hooks keep them current.

With --check-slices, writes nothing: exit 0 when every project's .lockguard-slice holds what --write-slices
would write, 1 naming each missing or stale file and the fix (lockguard key --write-slices && git add -A --
'*.lockguard-slice'). For workspaces that commit the files (lockguard init --sound-keys=committed): run it
in a pre-commit hook or a CI step, so a lockfile change never lands without its slice files.

Options:
${DIR_HELP}
${SCOPE_HELP}
  --project <name|path> one project's slice digest: its importer path as the lockfile names it
                       ("." for the root, "packages/b") or its package name
  --projects           every project's slice digest
  --write-slices       write every project's .lockguard-slice (exit 2 naming the path when one cannot be)
  --check-slices       check they are current, writing nothing (exit 1: not current; 2: no lockfile)
  --json               print {key, scope, manager, entries} as JSON; with --project(s):
                       {importer, name, digest} (one, or a list)
  --verbose            with --write-slices/--check-slices: name every file (over 20 are counted)
  -h, --help           this text
`;

export const command: Command = {
  help,
  async run(argv, io: Io) {
    const parsed = parse('key', argv, {
      ...DIR_OPTION,
      ...SCOPE_OPTION,
      json: { type: 'boolean' },
      project: { type: 'string' },
      projects: { type: 'boolean' },
      'write-slices': { type: 'boolean' },
      'check-slices': { type: 'boolean' },
    });
    const workspace = await workspaceOf(parsed, io);
    if (flag(parsed, 'check-slices')) return checkSlices(parsed, workspace.root, io);
    if (flag(parsed, 'write-slices')) return writeSlices(parsed, workspace.root, io);
    const project = stringValue(parsed, 'project');
    if (project === '')
      throw new LockguardError(
        'ERR_LOCKGUARD_USAGE',
        '--project needs a project: its folder or its name (lockguard key).',
        {
          hint: 'For example: lockguard key --project packages/app (lockguard key --projects lists them).',
        },
      );
    if (project !== undefined || flag(parsed, 'projects')) return printSlices(parsed, project, workspace.root, io);
    return printTableKey(parsed, workspace, io);
  },
};

/** --write-slices and --check-slices take no other option. */
function alone(parsed: Parsed, name: 'write-slices' | 'check-slices'): void {
  const other = name === 'write-slices' ? 'check-slices' : 'write-slices';
  if (
    stringValue(parsed, 'project') !== undefined ||
    flag(parsed, 'projects') ||
    flag(parsed, 'json') ||
    flag(parsed, other)
  ) {
    throw new LockguardError(
      'ERR_LOCKGUARD_USAGE',
      `Expected --${name} alone, got it with --project, --projects, --json or --${other} (lockguard key).`,
      { hint: `Run lockguard key --${name} on its own.` },
    );
  }
}

/** --check-slices (alone): exit 1 naming every file that is not what --write-slices would write; nothing written. */
async function checkSlices(parsed: Parsed, root: string, io: Io): Promise<number> {
  alone(parsed, 'check-slices');
  const { staleSliceFiles } = await import('../../ledger/slice-pass.js');
  const { staleSliceLines } = await import('../slice-files.js');
  const stale = await staleSliceFiles(root);
  if (stale === undefined) {
    throw new LockguardError(
      'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE',
      `There is no lockfile with per-project slices at "${root}" (pnpm-lock.yaml, package-lock.json, yarn.lock or bun.lock), so there are no slice files to check.`,
      {
        path: root,
        hint: 'Run the install that writes the lockfile, or run lockguard key --check-slices at the workspace root.',
      },
    );
  }
  const lines = staleSliceLines(stale);
  // Every file named, up to the limit; the count and the fix (the last line) always.
  const named = lines.length > 1 ? summarised(io, lines.slice(0, -1), 'slice files') : [];
  io.stdout.write([...named, ...lines.slice(-1)].map((line) => `${line}\n`).join(''));
  return stale.missing.length + stale.differ.length === 0 ? EXIT.ok : EXIT.moved;
}

/** --write-slices (alone): every project's .lockguard-slice written, and what was written or removed printed. */
async function writeSlices(parsed: Parsed, root: string, io: Io): Promise<number> {
  alone(parsed, 'write-slices');
  const { writeSliceFiles } = await import('../../ledger/slice-pass.js');
  const { sliceReportLines } = await import('../slice-files.js');
  io.stdout.write(
    summarised(io, sliceReportLines(await writeSliceFiles(root)), 'slice files')
      .map((line) => `${line}\n`)
      .join(''),
  );
  return EXIT.ok;
}

/** --project or --projects: one project's slice digest, or every project's (digest, importer, name). */
async function printSlices(parsed: Parsed, project: string | undefined, root: string, io: Io): Promise<number> {
  if (project !== undefined && flag(parsed, 'projects')) {
    throw new LockguardError(
      'ERR_LOCKGUARD_USAGE',
      'Expected --project <name|path> or --projects, got both (lockguard key).',
      { hint: 'Pass one of them.' },
    );
  }
  // Loaded on demand: the table key (the default) never pays for the slice modules.
  const { findSlice, projectSlicesAsync, unknownProject } = await import('../../core/slices/slices.js');
  const { slices, lockfile } = await projectSlicesAsync(root);
  const json = flag(parsed, 'json');
  const row = (slice: (typeof slices)[number]) => ({
    importer: slice.importer,
    name: slice.name ?? null,
    digest: slice.digest,
  });
  if (project !== undefined) {
    const found = findSlice(slices, project);
    if (found === undefined) throw unknownProject(root, lockfile, project);
    io.stdout.write(json ? `${JSON.stringify(row(found), null, 2)}\n` : `${found.digest}\n`);
  } else if (json) {
    io.stdout.write(`${JSON.stringify(slices.map(row), null, 2)}\n`);
  } else {
    io.stdout.write(
      slices
        .map(
          (slice) =>
            `${slice.digest}  ${printable(slice.importer)}${slice.name === undefined ? '' : `  ${printable(slice.name)}`}\n`,
        )
        .join(''),
    );
  }
  return EXIT.ok;
}

/** The default: the fingerprint table's key (with --json, its scope, manager and entries too). */
function printTableKey(parsed: Parsed, workspace: Workspace, io: Io): number {
  const table = readWorkspaceFingerprints(workspace.root, {
    scope: scopeOf(parsed, 'inputs'),
    manager: workspace.manager,
  });
  if (flag(parsed, 'json')) {
    const entries = table.entries.map((entry) => ({ path: entry.path, kind: entry.kind, digest: entry.digest }));
    io.stdout.write(
      `${JSON.stringify({ key: table.key, scope: table.scope, manager: table.manager, entries }, null, 2)}\n`,
    );
  } else {
    io.stdout.write(`${table.key}\n`);
  }
  return EXIT.ok;
}
