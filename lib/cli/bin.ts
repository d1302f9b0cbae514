#!/usr/bin/env node
// The executable, dist/lockguard.cjs: a few lines that pick the bundle of the command argv names
// (dist/cli/<command>.cjs, or dist/cli/main.cjs for help, the version and an unknown command; built by
// lib/build/bundle.mjs), compile it (bundle-load.ts: from the code cache this machine's Node wrote, else from
// source), hand it argv and the process's io, write the code cache where there was none, and end the process
// with the command's exit code (io.ts exitProcess). It runs only as that bundle (it finds the CLI's bundles next to itself).
// Invariants: no top-level await and no work before the bundle runs; the bundles' two external packages are
// imported from here (Node's own loader), the only place that can (core/external.ts).

import { join } from 'node:path';
import { compileBundle } from './bundle-load.js';
import { commandOf } from './command-names.js';
import type { Io } from './io.js';

interface CliBundle {
  start(argv: readonly string[], io: Io): Promise<number>;
  processIo(): Io;
  exitProcess(code: number): void;
}

const argv = process.argv.slice(2);
const bundle = join(__dirname, 'cli', `${commandOf(argv) ?? 'main'}.cjs`);
const compiled = compileBundle(bundle, process.env);
const cli = compiled.run((specifier) => import(specifier)) as unknown as CliBundle;
void cli.start(argv, cli.processIo()).then((code) => {
  compiled.saveCodeCache();
  cli.exitProcess(code);
});
