// May this command line write a fingerprinted file? The install detector behind `lockguard plan`.
//
// Owns: the plan's question only: every simple command the line may start (package-managers/script-walk,
// through the package's own scripts, npm pre/post scripts, exec/dlx/npx and `sh -c`) is asked whether it
// rewrites the lockfile (package-managers/argv), and a pnpm run/exec/<script> counts when the effective
// verifyDepsBeforeRun is `install`. Frozen installs, `npm ci`, `pnpm dlx` and `npx` are no writers.
// Invariants: pure over its inputs (the scripts are passed in); a command it cannot read is not a writer
// (plans are advice: the watch decides), so the reasons name what was recognized, never guesses.

import { parseCommand } from '../package-managers/argv.js';
import { walkCommand } from '../package-managers/script-walk.js';
import { simpleCommands } from '../package-managers/shell-line.js';

export interface WriteContext {
  /** The scripts of the package the command runs in. */
  readonly scripts: Readonly<Record<string, string>>;
  /** Effective verifyDepsBeforeRun is `install` for pnpm run/exec here. */
  readonly pnpmRunInstalls: boolean;
}

export interface WriteVerdict {
  readonly writes: boolean;
  /** What installs, e.g. "pnpm add" or "pnpm run (verifyDepsBeforeRun: install)" or "script setup: npm install". */
  readonly reason: string | undefined;
}

const HERE = '/lockguard-plan-package';

/** Does this command line (a script body or a task command) install? */
export function commandWrites(line: string, context: WriteContext): WriteVerdict {
  for (const words of simpleCommands(line)) {
    const steps = walkCommand(words, { cwd: HERE, scriptsOf: (dir) => (dir === HERE ? context.scripts : {}) });
    for (const step of steps) {
      const cmd = step.class;
      if (cmd === undefined) continue;
      let what: string | undefined;
      if (cmd.writesLockfile) what = `${cmd.manager} ${parseCommand(step.argv)?.typed ?? '(install)'}`;
      else if (cmd.verifiesDepsFirst && context.pnpmRunInstalls)
        what = `pnpm ${cmd.command === 'exec' ? 'exec' : 'run'} (verifyDepsBeforeRun: install)`;
      if (what !== undefined) return { writes: true, reason: [...step.via, what].join(': ') };
    }
  }
  return { writes: false, reason: undefined };
}
