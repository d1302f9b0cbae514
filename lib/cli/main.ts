// The command table and the one place an exit code is decided.
//
// Owns: dispatch from argv to a command module (imported on demand, so `verify` never loads what `run`
// needs), `--help`/`--version`, and turning errors into exit codes.
// Invariants: returns the exit code, never calls process.exit; a user error prints a message and a fix,
// never a stack trace.

import { resolve } from 'node:path';
import { isLockguardError, LockguardError } from '../core/errors.js';
import { fsFault, isFsFault } from '../core/fs-fault.js';
import type { Command } from './command.js';
import { printError, type Io } from './io.js';
import { EXIT } from './exit-codes.js';

/** One row of the command table: the line `lockguard --help` shows, and the import that loads the module. */
interface CommandRow {
  readonly summary: string;
  load(): Promise<Command>;
}

// In the order `lockguard --help` lists them.
const COMMANDS: Record<string, CommandRow> = {
  run: { summary: 'run a command (turbo, nx, pnpm -r, ...) and guard its cache saves against installs inside it', load: async () => (await import('./commands/run.js')).command },
  snapshot: { summary: 'record the lockfile fingerprints before a CI job installs, and print the cache key', load: async () => (await import('./commands/snapshot.js')).command },
  verify: { summary: 'before a cache save: exit 0 if nothing moved since the snapshot, 1 if something did', load: async () => (await import('./commands/verify.js')).command },
  key: { summary: 'print the current cache key of the fingerprint table', load: async () => (await import('./commands/key.js')).command },
  status: { summary: "show the latest run's state and report", load: async () => (await import('./commands/status.js')).command },
  doctor: { summary: 'check that this workspace is set up for lockguard (read-only)', load: async () => (await import('./commands/doctor.js')).command },
  quarantine: { summary: 'list or restore the cache entries guarded runs withheld', load: async () => (await import('./commands/quarantine.js')).command },
  plan: { summary: 'before a run: which tasks may rewrite the lockfile, and which keys that makes unstable', load: async () => (await import('./commands/plan.js')).command },
  init: { summary: 'set up the install-time hooks (.pnpmfile.cjs; --npm-scripts for npm)', load: async () => (await import('./commands/init.js')).command },
  hook: { summary: 'for npm root preinstall/postinstall scripts: report to a guarded run', load: async () => (await import('./commands/hook.js')).command },
};

export function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const rows = Object.entries(COMMANDS).map(([name, { summary }]) => `  ${name.padEnd(width)}  ${summary}`);
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
    if (second === undefined) throw new LockguardError('ERR_LOCKGUARD_USAGE', `${first} needs a folder.`, { hint: 'For example: lockguard -C packages/app status' });
    return { argv: argv.slice(2), io: { ...io, cwd: resolve(io.cwd, second) } };
  }
  if (first?.startsWith('--dir=') === true) return { argv: argv.slice(1), io: { ...io, cwd: resolve(io.cwd, first.slice('--dir='.length)) } };
  return { argv, io };
}

export async function main(argvIn: readonly string[], ioIn: Io): Promise<number> {
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
  const row = COMMANDS[name];
  if (row === undefined) {
    io.stderr.write(`lockguard: unknown command "${name}".\n  Commands: ${Object.keys(COMMANDS).join(', ')}. Run lockguard --help.\n`);
    return EXIT.usage;
  }
  try {
    const command = await row.load();
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
    const error = !isLockguardError(caught) && isFsFault(caught) ? fsFault(caught, pathOf(caught) ?? io.cwd, 'use') : caught;
    printError(io, error);
    if (isLockguardError(error)) return error.code === 'ERR_LOCKGUARD_PRE_CHECK' ? EXIT.preCheck : EXIT.usage;
    return EXIT.internal;
  }
}

function pathOf(error: unknown): string | undefined {
  const path = (error as { path?: unknown }).path;
  return typeof path === 'string' ? path : undefined;
}
