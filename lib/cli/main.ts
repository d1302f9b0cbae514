// The dispatch from argv to a command and the one place an exit code is decided.
//
// Owns: `-C <dir>`, `--help`/`--version`, choosing the command from the table it is handed (command-table.ts
// for the ES modules, one entry per CLI bundle, lib/build/bundle.mjs), and turning errors into exit codes.
// Invariants: returns the exit code, never calls process.exit; a user error prints a message and a fix,
// never a stack trace; imports no command (so a bundle holds only the commands its table names).

import { resolve } from 'node:path';
import { isLockguardError, LockguardError } from '../core/errors.js';
import { fsFault, isFsFault } from '../core/fs-fault.js';
import type { CommandTable } from './command.js';
import { COMMAND_NAMES, SUMMARIES } from './command-names.js';
import { printableIo, printError, type Io } from './io.js';
import { EXIT } from './exit-codes.js';

export function mainHelp(): string {
  const width = Math.max(...Object.keys(SUMMARIES).map((name) => name.length));
  const rows = Object.entries(SUMMARIES).map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`);
  return `lockguard: refuse cache saves whose keys folded a lockfile that changed during the run.

Usage: lockguard [-C <dir>] <command> [options]

Commands:
${rows.join('\n')}

In CI, around a cache save:
  lockguard snapshot --github-output     # at job start, before restoring caches and installing
  lockguard verify --github-output       # before the save: save=true|false

Run "lockguard <command> --help" for a command's options. Exit codes: lockguard --help exit-codes.
`;
}

/**
 * `-C <dir>` / `--dir <dir>` before the command, as pnpm and git take it: the command runs as if started in
 * that folder. Returns the rest of argv and the io to use.
 */
function leadingDir(argv: readonly string[], io: Io): { argv: readonly string[]; io: Io } {
  const [first, second] = argv;
  if (first === '-C' || first === '--dir') {
    if (second === undefined)
      throw new LockguardError('ERR_LOCKGUARD_USAGE', `${first} needs a folder.`, {
        hint: 'For example: lockguard -C packages/app status',
      });
    return { argv: argv.slice(2), io: { ...io, cwd: resolve(io.cwd, second) } };
  }
  if (first?.startsWith('--dir=') === true)
    return { argv: argv.slice(1), io: { ...io, cwd: resolve(io.cwd, first.slice('--dir='.length)) } };
  return { argv, io };
}

export async function main(argvIn: readonly string[], ioGiven: Io, commands: CommandTable): Promise<number> {
  // Every byte printed passes one sink (io.ts printableIo, core/printable.ts).
  const ioIn = printableIo(ioGiven);
  let argv: readonly string[];
  let io: Io;
  try {
    ({ argv, io } = leadingDir(argvIn, ioIn));
  } catch (error) {
    printError(ioIn, error);
    return EXIT.usage;
  }
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    if (rest[0] === 'exit-codes') {
      io.stdout.write((await import('./exit-codes.js')).exitCodesHelp());
      return EXIT.ok;
    }
    io.stdout.write(mainHelp());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${await (await import('./version.js')).version()}\n`);
    return EXIT.ok;
  }
  const load = COMMAND_NAMES.includes(name) ? commands[name] : undefined;
  if (load === undefined) {
    io.stderr.write(
      `lockguard: unknown command "${name}".\n  Commands: ${COMMAND_NAMES.join(', ')}. Run lockguard --help.\n`,
    );
    return EXIT.usage;
  }
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
    if (isLockguardError(error)) return error.code === 'ERR_LOCKGUARD_PRE_CHECK' ? EXIT.preCheck : EXIT.usage;
    return EXIT.internal;
  }
}

function pathOf(error: unknown): string | undefined {
  const path = (error as { path?: unknown }).path;
  return typeof path === 'string' ? path : undefined;
}
