// Reading a package's scripts, for the callers that follow a command into them.
//
// Owns: `scriptsOf(dir)`: the string-valued `scripts` of `<dir>/package.json`.
// Invariants: a missing, unreadable or broken manifest is `{}` (a plan or a runner guess then knows less;
// the run's table decides anyway); never throws; never echoes the manifest.

import { join } from 'node:path';
import { readConfigText } from '../../core/bounded-read.js';

export function scriptsOf(dir: string): Record<string, string> {
  try {
    const parsed = JSON.parse(readConfigText(join(dir, 'package.json')) ?? '') as { scripts?: unknown } | null;
    const scripts = parsed?.scripts;
    if (scripts === null || typeof scripts !== 'object' || Array.isArray(scripts)) return {};
    return Object.fromEntries(
      Object.entries(scripts).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  } catch {
    return {};
  }
}
