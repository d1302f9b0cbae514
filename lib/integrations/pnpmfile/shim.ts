// The `.pnpmfile.cjs` lockguard recommends: a few lines that load the plugin when it is installed.
//
// Invariants:
// - These bytes never change across lockguard versions: pnpm folds the pnpmfile's bytes into
//   `pnpmfileChecksum` in pnpm-lock.yaml, so a changed shim would move every user's lockfile.
//   test/integrations/pnpmfile/shim.test.ts pins their digest.
// - A fresh clone's first `pnpm install` (lockguard not installed yet) gets no hooks and succeeds: only
//   "cannot resolve lockguard/pnpmfile" (MODULE_NOT_FOUND from require.resolve) is caught; an error while
//   loading the plugin itself is rethrown.
// - Without lockguard it still exports `hooks` (empty): pnpm 12 writes pnpmfileChecksum only for a pnpmfile
//   that exports hooks, so an empty export would leave the lockfile without one and a later frozen install
//   with lockguard present would fail (ERR_PNPM_LOCKFILE_CONFIG_MISMATCH; measured).
// - It hands pnpm a fresh plain object: pnpm < 10.8 assigns onto the export, which a module namespace (what
//   require() of ESM returns on a Node without the "module.exports" interop) refuses.

/** The shim's exact text. */
export const PNPMFILE_SHIM = `// lockguard: reports pnpm commands to a guarded run (lockguard run); does nothing outside one.
// Keep these bytes as they are: pnpm folds this file into pnpm-lock.yaml (pnpmfileChecksum).
let plugin
try {
  plugin = require.resolve('lockguard/pnpmfile')
} catch (error) {
  // A fresh clone's first install: lockguard is not installed yet.
  if (error.code !== 'MODULE_NOT_FOUND') throw error
}
module.exports = plugin === undefined ? { hooks: {} } : { ...require(plugin) }
`;

/** The same, for a repository that has hooks of its own (printed by `lockguard init` when it cannot write). */
export const COMPOSED_PNPMFILE_EXAMPLE = `// lockguard composed with this repository's own hooks.
const ownHooks = {
  // readPackage(pkg) { return pkg },
}
let plugin
try {
  plugin = require.resolve('lockguard/pnpmfile')
} catch (error) {
  if (error.code !== 'MODULE_NOT_FOUND') throw error
}
module.exports = plugin === undefined ? { hooks: ownHooks } : require(plugin).withLockguard(ownHooks)
`;
