// lockguard's yarn berry plugin: refuses, inside a refusing guarded run, every yarn command that would
// install other than `yarn install` itself (which YARN_ENABLE_IMMUTABLE_INSTALLS freezes).
//
// How it gets loaded: only by a refusing run, through YARN_PLUGINS in the child's env (refuse-env.ts):
// nothing is written into the user's repository, so a fresh clone needs nothing, and outside a refusing run
// yarn never loads it. Shipped as one CommonJS file (dist/yarn-plugin.cjs), Node builtins only.
// Hook: `validateProject`, which yarn 4 runs at the start of every project install (add, remove, up,
// dedupe, link, unlink, patch-commit, set resolution, workspaces focus, plugin import, `yarn install`),
// before it resolves, fetches or writes anything (measured with yarn 4.18.1: rc 1, lockfile, manifests and
// install state untouched). The command is read from yarn's own argv (yarn runs in this process).
// Hook: `afterAllInstalled`, after an install the plugin saw (inside a refusing run: `yarn install`, frozen),
// writes the per-project slice files where the workspace uses them (slice-files/after-install.ts); a problem
// is one warning on stderr, never a failed install.
// Invariants: never throws for `yarn install` / bare `yarn` unless it was asked to rewrite the lockfile
// (`--no-immutable`, `--mode=update-lockfile`); the message names the command and the fix, nothing else.

import { writeSliceFilesLazily } from '../slice-files/lazy-writer.js';

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

/** The plugin object yarn loads (`module.exports`). */
export const plugin = {
  name: 'lockguard-refuse',
  factory: () => ({
    hooks: {
      validateProject(): void {
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
        const warning = writeSliceFilesLazily(project.cwd);
        if (warning !== undefined) process.stderr.write(`${warning}\n`);
      },
    },
  }),
};
