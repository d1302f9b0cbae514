// lockguard's yarn berry plugin: writes the per-project slice files after every install, and refuses, inside
// a refusing guarded run, every yarn command that would install other than `yarn install` itself (which
// YARN_ENABLE_IMMUTABLE_INSTALLS freezes).
//
// How it gets loaded, two ways:
// - committed: `yarn plugin import <lockguard>/dist/yarn-plugin.cjs` copies this one file into
//   `.yarn/plugins/lockguard.cjs` and names it in `.yarnrc.yml`, so every yarn command of every clone loads it
//   (before lockguard itself is installed: hence one self-contained file, the slice writer inside, its module
//   code run only after an install: lib/build/bundle.mjs yarnPluginText).
//   Loaded so, it never refuses: it only writes slice files.
// - by a refusing run, through YARN_PLUGINS in the child's env (refuse-env.ts): nothing written into the
//   repository. yarn loads YARN_PLUGINS' plugins first and skips a later one of the same name (measured,
//   yarn 4.18.1), so inside a refusing run the copy it refuses from is this one even where one is committed.
//   It refuses only when its own file is listed in YARN_PLUGINS (how a refusing run loads it).
// Hook: `validateProject`, which yarn 4 runs at the start of every project install (add, remove, up,
// dedupe, link, unlink, patch-commit, set resolution, workspaces focus, plugin import, `yarn install`),
// before it resolves, fetches or writes anything (measured with yarn 4.18.1: rc 1, lockfile, manifests and
// install state untouched). The command is read from yarn's own argv (yarn runs in this process).
// Hook: `afterAllInstalled`, which yarn 4 runs after an install that wrote the lockfile (`persist`, before the
// link step), linked, and passed its post-install validation (never after a failed one), writes the
// per-project slice files where the workspace uses them (slice-files/after-install.ts); a problem is one
// warning on stderr, never a failed install.
// Invariants: never throws for `yarn install` / bare `yarn` unless it was asked to rewrite the lockfile
// (`--no-immutable`, `--mode=update-lockfile`) inside a refusing run; never refuses where it was not loaded
// through YARN_PLUGINS; the message names the command and the fix, nothing else.

import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Env } from '../../core/env.js';
import { type AfterInstall, writeSliceFilesWith } from '../slice-files/lazy-writer.js';
import { printableText } from '../../core/printable.js';

/** yarn's words before the command that take no part in it: `workspace <name>` and `--cwd <dir>`. */
export function yarnCommand(argv: readonly string[]): { command: string | undefined; args: readonly string[] } {
  let i = 0;
  for (;;) {
    const word = argv[i];
    if (word === '--cwd') i += 2;
    else if (word !== undefined && word.startsWith('--cwd=')) i += 1;
    else if (word === 'workspace') i += 2;
    else break;
  }
  return { command: argv[i], args: argv.slice(i + 1) };
}

/** Why a yarn command must not install inside a refusing run, or undefined when it may. */
export function refusalOf(argv: readonly string[]): string | undefined {
  const { command, args } = yarnCommand(argv);
  const installing = command === undefined || command === 'install' || command.startsWith('-');
  if (!installing) return `"yarn ${command}" would rewrite yarn.lock or the installed tree`;
  if (
    args.includes('--no-immutable') ||
    args.some((arg) => arg === '--mode=update-lockfile') ||
    (args.includes('--mode') && args[args.indexOf('--mode') + 1] === 'update-lockfile')
  ) {
    return '"yarn install" was asked to rewrite yarn.lock (--no-immutable / --mode=update-lockfile)';
  }
  return undefined;
}

/** Whether `self` (this plugin's file) is one of YARN_PLUGINS' entries (yarn resolves them from its cwd). */
export function loadedThroughEnv(self: string | undefined, env: Env, cwd: string): boolean {
  const listed = env['YARN_PLUGINS'];
  if (self === undefined || listed === undefined || listed === '') return false;
  const real = (path: string): string => {
    try {
      return realpathSync.native(path);
    } catch {
      return path;
    }
  };
  const me = real(self);
  return listed.split(';').some((entry) => entry !== '' && real(resolve(cwd, entry)) === me);
}

/**
 * The plugin object yarn loads (`module.exports`); `self` is its file (refusing only when YARN_PLUGINS lists
 * it); `loadWriter` runs the slice writer's module code, only after an install in a workspace that uses the files.
 */
export function createPlugin(self: string | undefined, loadWriter: () => AfterInstall) {
  return {
    name: 'lockguard',
    factory: () => ({
      hooks: {
        validateProject(): void {
          if (!loadedThroughEnv(self, process.env, process.cwd())) return;
          const why = refusalOf(process.argv.slice(2));
          if (why === undefined) return;
          const error = new Error(
            `[lockguard] ERR_LOCKGUARD_REFUSED: ${why} inside a guarded run under --policy refuse. Run it outside the guarded run (then commit the lockfile), or use another policy.`,
          );
          (error as Error & { code?: string }).code = 'ERR_LOCKGUARD_REFUSED';
          // yarn prints the stack: keep it to the one line that says what to do.
          error.stack = `Error: ${error.message}`;
          throw error;
        },
        afterAllInstalled(project: { cwd?: unknown }): void {
          if (typeof project?.cwd !== 'string') return;
          const warning = writeSliceFilesWith(project.cwd, loadWriter);
          if (warning !== undefined) process.stderr.write(printableText(`${warning}\n`));
        },
      },
    }),
  };
}
