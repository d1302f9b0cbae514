#!/usr/bin/env node
// The executable: a few lines that hand argv and the process's io to main and set the exit code.
// No top-level await: the bin ships as a CommonJS bundle (dist/lockguard.cjs), which Node loads faster
// than an ES module graph.
import { main } from './main.js';
import { processIo } from './io.js';

void main(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
