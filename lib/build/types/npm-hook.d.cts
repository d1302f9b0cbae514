// The types of `lockguard/npm-hook` (dist/npm-hook.cjs, lib/cli/npm-hook-entry.ts): a script run for its effect
// (the `lockguard hook` command); it exports nothing.
export {};
