#!/usr/bin/env node
// The executable, dist/lockguard.cjs: a few lines that load the CLI's bundle (dist/cli/main.cjs, built from
// cli/bundle-entry.ts) with its V8 code cache (bundle-load.ts), hand it argv and the process's io, and set the
// exit code. It runs only as that bundle (it finds the CLI bundle next to itself).
// Invariants: no top-level await and no work before the bundle runs; the bundle's two external packages are
// imported from here (Node's own loader), the only place that can (core/external.ts).

import { join } from 'node:path';
import { compileBundle } from './bundle-load.js';
import type { Io } from './io.js';

interface CliBundle {
  main(argv: readonly string[], io: Io): Promise<number>;
  processIo(): Io;
}

const cli = compileBundle(join(__dirname, 'cli', 'main.cjs')).run((specifier) => import(specifier)) as unknown as CliBundle;
void cli.main(process.argv.slice(2), cli.processIo()).then((code) => {
  process.exitCode = code;
});
