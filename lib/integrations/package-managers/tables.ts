// What each package manager's command line means: subcommands with their aliases, the options that take a
// separate value word, and what each command does to the fingerprint table.
//
// Owns: the shape of the data behind argv.ts (`ManagerTable`); each package manager's own table is in its
// folder (`<pm>/command-line.ts`, read from the tool itself), listed through registry.ts.
// Invariants: types only.
// A command missing from a table is "not an install" and, for pnpm/yarn/bun, a script name: plans are advice
// and the table re-checked by the run decides, so a gap here costs earliness, never a verdict.

import type { PackageManager } from '../../core/package-managers/names.js';

export type Manager = PackageManager;

/**
 * What a command does to the lockfile and the installed tree.
 * - `rewrites`: rewrites the lockfile by design; a frozen-lockfile setting does not stop it (pnpm add/update/
 *   remove, measured: `frozenLockfile` is ignored by them).
 * - `installs`: installs from the manifests, rewriting the lockfile unless told to keep it (`--frozen-lockfile`).
 * - `tree`: lays out node_modules without rewriting the lockfile (npm ci, pnpm prune, pnpm fetch is `store`).
 * - `store`: fills the package store only (pnpm fetch): no table entry changes, but no installed tree is needed.
 * - `script`: runs a package script (run, test, start, a bare script name).
 * - `exec`: runs the command line that follows (exec, dlx, npx, x).
 * - `none`: anything else (list, why, config, publish, ...).
 */
export type Effect = 'rewrites' | 'installs' | 'tree' | 'store' | 'script' | 'exec' | 'none';

export interface ManagerTable {
  /** The manager this table is (its folder's name). */
  readonly name: Manager;
  /** Every spelling → its canonical command name. */
  readonly aliases: Readonly<Record<string, string>>;
  /** Canonical command → what it does; a canonical name absent here is `none` (or a script: `bareIsScript`). */
  readonly effects: Readonly<Record<string, Effect>>;
  /** Options that take the next word as their value when written without `=`. */
  readonly valueOptions: ReadonlySet<string>;
  /** Options that make an `installs` command keep the lockfile as it is. */
  readonly frozenOptions: ReadonlySet<string>;
  /** Options that undo a frozen option (`--no-frozen-lockfile`). */
  readonly unfrozenOptions: ReadonlySet<string>;
  /** Options that send the command to other packages than the one in the current folder. */
  readonly elsewhereOptions: ReadonlySet<string>;
  /** An unknown first word runs the script of that name (pnpm, yarn, bun; not npm). */
  readonly bareIsScript: boolean;
  /** What the manager does with no command at all (yarn: install; others: nothing). */
  readonly bare: Effect;
  /** Package names whose version is the tool's (version.ts; `@pnpm/exe.<platform>` counts for `@pnpm/exe`). */
  readonly packages: readonly string[];
  /** Executable names (basename, extension dropped) → whether the word itself means exec (npx, pnpx, bunx). */
  readonly executables: Readonly<Record<string, { readonly exec?: true }>>;
  /** A release file's name that runs this manager (`.yarn/releases/yarn-4.18.1.cjs`). */
  readonly releaseFile?: RegExp;
  /** The command an exec executable stands for (`npx` → exec, `pnpx` → dlx, `bunx` → x). */
  readonly execCommand: string;
  /** Words before the command that mean `-r` (pnpm: recursive, multi, m). */
  readonly recursiveWords: ReadonlySet<string>;
  /**
   * Only the words before the script or command name are the manager's; the rest go to it (pnpm 10 and 12,
   * measured: `pnpm build --filter x` runs the root script with `--filter x` appended).
   */
  readonly forwardsAfterName: boolean;
  /** Scripts (and these commands) first verify the installed tree (pnpm 11+: verifyDepsBeforeRun). */
  readonly verifiesDepsFirst: { readonly scripts: boolean; readonly commands: ReadonlySet<string> };
  /** `workspace <name> <command…>` and `workspaces focus|foreach|run …` run its commands elsewhere (yarn). */
  readonly workspaceCommands: boolean;
  /** A command whose first positional word makes it rewrite the lockfile (npm: `audit fix`). */
  readonly rewritingSubcommands: Readonly<Record<string, string>>;
  /** An install command given package names adds them: it rewrites the lockfile even when frozen (measured). */
  readonly installWithNamesAdds: boolean;
  /** Options that make an install write nothing (npm: `--dry-run`). */
  readonly dryRunOptions: ReadonlySet<string>;
  /** Options that make any command write the lockfile (npm: `--package-lock-only`). */
  readonly lockfileOnlyOptions: ReadonlySet<string>;
  /** Options of exec's shell mode whose next word is the line it runs (npm: `-c`, `--call`). */
  readonly lineOptions: ReadonlySet<string>;
  /** Options that move the command to another folder (pnpm `--dir`/`-C`, npm `--prefix`/`-C`, yarn and bun `--cwd`). */
  readonly dirOptions: readonly string[];
  /** A script `x` runs `prex` first and `postx` after (npm). */
  readonly prePostScripts: boolean;
  /** A command it runs elsewhere (`yarn workspace b build`) runs in a folder not known from the line (yarn). */
  readonly elsewhereFolderUnknown: boolean;
}
