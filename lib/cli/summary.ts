// Long lists, summarised: the first lines and a count of the rest with the way to see them all, so 10,000
// quarantined entries or slice files print a screenful, not 20,000 lines.
//
// Owns: the limit and the "… and N more" line.
// Invariants: a list at or under the limit, or any list under --verbose, is returned whole; the count line
// always says how to see every line (--verbose, or --json where the command has it).

import type { Io } from './io.js';

/** How many lines of a list are printed before the rest is counted. */
const LIST_LIMIT = 20;

/** `lines`, or its first LIST_LIMIT and one line counting the rest (`indent` before it, `what` naming them). */
export function summarised(io: Io, lines: readonly string[], what: string, indent = ''): string[] {
  if (io.verbose === true || lines.length <= LIST_LIMIT) return [...lines];
  const rest = lines.length - LIST_LIMIT;
  return [...lines.slice(0, LIST_LIMIT), `${indent}… and ${rest} more ${what} (--verbose lists them all)`];
}
