// The dispatch from argv to a command and the one place an exit code is decided.
//
// Owns: `-C <dir>`, `--help`/`--version`, choosing the command from the table it is handed (command-table.ts
// for the ES modules, one entry per CLI bundle, lib/build/bundle.mjs), and turning errors into exit codes.
// Invariants: returns the exit code, never calls process.exit; a user error prints a message and a fix,
// never a stack trace; imports no command (so a bundle holds only the commands its table names).

import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isLockguardError, LockguardError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import { redactRecord } from '../core/redact.js';
import { fsFault, isFsFault } from '../core/fs-fault.js';
import type { CommandTable } from './command.js';
import { COMMAND_NAMES, HELP_WORDS, SUMMARIES } from './command-names.js';
import { noticingStdout, printableIo, printError, quietIo, type Io } from './io.js';
import { EXIT } from './exit-codes.js';
import { closest } from './suggest.js';

export function mainHelp(): string {
  const width = Math.max(...Object.keys(SUMMARIES).map((name) => name.length));
  const rows = Object.entries(SUMMARIES).map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`);
  return `lockguard: refuse cache saves whose keys folded a lockfile that changed during the run.

Usage: lockguard [-C <dir>] <command> [options] [--verbose | --quiet]

Commands:
${rows.join('\n')}

In CI, around a cache save:
  lockguard snapshot --github-output     # at job start, before restoring caches and installing
  lockguard verify --github-output       # before the save: save=true|false

Run "lockguard help <command>" (or "lockguard <command> --help") for a command's options. Long lists
(quarantine entries, slice files written) are summarised with a count; --verbose prints them whole.
--quiet prints only errors and warnings on stderr (no status line: the exit code and lockguard status
say what happened); what a command answers on stdout (a key, --json) is printed as always.
Start-up: each command's compiled code is cached in $XDG_CACHE_HOME/lockguard/code-cache (else ~/.cache/...)
after its first run, never under CI; LOCKGUARD_CODE_CACHE=off turns it off.
Exit codes: lockguard help exit-codes.
`;
}

/**
 * `-C <dir>` / `--dir <dir>` before the command, as pnpm and git take it: the command runs as if started in
 * that folder. Returns the rest of argv and the io to use.
 */
function leadingDir(argv: readonly string[], io: Io): { argv: readonly string[]; io: Io } {
  const [first, second] = argv;
  if (first === '-C' || first === '--dir')
    return { argv: argv.slice(2), io: { ...io, cwd: folderOf(first, second, io) } };
  if (first?.startsWith('--dir=') === true)
    return { argv: argv.slice(1), io: { ...io, cwd: folderOf('--dir', first.slice('--dir='.length), io) } };
  return { argv, io };
}

/** The folder `-C`/`--dir` names, resolved; none, or something that is there but no folder, is a usage error. */
function folderOf(flag: string, given: string | undefined, io: Io): string {
  if (given === undefined || given === '')
    throw new LockguardError('ERR_LOCKGUARD_USAGE', `${flag} needs a folder.`, {
      hint: 'For example: lockguard -C packages/app status',
    });
  const dir = resolve(io.cwd, given);
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(dir, { throwIfNoEntry: false });
  } catch {
    return dir; // No permission to look: the command names the fault when it reads there.
  }
  if (stat !== undefined && !stat.isDirectory())
    throw new LockguardError('ERR_LOCKGUARD_USAGE', `${flag} names "${printable(dir)}", which is not a folder.`, {
      path: dir,
      hint: `Name the workspace's folder (or one inside it): lockguard ${flag === '-C' ? '-C' : '--dir'} <folder> <command>.`,
    });
  return dir;
}

/**
 * `--verbose` and `--quiet` anywhere before a `--` (after it, the words are the wrapped command's): taken out
 * of argv, and said in the io every command prints through (`--quiet`: io.ts quietIo).
 */
function verbosity(argv: readonly string[], io: Io): { argv: readonly string[]; io: Io } {
  const end = argv.indexOf('--');
  const own = end === -1 ? argv : argv.slice(0, end);
  const verbose = own.includes('--verbose');
  const quiet = own.includes('--quiet');
  if (!verbose && !quiet) return { argv, io };
  if (verbose && quiet)
    throw new LockguardError('ERR_LOCKGUARD_USAGE', '--verbose and --quiet ask for opposite things.', {
      hint: 'Pass one of them.',
    });
  const rest = end === -1 ? [] : argv.slice(end);
  const words = [...own.filter((word) => word !== '--verbose' && word !== '--quiet'), ...rest];
  return { argv: words, io: quiet ? quietIo(io) : { ...io, verbose: true } };
}

export async function main(argvIn: readonly string[], ioGiven: Io, commands: CommandTable): Promise<number> {
  // Every byte printed passes one sink (io.ts printableIo, core/printable.ts).
  const ioIn = printableIo(ioGiven);
  let argv: readonly string[];
  let io: Io;
  try {
    const plain = verbosity(argvIn, ioIn);
    ({ argv, io } = leadingDir(plain.argv, plain.io));
  } catch (error) {
    printError(ioIn, error);
    return EXIT.usage;
  }
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stdout.write(mainHelp());
    return EXIT.usage;
  }
  if (HELP_WORDS.includes(name)) return await help(rest, io, commands);
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${await (await import('./version.js')).version()}\n`);
    return EXIT.ok;
  }
  const load = COMMAND_NAMES.includes(name) ? commands[name] : undefined;
  if (load === undefined) return unknownCommand(name, io);
  const stdout = { wrote: false };
  io = noticingStdout(io, stdout);
  try {
    const command = await load();
    if (rest.includes('--help') || rest.includes('-h')) {
      const dashDash = rest.indexOf('--');
      const helpAt = Math.max(rest.indexOf('--help'), rest.indexOf('-h'));
      if (dashDash === -1 || helpAt < dashDash) {
        io.stdout.write(command.help);
        return EXIT.ok;
      }
    }
    return await command.run(rest, io);
  } catch (caught) {
    // A disk or permission fault that escaped its owner is still the user's setup, never a crash.
    const error =
      !isLockguardError(caught) && isFsFault(caught) ? fsFault(caught, pathOf(caught) ?? io.cwd, 'use') : caught;
    printError(io, error);
    const exitCode = !isLockguardError(error)
      ? EXIT.internal
      : error.code === 'ERR_LOCKGUARD_PRE_CHECK'
        ? EXIT.preCheck
        : EXIT.usage;
    if (asksJson(rest) && JSON_COMMANDS.includes(name) && !stdout.wrote)
      await printJsonError(io, name, error, exitCode);
    return exitCode;
  }
}

/**
 * The commands that take --json: an error they did not answer on stdout themselves (snapshot and verify write
 * theirs to every output asked for, ci-outputs.ts reportFailure, in the same shape) is answered here.
 */
const JSON_COMMANDS: readonly string[] = [
  'doctor',
  'init',
  'key',
  'plan',
  'prune',
  'quarantine',
  'run',
  'status',
  'snapshot',
  'uninstall',
  'verify',
];

/** `--json` among the command's own words (before a `--`). */
function asksJson(rest: readonly string[]): boolean {
  const end = rest.indexOf('--');
  return (end === -1 ? rest : rest.slice(0, end)).includes('--json');
}

/**
 * An error as `--json` asks for it, on stdout (the message and fix stay on stderr): one shape for every command;
 * `run`'s on one line, as its answer is (the wrapped command's output may come first: a consumer takes the last).
 */
async function printJsonError(io: Io, command: string, error: unknown, exitCode: number): Promise<void> {
  const known = isLockguardError(error) ? error : undefined;
  const body = {
    version: await (await import('./version.js')).version(),
    command,
    exitCode,
    error: {
      code: known?.code ?? 'ERR_LOCKGUARD_INTERNAL',
      message: known?.message ?? 'internal error (a bug in lockguard)',
      ...(known?.hint === undefined ? {} : { hint: known.hint }),
    },
  };
  io.stdout.write(`${JSON.stringify(redactRecord(body), null, command === 'run' ? undefined : 2)}\n`);
}

/** `lockguard help [<command> | exit-codes]`: the page asked for; an unknown topic is a usage error. */
async function help(rest: readonly string[], io: Io, commands: CommandTable): Promise<number> {
  const topic = rest[0];
  if (topic === undefined || topic.startsWith('-')) {
    io.stdout.write(mainHelp());
    return EXIT.ok;
  }
  if (topic === 'exit-codes') {
    io.stdout.write((await import('./exit-codes.js')).exitCodesHelp());
    return EXIT.ok;
  }
  const load = COMMAND_NAMES.includes(topic) ? commands[topic] : undefined;
  if (load === undefined) return unknownCommand(topic, io);
  io.stdout.write((await load()).help);
  return EXIT.ok;
}

/** An unknown command: an error, so `--quiet` keeps it (printError writes past quietIo's filter). */
function unknownCommand(name: string, io: Io): number {
  const meant = closest(name, [...COMMAND_NAMES, 'help']);
  const line = meant === undefined ? '' : `Did you mean "lockguard ${meant}"?\n  `;
  printError(
    io,
    new LockguardError('ERR_LOCKGUARD_USAGE', `unknown command "${printable(name)}".`, {
      hint: `${line}Commands: ${COMMAND_NAMES.join(', ')}. Run lockguard --help.`,
    }),
  );
  return EXIT.usage;
}

function pathOf(error: unknown): string | undefined {
  const path = (error as { path?: unknown }).path;
  return typeof path === 'string' ? path : undefined;
}
