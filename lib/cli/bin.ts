#!/usr/bin/env node
// The executable: a few lines that hand argv and the process's io to main and set the exit code.
// No top-level await: the bin ships as a CommonJS bundle (dist/lockguard.cjs), which Node loads faster
// than an ES module graph.
import { main } from './main.js';
import { processIo } from './io.js';

// A closed stdout or stderr (`lockguard doctor | head -1`) is no error of lockguard's: what is left unwritten
// is dropped, and the command still ends with its own exit code.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

void main(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
