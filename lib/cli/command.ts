// What a command module hands the command table: its `--help` text and its run.
//
// Owns: the `Command` shape only. The table itself (each command's name, its one-line summary for
// `lockguard --help`, and the import that loads it on demand) is main.ts's, so `--help` never loads a command.

import type { Io } from './io.js';

export interface Command {
  /** The text `lockguard <command> --help` prints. */
  readonly help: string;
  /** Runs the command with the arguments after its name; resolves to the exit code. */
  run(argv: readonly string[], io: Io): Promise<number>;
}
