// The fuzz worker: runs cases in process through `main()`, and tells the parent before every call so the
// parent's watchdog can tell a hang (it terminates this thread) from a slow case.

import { parentPort } from 'node:worker_threads';
import { cli } from '../helpers/cli.js';
import { runCase, type CaseSpec } from './harness.js';

const port = parentPort;
if (port === null) throw new Error('test/fuzz/worker.ts runs as a worker thread');
port.on('message', (spec: CaseSpec) => {
  runCase(
    spec,
    (argv, cwd, env) => cli(argv, cwd, env),
    (label) => port.postMessage({ type: 'call', label }),
  ).then(
    (result) => port.postMessage({ type: 'done', result }),
    (error: unknown) =>
      port.postMessage({
        type: 'error',
        message: error instanceof Error ? (error.stack ?? error.message) : String(error),
      }),
  );
});
