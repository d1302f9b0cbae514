// `lockguard init`: set a workspace up for the install-time hooks: the pnpmfile shim (and its checksum in
// pnpm-lock.yaml, the one lockfile line init writes: what pnpm install would write, so nothing re-resolves)
// and, on request, the npm root lifecycle script; and `.lockguard/` in the workspace's .gitignore.
// Where turbo or nx is configured, sound keys too (integrations/sound-keys/: the runners fold each project's
// `.lockguard-slice`); init only composes and prints what they change.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errnoCode, isLockguardError, LockguardError } from '../../core/errors.js';
import { withLedgerIgnored } from '../../integrations/git.js';
import { addHookScripts } from '../../integrations/npm/scripts.js';
import { COMPOSED_PNPMFILE_EXAMPLE, PNPMFILE_SHIM } from '../../integrations/pnpmfile/shim.js';
import { pnpmfileChecksumOf, withLockfileChecksum } from '../../integrations/pnpmfile/checksum.js';
import { writeAtomic } from '../../run/atomic.js';
import { majorOf } from '../../integrations/package-managers/version.js';
import { pnpmHere } from '../doctor-hooks.js';
import {
  SLICE_FILE,
  SOUND_KEYS_MODES,
  soundKeysEdits,
  soundKeysMode,
  type SoundKeysMode,
  soundKeysWanted,
  writeEdits,
} from '../../integrations/sound-keys/index.js';
import { yarnPluginImportLine } from '../../integrations/yarn-plugin/import-path.js';
import { GIT_ADD_SLICES } from '../../run/slice-files.js';
import { noteInitEdit } from '../init-record.js';
import { flag, parse, type Parsed } from '../args.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import type { Command } from '../command.js';
import { DIR_HELP, DIR_OPTION, workspaceOf } from '../workspace-option.js';
import { readBounded, readBoundedText, readConfigText } from '../../core/bounded-read.js';
import { yarnFlavor } from '../../core/yarn-flavor.js';

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

Where turbo or nx is configured (sound keys; --no-sound-keys opts out): adds ${SLICE_FILE} to every cached
turbo task's inputs (turbo.json and package-level turbo.json files; a task without inputs gets
["$TURBO_DEFAULT$", "${SLICE_FILE}"]), makes nx hash it (!**/${SLICE_FILE} in .nxignore, and in the
targets and the default named input whose inputs leave the project root out), and ignores the files in git.
Each project's ${SLICE_FILE} holds its lockfile slice's digest (lockguard writes it), so the runners' own
keys change exactly when a project's slice does; every task's key changes once, when this is set up.
--sound-keys=committed instead commits the files (cheaper on a warm turbo run: turbo's and nx's default
inputs hash committed files): no inputs entry where a task's inputs are turbo's default, no .nxignore line,
no .gitignore line (each taken back if an earlier init added it); turbo tasks whose inputs leave
$TURBO_DEFAULT$ out and nx targets whose inputs leave the project root out still get the file. The files are
written now and must be committed with every lockfile change (lockguard key --check-slices in a pre-commit
hook or CI fails while they are not). Switching back: --sound-keys=ignored.

Options:
${DIR_HELP}
  --sound-keys[=ignored|committed]
                       set sound keys up (the default where turbo or nx is configured; without a mode:
                       the one the workspace is in, else ignored; --no-sound-keys: never)
  --pnpmfile           write .pnpmfile.cjs whatever the pnpm version (--no-pnpmfile: never)
  --npm-scripts        add lockguard's hook to the root package.json's prepare script (npm records a root
                       preinstall/postinstall as hasInstallScript in package-lock.json; prepare it does not)
                       (a no-op where lockguard is not installed, as in npm ci --omit=dev). The default
                       where sound keys are set up and no other hook rewrites the slice files after an
                       install: npm, pnpm 11+, yarn v1, bun (each runs the root prepare after its installs)
  --no-npm-scripts     never add it (then lockguard run or lockguard key --write-slices writes the files)
  -h, --help           this text
`;

/**
 * A workspace file's text, undefined when absent, through the bounded reader (core/bounded-read.ts): a
 * regular file, or a link to one inside the workspace; a FIFO, device or file over 16 MiB is refused.
 */
function readText(root: string, path: string): string | undefined {
  return readConfigText(path, root);
}

function writePnpmfile(root: string, io: Io): void {
  const path = join(root, '.pnpmfile.cjs');
  const existing = readText(root, path);
  if (existing !== undefined && existing !== PNPMFILE_SHIM) {
    throw new LockguardError(
      'ERR_LOCKGUARD_EXISTS',
      `"${path}" exists and is not lockguard's shim; init leaves it alone.`,
      {
        path,
        hint: `Compose lockguard with your hooks in that file, for example:\n\n${COMPOSED_PNPMFILE_EXAMPLE.replace(/^/gm, '    ')}`,
      },
    );
  }
  if (existing === undefined) {
    writeFileSync(path, PNPMFILE_SHIM, { flag: 'wx' });
    noteInitEdit(root, '.pnpmfile.cjs', undefined, PNPMFILE_SHIM);
  }
  const recorded = recordPnpmfileChecksum(root);
  const add = declaresLockguard(root) ? '' : 'add lockguard as a root devDependency (pnpm add -D -w lockguard), ';
  const wrote = existing === undefined ? 'wrote .pnpmfile.cjs' : ".pnpmfile.cjs already holds lockguard's shim";
  if (recorded === 'recorded' || recorded === 'current') {
    if (existing !== undefined && recorded === 'current') {
      io.stdout.write(`${wrote}, and pnpm-lock.yaml records its checksum: nothing to do.\n`);
      return;
    }
    io.stdout.write(
      `${wrote}\npnpm-lock.yaml: pnpmfileChecksum recorded (the line pnpm install would write; nothing else changes, so the next install resolves exactly as before and a frozen install passes)\n  next: ${add}commit .pnpmfile.cjs and pnpm-lock.yaml.\n`,
    );
    return;
  }
  io.stdout.write(
    `${wrote}\n  next: ${add}run "pnpm install" once (${recorded === 'no-lockfile' ? 'there is no pnpm-lock.yaml yet' : 'pnpm-lock.yaml could not be edited here'}; it records the file's checksum), commit .pnpmfile.cjs and pnpm-lock.yaml.\n`,
  );
}

/**
 * Record the shim's pnpmfileChecksum in pnpm-lock.yaml, as pnpm would: a checksum that differs makes pnpm 10
 * re-resolve every peer (and a frozen install fail), so init records it itself (integrations/pnpmfile/checksum.ts).
 */
function recordPnpmfileChecksum(root: string): 'recorded' | 'current' | 'no-lockfile' | 'unknown-shape' {
  const path = join(root, 'pnpm-lock.yaml');
  const lock = readBoundedText(path, { kind: 'lockfile', root });
  if (lock === undefined) return 'no-lockfile';
  const next = withLockfileChecksum(lock, pnpmfileChecksumOf(PNPMFILE_SHIM));
  if (next === undefined) return 'unknown-shape';
  if (next === lock) return 'current';
  writeAtomic(path, next);
  return 'recorded';
}

/** Whether the root package.json already depends on lockguard (a devDependency, or any other kind). */
function declaresLockguard(root: string): boolean {
  try {
    const manifest = JSON.parse(readText(root, join(root, 'package.json')) ?? '') as Record<string, unknown>;
    return ['devDependencies', 'dependencies', 'optionalDependencies'].some((field) => {
      const deps = manifest[field];
      return typeof deps === 'object' && deps !== null && Object.hasOwn(deps, 'lockguard');
    });
  } catch {
    return false;
  }
}

/** `.lockguard/` in the workspace's .gitignore (created when absent): the ledger is never committed. */
function ignoreLedger(root: string, io: Io): void {
  const path = join(root, '.gitignore');
  const before = readText(root, path);
  const text = withLedgerIgnored(before);
  if (text === undefined) return;
  try {
    writeFileSync(path, text);
    noteInitEdit(root, '.gitignore', before, text);
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

/** Which installs run the root prepare hook, per package manager (measured: integrations/npm/hook.ts). */
const PREPARE_RUNS: Readonly<Record<string, string>> = {
  npm: 'npm install and npm ci run the hook from now on',
  pnpm: 'pnpm installs that change something run the hook from now on',
  bun: 'bun install and bun add run the hook from now on',
  yarn: 'yarn install runs the hook from now on (yarn workspace <name> add does not: lockguard run catches it)',
};

function addNpmScripts(root: string, manager: string, byDefault: boolean, io: Io): void {
  const path = join(root, 'package.json');
  const text = readText(root, path);
  if (text === undefined) {
    throw new LockguardError(
      'ERR_LOCKGUARD_NOT_A_WORKSPACE',
      `There is no package.json at the workspace root "${root}".`,
      { path, hint: 'Run lockguard init --npm-scripts in the folder that holds the root package.json.' },
    );
  }
  const edit = addHookScripts(text, path);
  if (edit.text === undefined) {
    io.stdout.write(`package.json already runs lockguard's hook in prepare: nothing to do.\n`);
    return;
  }
  writeFileSync(path, edit.text);
  noteInitEdit(root, 'package.json', text, edit.text);
  const moved = edit.changed.filter((event) => event !== 'prepare');
  const why = byDefault
    ? `\n  (it rewrites the ${SLICE_FILE} files after each install, so a runner started without lockguard run hashes what is installed; --no-npm-scripts leaves it out)`
    : '';
  io.stdout.write(
    `package.json: lockguard's hook runs in the root prepare script${moved.length === 0 ? '' : ` (taken out of ${moved.join(' and ')}: npm records those as the root's hasInstallScript in package-lock.json)`}${why}\n` +
      `  next: commit package.json (${PREPARE_RUNS[manager] ?? PREPARE_RUNS['npm']}; the lockfile does not change).\n`,
  );
}

/** Each project's slice file, written now; a lockfile without slices (bun.lockb) or a file that cannot be written is one line. */
async function writeSlicesNow(root: string, io: Io): Promise<void> {
  const { writeSliceFiles } = await import('../../run/slice-pass.js');
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
    if (explicit) io.stdout.write('sound keys: no turbo.json or nx here, nothing to set up.\n');
    return undefined;
  }
  const before = soundKeysMode(root);
  // No mode named: the one the workspace is in (a second init never switches it), else ignored.
  const mode = chosen ?? before ?? 'ignored';
  const label = mode === 'committed' ? 'sound keys (committed)' : 'sound keys';
  const edits = soundKeysEdits(root, mode);
  if (edits.length === 0) {
    io.stdout.write(
      `${label}: already set up (every cached turbo/nx task folds its project's ${SLICE_FILE}): nothing to do.\n`,
    );
  } else {
    const before = edits.map((edit) => readText(root, join(root, edit.file)));
    writeEdits(root, edits);
    for (const [index, edit] of edits.entries()) noteInitEdit(root, edit.file, before[index], edit.text);
    io.stdout.write(
      `${label}: the runners' keys now fold each project's ${SLICE_FILE} (${mode === 'committed' ? 'committed files: turbo and nx hash them by default' : "every task's key changes once, now"}):\n`,
    );
    for (const edit of edits) for (const line of edit.added) io.stdout.write(`  ${edit.file}: ${line}\n`);
  }
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

/**
 * pnpm's hook: the pnpmfile where the pnpm that runs keeps hooks in its own process (or asked for), else why
 * not; and where sound keys are set up and nothing else will rewrite the slice files (`noWriter`), the hook that does.
 */
function pnpmHook(root: string, parsed: Parsed, io: Io): boolean {
  const major = majorOf(pnpmHere(root, io.env).version);
  const wanted =
    flag(parsed, 'pnpmfile') || (!flag(parsed, 'no-pnpmfile') && (major === undefined || major <= PNPMFILE_FREE_UNTIL));
  if (wanted) writePnpmfile(root, io);
  else if (!flag(parsed, 'no-pnpmfile')) {
    io.stdout.write(
      `pnpm ${major ?? ''} runs here: no .pnpmfile.cjs written (on pnpm 11+ any pnpmfile slows every pnpm command).\n` +
        '  lockguard run needs nothing more: under --policy refuse it refuses pnpm install and the install before pnpm run\n' +
        '  through the environment; lockguard init --pnpmfile adds the plugin that refuses pnpm add/update/remove too.\n',
    );
  }
  // pnpm 10's pnpmfile writes them at pnpm's exit; pnpm 11+ runs its hooks in helpers that never see an install end.
  return wanted && (major === undefined || major <= PNPMFILE_FREE_UNTIL);
}

/** yarn berry (its plugin, committed by the user, rewrites the slice files), judged from yarn.lock. */
function yarnBerry(root: string): boolean {
  try {
    const lock = readBounded(join(root, 'yarn.lock'), { kind: 'lockfile', root });
    return lock !== undefined && yarnFlavor(lock) === 'berry';
  } catch {
    return false;
  }
}

/** Where sound keys are set up and no hook here rewrites the slice files after an install (--no-npm-scripts): how to add one. */
const AFTER_INSTALL = `  sound keys: nothing rewrites the ${SLICE_FILE} files after an install here (--no-npm-scripts);\n  lockguard init --npm-scripts adds the root prepare hook that does (a runner started without lockguard then hashes what is installed).\n`;
/** The plugin's path is lockguard's own (under PnP: its unplugged folder), integrations/yarn-plugin/import-path.ts. */
const afterInstallYarn = (root: string): string =>
  `  sound keys: commit lockguard's yarn plugin so every yarn berry install rewrites the ${SLICE_FILE} files:\n  ${yarnPluginImportLine(root)} (then commit .yarnrc.yml and .yarn/plugins/lockguard.cjs).\n`;

/** The last pnpm major that runs pnpmfile hooks in its own process (a pnpmfile costs it nothing measurable). */
const PNPMFILE_FREE_UNTIL = 10;

/**
 * The package manager's hooks: pnpm's pnpmfile; the root prepare hook where asked, or by default where sound
 * keys are set up and nothing else rewrites the slice files after an install (pnpm 11+, npm, yarn v1, bun).
 * Whether the prepare hook is in place.
 */
function installHooks(workspace: { root: string; manager: string }, parsed: Parsed, sound: boolean, io: Io): boolean {
  const { root, manager } = workspace;
  const otherWriter = manager === 'pnpm' ? pnpmHook(root, parsed, io) : manager === 'yarn' ? yarnBerry(root) : false;
  const byDefault = sound && !otherWriter && !flag(parsed, 'no-npm-scripts');
  const npmScripts = flag(parsed, 'npm-scripts') || byDefault;
  if (npmScripts) addNpmScripts(root, manager, !flag(parsed, 'npm-scripts'), io);
  else if (sound && !otherWriter) io.stdout.write(AFTER_INSTALL);
  if (sound && manager === 'yarn' && otherWriter) io.stdout.write(afterInstallYarn(root));
  return npmScripts;
}

/** What this package manager's installs get from lockguard, where init wrote no hook for them. */
function managerNotes(manager: string, npmScripts: boolean, io: Io): void {
  if (manager === 'npm' && !npmScripts) {
    io.stdout.write(
      `This is an npm workspace: no pnpmfile to write.\n  lockguard init --npm-scripts adds lockguard's hook to the root prepare script.\n`,
    );
  }
  if (manager === 'yarn') {
    io.stdout.write(
      `This is a yarn workspace: no hook file to write.\n  yarn berry: a refusing run (lockguard run --policy refuse) hands yarn lockguard's plugin and YARN_ENABLE_IMMUTABLE_INSTALLS through the environment, so no file goes into the repository and a fresh clone needs nothing.\n  yarn v1 has no plugins: installs inside a run are caught by the table (file events and the final check).\n`,
    );
  }
  if (manager === 'bun') {
    io.stdout.write(
      `This is a bun workspace: no hook file to write.\n  bun has no plugin hooks: installs inside a run are caught by the table (file events and the final check).\n`,
    );
  }
}

export const command: Command = {
  help,
  async run(rawArgv, io: Io) {
    const { argv, mode } = soundKeysArg(rawArgv);
    const parsed = parse('init', argv, {
      ...DIR_OPTION,
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
    const sound = flag(parsed, 'no-sound-keys')
      ? undefined
      : await setUpSoundKeys(workspace.root, flag(parsed, 'sound-keys'), mode, io);
    ignoreLedger(workspace.root, io);
    const npmScripts = installHooks(workspace, parsed, sound !== undefined, io);
    // The hook rewrites them after installs, but pnpm 11+ runs it only after one that changed something, and
    // the install init asks for may change nothing: written now (committed mode wrote them above).
    if (npmScripts && sound === 'ignored') {
      io.stdout.write(`sound keys: each project's ${SLICE_FILE}, written now (git ignores them):\n`);
      await writeSlicesNow(workspace.root, io);
    }
    managerNotes(workspace.manager, npmScripts, io);
    return EXIT.ok;
  },
};
