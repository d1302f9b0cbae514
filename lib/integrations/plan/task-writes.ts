// Whether one runner task may write, from its command and how the runner starts it.
//
// Owns: combining the command's own installs (command-writes.ts, following the package's scripts) with
// the runner's way of starting the task: turbo and nx start a package script through the package
// manager's `run`, which under pnpm 11+ (`verifyDepsBeforeRun: install`) installs first.
// Invariants: pure but for reading the task folder's package.json.

import { join } from 'node:path';
import { commandWrites } from './command-writes.js';
import type { PnpmSettings } from './pnpm-settings.js';
import { scriptsOf } from '../package-managers/scripts.js';

export interface TaskWrite {
  readonly mayWrite: boolean;
  readonly writeReason?: string;
}

export interface TaskWriteInput {
  readonly root: string;
  readonly directory: string;
  readonly command: string | undefined;
  readonly settings: PnpmSettings;
  /** The runner starts the task with `pnpm run <script>` (turbo, nx run-script in a pnpm workspace). */
  readonly viaPnpmRun: boolean;
  /** pnpm run inside the task installs first (false under `pnpm pipeline`, which turns it off for tasks). */
  readonly nestedPnpmRunInstalls: boolean;
}

export function taskWrite(input: TaskWriteInput): TaskWrite {
  if (input.command === undefined) return { mayWrite: false };
  if (input.viaPnpmRun && input.settings.verifyDepsBeforeRun === 'install') {
    return {
      mayWrite: true,
      writeReason: `started with pnpm run, which installs first (verifyDepsBeforeRun: install, ${input.settings.source})`,
    };
  }
  const verdict = commandWrites(input.command, {
    scripts: scriptsOf(join(input.root, input.directory)),
    pnpmRunInstalls: input.nestedPnpmRunInstalls,
  });
  return verdict.writes
    ? { mayWrite: true, writeReason: `runs ${verdict.reason ?? 'an install'}` }
    : { mayWrite: false };
}
