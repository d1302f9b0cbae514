#!/usr/bin/env node
// The executable, dist/lockguard.cjs: a few lines that pick the bundle of the command argv names
// (dist/cli/<command>.cjs, or dist/cli/main.cjs for help, the version and an unknown command; built by
// lib/build/bundle.mjs), compile it (bundle-load.ts: from the code cache this machine's Node wrote, else from
// source), hand it argv and the process's io, write the code caches where there were none, and end the process
// with the command's exit code (io.ts exitProcess). It runs only as that bundle (it finds the CLI's bundles next to itself).
// A bundle asks it for a chunk through its `require` (`lockguard-chunk:<name>`; core/chunks.ts: dead-run recovery, a package
// manager's install check and readers) only when it needs one: compiled once, handed the modules the bundle shares
// with it (its `shared` export).
// Invariants: no top-level await and no work before the bundle runs; the bundles' two external packages are
// imported from here (Node's own loader), the only place that can (core/external.ts); only the chunks
// core/chunks.ts names are loaded.

import { join } from 'node:path';
import { compileBundle, type CompiledBundle } from './bundle-load.js';
import { commandOf } from './command-names.js';
import { CHUNKS } from '../core/chunks.js';
import type { Io } from './io.js';

interface CliBundle {
  start(argv: readonly string[], io: Io): Promise<number>;
  processIo(): Io;
  exitProcess(code: number): void;
  shared?: Record<string, unknown>;
}

const argv = process.argv.slice(2);
const dir = join(__dirname, 'cli');
const compiled: CompiledBundle[] = [compileBundle(join(dir, `${commandOf(argv) ?? 'main'}.cjs`), process.env)];
const chunks = new Map<string, unknown>();
const loadChunk = (name: string): unknown => {
  if (!(CHUNKS as readonly string[]).includes(name)) throw new Error(`lockguard has no chunk named ${name}`);
  if (!chunks.has(name)) {
    const loaded = compileBundle(join(dir, `${name}.cjs`), process.env);
    compiled.push(loaded);
    chunks.set(name, loaded.run(importer, cli.shared ?? {}, loadChunk));
  }
  return chunks.get(name);
};
const importer = (specifier: string): Promise<unknown> => import(specifier);
const cli = (compiled[0] as CompiledBundle).run(importer, undefined, loadChunk) as unknown as CliBundle;
void cli.start(argv, cli.processIo()).then((code) => {
  for (const bundle of compiled) bundle.saveCodeCache();
  cli.exitProcess(code);
});
