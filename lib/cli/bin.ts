#!/usr/bin/env node
// The executable: a few lines that hand argv and the process's io to main and set the exit code.
import { main } from './main.js';
import { processIo } from './io.js';

process.exitCode = await main(process.argv.slice(2), processIo());
