// The command table and the one place an exit code is decided.
//
// Owns: dispatch from argv to a command module (imported on demand, so `verify` never loads what `run`
// needs), `--help`/`--version`, and turning errors into exit codes.
// Invariants: returns the exit code, never calls process.exit; a user error prints a message and a fix,
// never a stack trace.

import { resolve } from 'node:path';
import { isLockguardError, LockguardError } from '../core/errors.js';
import { fsFault, isFsFault } from '../core/fs-fault.js';
import { printError, type Io } from './io.js';
import { EXIT } from './exit-codes.js';

export interface Command {
  readonly summary: string;
  readonly help: string;
  run(argv: readonly string[], io: Io): Promise<number>;
}

const COMMANDS: Record<string, () => Promise<Command>> = {
  snapshot: async () => (await import('./commands/snapshot.js')).command,
  verify: async () => (await import('./commands/verify.js')).command,
  key: async () => (await import('./commands/key.js')).command,
  status: async () => (await import('./commands/status.js')).command,
  run: async () => (await import('./commands/run.js')).command,
  doctor: async () => (await import('./commands/doctor.js')).command,
  quarantine: async () => (await import('./commands/quarantine.js')).command,
  plan: async () => (await import('./commands/plan.js')).command,
  init: async () => (await import('./commands/init.js')).command,
  hook: async () => (await import('./commands/hook.js')).command,
};

const SUMMARIES: Record<string, string> = {
  run: 'run a command (turbo, nx, pnpm -r, ...) and guard its cache saves against installs inside it',
  snapshot: 'record the lockfile fingerprints before a CI job installs, and print the cache key',
  verify: 'before a cache save: exit 0 if nothing moved since the snapshot, 1 if something did',
  key: 'print the current cache key of the fingerprint table',
  status: "show the latest run's state and report",
  doctor: 'check that this workspace is set up for lockguard (read-only)',
  quarantine: 'list or restore the cache entries guarded runs withheld',
  plan: 'before a run: which tasks may rewrite the lockfile, and which keys that makes unstable',
  init: 'set up the install-time hooks (.pnpmfile.cjs; --npm-scripts for npm)',
  hook: 'for npm root preinstall/postinstall scripts: report to a guarded run',
};

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
  const load = COMMANDS[name];
  if (load === undefined) {
    io.stderr.write(`lockguard: unknown command "${name}".\n  Commands: ${Object.keys(COMMANDS).join(', ')}. Run lockguard --help.\n`);
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
