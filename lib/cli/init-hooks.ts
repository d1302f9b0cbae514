// `lockguard init`'s package-manager hooks: pnpm's pnpmfile shim (and its checksum in pnpm-lock.yaml, the
// one lockfile line init writes: what pnpm install would write, so nothing re-resolves), the root `prepare`
// hook (asked for, or by default where sound keys need something to rewrite the slice files after an
// install), and what each package manager gets where init writes no hook.
//
// Owns: `installHooks` and `managerNotes` (commands/init.ts composes them); what each manager gets is its
// integration adapter's `init` (integrations/package-managers/<pm>/index.ts), its own hook written here by kind. Invariants: a file init did not
// write is never overwritten (an existing pnpmfile that is not lockguard's shim is refused with how to
// compose it); every edit is noted for `lockguard uninstall` (init-record.ts); every line printed says what
// changed and what to commit.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LockguardError } from '../core/errors.js';
import { readBounded, readBoundedText, readConfigText } from '../core/bounded-read.js';
import { yarnFlavor } from '../core/package-managers/yarn/flavor.js';
import { addHookScripts } from '../integrations/npm/scripts.js';
import { majorOf } from '../integrations/package-managers/version.js';
import { integrationOf } from '../integrations/package-managers/registry.js';
import type { PackageManager } from '../core/package-managers/names.js';
import { PNPM_LOCKFILE } from '../core/package-managers/pnpm/index.js';
import { YARN_LOCKFILE } from '../core/package-managers/yarn/index.js';
import { COMPOSED_PNPMFILE_EXAMPLE, PNPMFILE_SHIM } from '../integrations/pnpmfile/shim.js';
import { pnpmfileChecksumOf, withLockfileChecksum } from '../integrations/pnpmfile/checksum.js';
import { SLICE_FILE } from '../integrations/sound-keys/index.js';
import { yarnPluginImportLine } from '../integrations/yarn-plugin/import-path.js';
import { writeAtomic } from '../ledger/atomic.js';
import { flag, type Parsed } from './args.js';
import { pnpmHere } from './doctor-hooks.js';
import { noteInitEdit } from './init-record.js';
import type { Io } from './io.js';

function writePnpmfile(root: string, io: Io): void {
  const path = join(root, '.pnpmfile.cjs');
  const existing = readConfigText(path, root);
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
    noteInitEdit(root, '.pnpmfile.cjs', undefined, PNPMFILE_SHIM);
    writeFileSync(path, PNPMFILE_SHIM, { flag: 'wx' });
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
  const path = join(root, PNPM_LOCKFILE);
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
    const manifest = JSON.parse(readConfigText(join(root, 'package.json'), root) ?? '') as Record<string, unknown>;
    return ['devDependencies', 'dependencies', 'optionalDependencies'].some((field) => {
      const deps = manifest[field];
      return typeof deps === 'object' && deps !== null && Object.hasOwn(deps, 'lockguard');
    });
  } catch {
    return false;
  }
}

function addNpmScripts(root: string, manager: PackageManager, byDefault: boolean, io: Io): void {
  const path = join(root, 'package.json');
  const text = readConfigText(path, root);
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
  noteInitEdit(root, 'package.json', text, edit.text);
  writeFileSync(path, edit.text);
  const moved = edit.changed.filter((event) => event !== 'prepare');
  const why = byDefault
    ? `\n  (it rewrites the ${SLICE_FILE} files after each install, so a runner started without lockguard run hashes what is installed; --no-npm-scripts leaves it out)`
    : '';
  io.stdout.write(
    `package.json: lockguard's hook runs in the root prepare script${moved.length === 0 ? '' : ` (taken out of ${moved.join(' and ')}: npm records those as the root's hasInstallScript in package-lock.json)`}${why}\n` +
      `  next: commit package.json (${integrationOf(manager).init.prepareRuns}; the lockfile does not change).\n`,
  );
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
    const lock = readBounded(join(root, YARN_LOCKFILE), { kind: 'lockfile', root });
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

/**
 * Each kind of a package manager's own install hook (its adapter's `init.hook`): set it up (or say why not)
 * and answer whether it rewrites the slice files after an install.
 */
const HOOK_WRITERS: Readonly<Record<'pnpmfile' | 'yarn-plugin', (root: string, parsed: Parsed, io: Io) => boolean>> = {
  pnpmfile: (root, parsed, io) => pnpmHook(root, parsed, io),
  'yarn-plugin': (root) => yarnBerry(root),
};

/** The last pnpm major that runs pnpmfile hooks in its own process (a pnpmfile costs it nothing measurable). */
const PNPMFILE_FREE_UNTIL = 10;

/**
 * The package manager's hooks: pnpm's pnpmfile; the root prepare hook where asked, or by default where sound
 * keys are set up and nothing else rewrites the slice files after an install (pnpm 11+, npm, yarn v1, bun).
 * Whether the prepare hook is in place.
 */
export function installHooks(
  workspace: { root: string; manager: PackageManager },
  parsed: Parsed,
  sound: boolean,
  io: Io,
): boolean {
  const { root, manager } = workspace;
  const { hook } = integrationOf(manager).init;
  const otherWriter = hook === undefined ? false : HOOK_WRITERS[hook](root, parsed, io);
  const byDefault = sound && !otherWriter && !flag(parsed, 'no-npm-scripts');
  const npmScripts = flag(parsed, 'npm-scripts') || byDefault;
  if (npmScripts) addNpmScripts(root, manager, !flag(parsed, 'npm-scripts'), io);
  else if (sound && !otherWriter) io.stdout.write(AFTER_INSTALL);
  if (sound && hook === 'yarn-plugin' && otherWriter) io.stdout.write(afterInstallYarn(root));
  return npmScripts;
}

/** What this package manager's installs get from lockguard, where init wrote no hook for them. */
export function managerNotes(manager: PackageManager, npmScripts: boolean, root: string, io: Io): void {
  const note = integrationOf(manager).init.note(npmScripts, root);
  if (note !== undefined) io.stdout.write(note);
}
