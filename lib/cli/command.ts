// What a command module hands the command table: its `--help` text and its run.
//
// Owns: the `Command` shape and the `CommandTable` type main dispatches with. Each command's name and its
// one-line summary for `lockguard --help` live in command-names.ts (so `--help` never loads a command); the
// imports that load the commands on demand are command-table.ts's (ES modules) or the bundle's own (one per
// command, lib/build/bundle.mjs).

import type { Io } from './io.js';

export interface Command {
  /** The text `lockguard <command> --help` prints. */
  readonly help: string;
  /** Runs the command with the arguments after its name; resolves to the exit code. */
  run(argv: readonly string[], io: Io): Promise<number>;
}

/** The commands `main` may run, each loaded on demand. */
export type CommandTable = Readonly<Partial<Record<string, () => Promise<Command>>>>;
