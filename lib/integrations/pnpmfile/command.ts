// Which pnpm command loaded the pnpmfile, and whether it rewrites the lockfile by design.
//
// Owns: recovering pnpm's argv (pnpm 10 runs hooks in its own process, so `process.argv` holds it; pnpm 12
// runs them in `node` helper processes with an empty argv, whose parent is the pnpm process: its
// `/proc/<ppid>/cmdline` holds it on Linux), and naming the command from it.
// Invariants: Node builtins only (loaded inside pnpm); never throws; unknown is `undefined`, never a guess
// that refuses: a command we cannot name is left to `frozenLockfile`, `afterAllResolved` and the run's
// final check.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Commands that write the lockfile whatever `frozenLockfile` says (measured: `add` ignores it). */
const WRITERS: ReadonlySet<string> = new Set([
  'add',
  'update',
  'up',
  'upgrade',
  'remove',
  'rm',
  'uninstall',
  'un',
  'uni',
  'dedupe',
  'import',
  'link',
  'ln',
  'unlink',
  'dislink',
  'patch-commit',
  'patch-remove',
]);

/** Global options that take a separate value word (`--filter b`), so the value is not the command. */
const VALUE_OPTIONS: ReadonlySet<string> = new Set([
  '--filter',
  '-F',
  '--filter-prod',
  '--dir',
  '-C',
  '--reporter',
  '--loglevel',
  '--workspace-concurrency',
  '--resume-from',
  '--store-dir',
  '--virtual-store-dir',
  '--modules-dir',
  '--lockfile-dir',
  '--network-concurrency',
  '--child-concurrency',
  '--test-pattern',
  '--changed-files-ignore-pattern',
  '--node-linker',
  '--package-import-method',
  '--global-dir',
  '--cache-dir',
]);

const RECURSIVE = new Set(['recursive', 'multi', 'm']);

/** What the command line says: the command name and the words after it. */
export interface PnpmCommand {
  readonly name: string;
  readonly args: readonly string[];
}

/** Name the command in pnpm's argv (without the executable): the first word that is no option's value. */
export function parsePnpmArgs(argv: readonly string[]): PnpmCommand | undefined {
  const positionals: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (word === '--') break;
    if (word.startsWith('-')) {
      if (VALUE_OPTIONS.has(word)) index++;
      continue;
    }
    if (positionals.length === 0 && RECURSIVE.has(word)) continue;
    positionals.push(word);
  }
  const [name, ...args] = positionals;
  return name === undefined ? undefined : { name, args };
}

/** True when the command rewrites the lockfile by design: `frozenLockfile` does not stop it. */
export function writesLockfile(command: PnpmCommand): boolean {
  if (WRITERS.has(command.name)) return true;
  // `pnpm install <pkg>` is `pnpm add <pkg>` (measured: it rewrites the lockfile under frozenLockfile).
  return (command.name === 'install' || command.name === 'i') && command.args.length > 0;
}

/** pnpm's own argv (after the executable), from this process (pnpm 10) or its parent (pnpm 12 helpers). */
export function pnpmArgv(argv: readonly string[] = process.argv, ppid: number = process.ppid): readonly string[] | undefined {
  // pnpm 10: [node, pnpm.cjs, ...args]. pnpm 12 helper: [node] only.
  if (argv.length >= 2) return argv.slice(2);
  try {
    const words = readFileSync(`/proc/${ppid}/cmdline`, 'utf8').split('\0');
    if (words.at(-1) === '') words.pop();
    return words.slice(1);
  } catch {
    return undefined;
  }
}

/**
 * The major version of the pnpm running hooks in this very process (pnpm <= 11 do; pnpm 12 runs them in
 * helpers, where this is undefined): read from the package.json above its entry script. Read only inside a
 * refusing run, to decide whether `afterAllResolved` may be registered.
 */
export function inProcessPnpmMajor(argv: readonly string[] = process.argv): number | undefined {
  const entry = argv[1];
  if (argv.length < 2 || entry === undefined) return undefined;
  for (let dir = dirname(entry), up = 0; up < 3; dir = dirname(dir), up++) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (typeof manifest.version === 'string' && typeof manifest.name === 'string' && manifest.name.includes('pnpm')) {
        const major = Number(manifest.version.split('.')[0]);
        return Number.isInteger(major) ? major : undefined;
      }
    } catch {
      // No manifest at this level: look one up.
    }
  }
  return undefined;
}
