// The CLI's chunks: code a command's bundle does not carry, compiled only when a run needs it.
//
// Owns: the chunks' names (`CHUNKS`: dist/cli/<name>.cjs), which a bundle asks its launcher for through its
// `require` as `lockguard-chunk:<name>` (lib/cli/bin.ts): each is reached through one loader module the build
// replaces in the CLI bundles (guard/recover-load.ts, core/package-managers/chunk-load.ts); and the modules a chunk takes from the bundle that loads it instead of
// carrying its own copy (`CHUNK_SHARED`: state that must be one per process).
// Why: dead-run recovery (guard/recover-runs.ts, with every runner's adapter) is half of `verify`'s bundle and
// runs only after a crash; the four package managers' install checks and lockfile readers were half of the
// rest, and a command needs at most its workspace's one. Carried inline, every start reads and holds them
// (test/bench/README.md "The code cache").
// Invariants: lib/build/bundle.mjs builds every chunk named here and makes every bundle that may load one
// export the shared modules; the launcher loads no other name; nothing here is imported by the launcher's own
// code but the names.

/** Every chunk, as dist/cli/<name>.cjs. */
export const CHUNKS = ['recover-runs', 'pm-pnpm', 'pm-yarn', 'pm-bun', 'pm-npm'] as const;

/**
 * The modules (paths under dist/lib) a chunk takes from its host bundle: the error class every `instanceof`
 * checks, the ledger's run-id clock (ledger.ts) and the folders a durable append must sync (atomic.ts).
 * @public read by lib/build/bundle.mjs.
 */
export const CHUNK_SHARED = ['core/errors.js', 'ledger/atomic.js', 'ledger/ledger.js'] as const;
