// The CLI bundle's entry (dist/cli/main.cjs): what the executable (bin.ts) calls.
// Invariant: re-exports only.

export { main } from './main.js';
export { processIo } from './io.js';
