// The npm root-script entry (dist/npm-hook.cjs, `require('lockguard/npm-hook')`): what `lockguard hook` does,
// loaded by the few-line script `lockguard init --npm-scripts` writes, which is a no-op where lockguard is not
// installed (`npm ci --omit=dev` in a production image, a checkout that has not installed lockguard yet).
// Invariant: the bin's contract (only the CLI sets the exit code); loads the hook command alone, not the CLI.

import { command } from './commands/hook.js';
import { printableIo, processIo } from './io.js';

void command.run([], printableIo(processIo())).then((code) => {
  process.exitCode = code;
});
