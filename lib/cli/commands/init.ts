// `lockguard init`: set a workspace up: the install-time hooks (cli/init-hooks.ts: the pnpmfile shim and its
// checksum, the root prepare hook, what each package manager gets), and `.lockguard/` in the workspace's
// .gitignore.
// Where turbo, nx, wireit, moon or lage is configured, sound keys too (integrations/sound-keys/: the runners fold each project's
// `.lockguard-slice`); init only composes and prints what they change.

import { writeFileSync } from 'node:fs';
import type { Workspace } from '../../core/workspace.js';
import { coreOf } from '../../core/package-managers/registry.js';
import { join } from 'node:path';
import { errnoCode, isLockguardError, LockguardError } from '../../core/errors.js';
import { withLedgerIgnored } from '../../integrations/git.js';
import {
  SLICE_FILE,
  SOUND_KEYS_MODES,
  soundKeysEdits,
  soundKeysLeftOut,
  configuredSides,
  soundKeysMode,
  type SoundKeysMode,
  soundKeysWanted,
  writeEdits,
} from '../../integrations/sound-keys/index.js';
import { GIT_ADD_SLICES } from '../../ledger/slice-files.js';
import { noteInitEdit, readInitRecord, textDigest } from '../init-record.js';
import { flag, parse, type Parsed } from '../args.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import type { Command } from '../command.js';
import { DIR_HELP, DIR_OPTION, workspaceOf } from '../workspace-option.js';
import { installHooks, managerNotes } from '../init-hooks.js';
import { rushHere } from '../../integrations/runners/rush.js';
import { readConfigText } from '../../core/bounded-read.js';
import { readSettings } from '../settings.js';

const help = `Usage: lockguard init [options]

pnpm 10 workspaces: writes .pnpmfile.cjs, a few stable lines that load lockguard/pnpmfile when lockguard is
installed (and do nothing on a fresh clone's first install, before it is). Inside a guarded run the plugin
reports every pnpm command to the run and, under --policy refuse, stops lockfile rewrites at the source.
init records the file's checksum in pnpm-lock.yaml itself (the one line pnpm install would write: a
checksum that differs makes pnpm 10 re-resolve every peer and a frozen install fail); commit both.
An existing, different .pnpmfile.cjs is left alone: init prints how to compose it with lockguard's hooks.
yarn and bun workspaces: no hook file to write (a refusing run hands yarn berry lockguard's plugin through the
environment; yarn v1 and bun have no plugin hooks: where sound keys are set up, the root prepare script
rewrites the slice files after their installs, see --npm-scripts).

pnpm 11 and newer start node helper processes for any pnpmfile on every command (a no-op install about 4x
slower), so there init writes nothing by default: lockguard run refuses pnpm install and the install before
pnpm run through the environment, and catches pnpm add after the fact. --pnpmfile writes the shim anyway,
for refusing pnpm add/update/remove at the source too.

Every workspace: adds .lockguard/ to the .gitignore at the workspace root (once; created when absent):
lockguard's ledger holds this machine's run records, and a committed one is never acted on.
Everything init changes is noted in .lockguard/init.json: lockguard uninstall takes it back.

Where turbo, nx, wireit, moon or lage is configured (sound keys; --no-sound-keys opts out): adds
${SLICE_FILE} to every cached task's inputs, and ignores the files in git (.gitignore):
  turbo   turbo.json and package-level turbo.json files (a task without inputs gets
          ["$TURBO_DEFAULT$", "${SLICE_FILE}"])
  nx      !**/${SLICE_FILE} in .nxignore, and the nx.json and project.json targets and default named
          input whose inputs leave the project root out
  wireit  the "files" of each cached script in a package.json's "wireit" block
  moon    the inputs of each cached task in moon.yml and .moon/tasks.yml, .moon/tasks/*.yml (a task
          without inputs gets ['**/*', '${SLICE_FILE}'])
  lage    a literal "inputs" array in lage.config.js, committed mode only (lage hashes only the files git
          lists, so a gitignored file never reaches its keys: init leaves lage out and says why)
Each project's ${SLICE_FILE} holds its lockfile slice's digest (lockguard writes it), so the runners' own
keys change exactly when a project's slice does; every task's key changes once, when this is set up.
--sound-keys=committed instead commits the files (cheaper on a warm turbo run: turbo's, nx's, moon's and
lage's default inputs hash committed files): no inputs entry where a task's inputs are turbo's default, no
.nxignore line, no .gitignore line (each taken back if an earlier init added it); turbo tasks whose inputs
leave $TURBO_DEFAULT$ out and nx targets whose inputs leave the project root out still get the file. The
files are written now and must be committed with every lockfile change (lockguard key --check-slices in a
pre-commit hook or CI fails while they are not). Switching back: --sound-keys=ignored.

Options:
${DIR_HELP}
  --sound-keys[=ignored|committed]
                       set sound keys up (the default where a runner above is configured; without a mode:
                       the one the workspace is in, else ignored; --no-sound-keys: never)
  --pnpmfile           write .pnpmfile.cjs whatever the pnpm version (--no-pnpmfile: never)
  --npm-scripts        add lockguard's hook to the root package.json's prepare script (npm records a root
                       preinstall/postinstall as hasInstallScript in package-lock.json; prepare it does not)
                       (a no-op where lockguard is not installed, as in npm ci --omit=dev). The default
                       where sound keys are set up and no other hook rewrites the slice files after an
                       install: npm, pnpm 11+, yarn v1, bun (each runs the root prepare after its installs)
  --no-npm-scripts     never add it (then lockguard run or lockguard key --write-slices writes the files)
  --json               print {version, command, exitCode, root, changed (the files init wrote), lines (what
                       it would have printed)}; an error as {version, command, exitCode, error}
  -h, --help           this text
`;

/**
 * A workspace file's text, undefined when absent, through the bounded reader (core/bounded-read.ts): a
 * regular file, or a link to one inside the workspace; a FIFO, device or file over 16 MiB is refused.
 */
function readText(root: string, path: string): string | undefined {
  return readConfigText(path, root);
}

/** `.lockguard/` in the workspace's .gitignore (created when absent): the ledger is never committed. */
function ignoreLedger(root: string, io: Io): void {
  const path = join(root, '.gitignore');
  const before = readText(root, path);
  const text = withLedgerIgnored(before);
  if (text === undefined) return;
  // The record first (a journal before every edit): an edit uninstall does not know of never happens.
  noteInitEdit(root, '.gitignore', before, text);
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw new LockguardError('ERR_LOCKGUARD_IO', `Cannot write "${path}" (${errnoCode(error) ?? 'unknown error'}).`, {
      path,
      cause: error,
      hint: 'Add the line .lockguard/ to it by hand.',
    });
  }
  io.stdout.write(
    ".gitignore: added .lockguard/ (lockguard's ledger holds this machine's run records: never commit it)\n",
  );
}

/** Each project's slice file, written now; a lockfile without slices (bun.lockb) or a file that cannot be written is one line. */
async function writeSlicesNow(root: string, io: Io): Promise<void> {
  const { writeSliceFiles } = await import('../../ledger/slice-pass.js');
  const { sliceReportLines } = await import('../slice-files.js');
  try {
    for (const line of sliceReportLines(await writeSliceFiles(root))) io.stdout.write(`  ${line}\n`);
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    io.stdout.write(
      `  the slice files were not written: ${error.message}${error.hint === undefined ? '' : ` ${error.hint}`}\n`,
    );
  }
}

/**
 * turbo and nx fold each project's slice file: every change planned (a config it cannot parse refuses here,
 * before any write), then written and listed; committed mode writes the files too and says to commit them.
 */
async function setUpSoundKeys(
  root: string,
  explicit: boolean,
  chosen: SoundKeysMode | undefined,
  io: Io,
): Promise<SoundKeysMode | undefined> {
  if (!soundKeysWanted(root)) {
    if (explicit)
      io.stdout.write('sound keys: no turbo, nx, wireit, moon or lage configured here, nothing to set up.\n');
    return undefined;
  }
  const before = soundKeysMode(root);
  // No mode named: the one the workspace is in (a second init never switches it), else ignored.
  const mode = chosen ?? before ?? 'ignored';
  const label = mode === 'committed' ? 'sound keys (committed)' : 'sound keys';
  const unsupported = soundKeysLeftOut(root, mode);
  const leftOut = unsupported.map(
    ({ runner, why }) =>
      `not for ${runner}: ${why}; lockguard init --sound-keys=committed sets its keys up (the files committed with each lockfile change)`,
  );
  // Every configured runner left out (lage alone, ignored mode): nothing to set up; say why, change nothing.
  if (unsupported.length > 0 && unsupported.length === configuredSides(root)) {
    for (const line of leftOut) io.stdout.write(`${label}: ${line}\n`);
    return undefined;
  }
  const edits = soundKeysEdits(root, mode);
  if (edits.length === 0) {
    io.stdout.write(
      `${label}: already set up (every cached task of turbo, nx, wireit, moon or lage folds its project's ${SLICE_FILE}): nothing to do.\n`,
    );
  } else {
    const before = edits.map((edit) => readText(root, join(root, edit.file)));
    for (const [index, edit] of edits.entries()) noteInitEdit(root, edit.file, before[index], edit.text);
    writeEdits(root, edits);
    io.stdout.write(
      `${label}: the runners' keys now fold each project's ${SLICE_FILE} (${mode === 'committed' ? 'committed files: turbo and nx hash them by default' : "every task's key changes once, now"}):\n`,
    );
    for (const edit of edits) for (const line of edit.added) io.stdout.write(`  ${edit.file}: ${line}\n`);
  }
  for (const line of leftOut) io.stdout.write(`  ${line}\n`);
  if (mode === 'ignored') {
    if (before === 'committed')
      io.stdout.write(
        `  next: stop tracking the committed files (they are written on every machine now): git rm --cached -q -- $(git ls-files -- '*${SLICE_FILE}')\n`,
      );
    return mode;
  }
  await writeSlicesNow(root, io);
  io.stdout.write(
    `  next: commit the files, now and with every lockfile change: ${GIT_ADD_SLICES}\n  (lockguard key --check-slices in a pre-commit hook or a CI step fails while they are not current)\n`,
  );
  return mode;
}

/** `--sound-keys=<mode>` taken out of argv (parseArgs' booleans take no value): argv with a bare --sound-keys, and the mode. */
function soundKeysArg(argv: readonly string[]): { argv: string[]; mode: SoundKeysMode | undefined } {
  let mode: SoundKeysMode | undefined;
  const out = argv.map((word) => {
    if (!word.startsWith('--sound-keys=')) return word;
    const value = word.slice('--sound-keys='.length);
    const found = SOUND_KEYS_MODES.find((name) => name === value);
    if (found === undefined) {
      throw new LockguardError(
        'ERR_LOCKGUARD_USAGE',
        'Expected --sound-keys, --sound-keys=ignored or --sound-keys=committed (lockguard init).',
        { hint: 'lockguard init --help says what each mode does.' },
      );
    }
    mode = found;
    return '--sound-keys';
  });
  return { argv: out, mode };
}

export const command: Command = {
  help,
  async run(rawArgv, io: Io) {
    const { argv, mode } = soundKeysArg(rawArgv);
    const parsed = parse('init', argv, {
      ...DIR_OPTION,
      json: { type: 'boolean' },
      'npm-scripts': { type: 'boolean' },
      'no-npm-scripts': { type: 'boolean' },
      pnpmfile: { type: 'boolean' },
      'no-pnpmfile': { type: 'boolean' },
      'sound-keys': { type: 'boolean' },
      'no-sound-keys': { type: 'boolean' },
    });
    if (flag(parsed, 'pnpmfile') && flag(parsed, 'no-pnpmfile')) {
      throw new LockguardError(
        'ERR_LOCKGUARD_USAGE',
        'Expected --pnpmfile or --no-pnpmfile, not both (lockguard init).',
        { hint: 'lockguard init --help says what each does.' },
      );
    }
    if (flag(parsed, 'npm-scripts') && flag(parsed, 'no-npm-scripts')) {
      throw new LockguardError(
        'ERR_LOCKGUARD_USAGE',
        'Expected --npm-scripts or --no-npm-scripts, not both (lockguard init).',
        { hint: 'lockguard init --help says what each does.' },
      );
    }
    if (flag(parsed, 'sound-keys') && flag(parsed, 'no-sound-keys')) {
      throw new LockguardError(
        'ERR_LOCKGUARD_USAGE',
        'Expected --sound-keys or --no-sound-keys, not both (lockguard init).',
        { hint: 'lockguard init --help says what each does.' },
      );
    }
    const workspace = await workspaceOf(parsed, io);
    // Before any edit: a root package.json init cannot read (a FIFO, a device, no permission, broken JSON, a
    // bad "lockguard" field) is exit 2 naming it, never taken for an absent one while init edits the rest.
    readSettings(workspace.root);
    if (!flag(parsed, 'json')) return await stoppedSays(workspace.root, () => initialise(workspace, parsed, mode, io));
    return await initJson(workspace, parsed, mode, io);
  },
};

/** init --json: the same work, its lines kept for the answer with the files it changed (init.json's record). */
async function initJson(
  workspace: Workspace,
  parsed: Parsed,
  mode: SoundKeysMode | undefined,
  io: Io,
): Promise<number> {
  const lines: string[] = [];
  const recorded = readInitRecord(workspace.root);
  // init's one lockfile edit (pnpm 10's checksum line) is in no record: the lockfiles are compared.
  const lockfiles = coreOf(workspace.manager).lockfiles;
  const lockText = (): (string | undefined)[] =>
    lockfiles.map((name) => readText(workspace.root, join(workspace.root, name)));
  const lockBefore = lockText();
  const code = await stoppedSays(workspace.root, () =>
    initialise(workspace, parsed, mode, {
      ...io,
      stdout: { write: (text: string) => lines.push(...text.replace(/\n$/, '').split('\n')) },
    }),
  );
  const after = readInitRecord(workspace.root);
  const changed = Object.keys(after).filter((file) => recorded[file]?.after !== after[file]?.after);
  const lockAfter = lockText();
  changed.push(...lockfiles.filter((_, index) => lockAfter[index] !== lockBefore[index]));
  const version = await (await import('../version.js')).version();
  io.stdout.write(
    `${JSON.stringify({ version, command: 'init', exitCode: code, root: workspace.root, changed: changed.sort(), lines }, null, 2)}\n`,
  );
  return code;
}

/**
 * Run init's work; when it stops on an error after some of its edits (a full disk half way), the error says
 * which files it had changed and how to take them back (each is in init.json before it is written).
 */
async function stoppedSays(root: string, work: () => Promise<number>): Promise<number> {
  const before = readInitRecord(root);
  try {
    return await work();
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    const after = readInitRecord(root);
    // Noted and written: a file noted whose write then failed holds what it held.
    const changed = Object.keys(after).filter((file) => {
      if (before[file]?.after === after[file]?.after) return false;
      const text = readTextQuietly(root, file);
      return text !== undefined && textDigest(text) === after[file]?.after;
    });
    if (changed.length === 0) throw error;
    throw new LockguardError(error.code, error.message, {
      ...(error.path === undefined ? {} : { path: error.path }),
      cause: error,
      hint: `${error.hint === undefined ? '' : `${error.hint}\n  `}init stopped after it had changed ${changed.sort().join(', ')}: run lockguard init again once that is fixed, or lockguard uninstall to take them back.`,
    });
  }
}

function readTextQuietly(root: string, file: string): string | undefined {
  try {
    return readText(root, join(root, file));
  } catch {
    return undefined;
  }
}

/** init in a Rush repository (integrations/runners/rush.ts): what it leaves alone, and why. */
const RUSH_NOTE =
  'Rush: no install hook written: Rush installs with its own pnpm and pnpmfile (common/config/rush/.pnpmfile.cjs), and refuses installs during a build. ' +
  'Key a CI cache on common/config/rush/pnpm-lock.yaml with lockguard snapshot and lockguard verify.\n';

/** What init does, its lines printed on `io`. */
async function initialise(
  workspace: Workspace,
  parsed: Parsed,
  mode: SoundKeysMode | undefined,
  io: Io,
): Promise<number> {
  const sound = flag(parsed, 'no-sound-keys')
    ? undefined
    : await setUpSoundKeys(workspace.root, flag(parsed, 'sound-keys'), mode, io);
  ignoreLedger(workspace.root, io);
  if (rushHere(workspace.root) !== undefined) {
    // Rush installs with its own pnpm and pnpmfile: a root .pnpmfile.cjs or root scripts would never run.
    io.stdout.write(RUSH_NOTE);
    return EXIT.ok;
  }
  const npmScripts = installHooks(workspace, parsed, sound !== undefined, io);
  // The hook rewrites them after installs, but pnpm 11+ runs it only after one that changed something, and
  // the install init asks for may change nothing: written now (committed mode wrote them above).
  if (npmScripts && sound === 'ignored') {
    io.stdout.write(`sound keys: each project's ${SLICE_FILE}, written now (git ignores them):\n`);
    await writeSlicesNow(workspace.root, io);
  }
  managerNotes(workspace.manager, npmScripts, workspace.root, io);
  return EXIT.ok;
}
