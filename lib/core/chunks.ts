// The CLI's chunks: code a command's bundle does not carry, compiled only when a run needs it.
//
// Owns: the chunk's name as the bundle asks its launcher for it (`RECOVERY_CHUNK`, through the importer the
// launcher hands every bundle as `__lockguardImport`: lib/cli/bin.ts), and the modules a chunk takes from the
// bundle that loads it instead of carrying its own copy (`CHUNK_SHARED`: state that must be one per process).
// Why: dead-run recovery (guard/recover-runs.ts, with every runner's adapter) is half of `verify`'s bundle and
// runs only after a crash; carried inline, every start reads and holds it (test/bench/README.md "The code cache").
// Invariants: lib/build/bundle.mjs builds the chunk from these names and fails when a bundle that may load it
// lacks one of the shared modules; nothing here is imported by the launcher's own code but the names.

/** What guard/recover.ts asks the launcher for: dist/cli/recover-runs.cjs, compiled once per process. */
export const RECOVERY_CHUNK = 'lockguard-chunk:recover-runs';

/**
 * The modules (paths under dist/lib) the chunk takes from its host bundle: the error class every `instanceof`
 * checks, the ledger's run-id clock (ledger.ts) and the folders a durable append must sync (atomic.ts).
 * @public read by lib/build/bundle.mjs.
 */
export const CHUNK_SHARED = ['core/errors.js', 'ledger/atomic.js', 'ledger/ledger.js'] as const;
