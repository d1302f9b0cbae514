// The names of the package managers lockguard knows, one per folder beside this file.
//
// Owns: `PackageManager`, the name a table, a ledger record and every adapter are keyed by.
// Invariants: types only; a leaf (imports nothing), so every module of core/ may name a package manager's
// type without reaching the registry. A new package manager is one name here, a folder beside this file and
// one line in registry.ts (README.md says what its folder must provide).

export type PackageManager = 'pnpm' | 'npm' | 'yarn' | 'bun';
