// Every command, each imported on demand: the table `main` dispatches with in the ES module build (dist/lib,
// the tests). The executable instead loads one bundle per command (lib/build/bundle.mjs), whose table names only
// that command, so a command never loads what another needs.
// Invariant: one entry per name in command-names.ts.

import type { CommandTable } from './command.js';

export const COMMANDS: CommandTable = {
  snapshot: async () => (await import('./commands/snapshot.js')).command,
  verify: async () => (await import('./commands/verify.js')).command,
  key: async () => (await import('./commands/key.js')).command,
  status: async () => (await import('./commands/status.js')).command,
  run: async () => (await import('./commands/run.js')).command,
  doctor: async () => (await import('./commands/doctor.js')).command,
  quarantine: async () => (await import('./commands/quarantine.js')).command,
  prune: async () => (await import('./commands/prune.js')).command,
  plan: async () => (await import('./commands/plan.js')).command,
  init: async () => (await import('./commands/init.js')).command,
  uninstall: async () => (await import('./commands/uninstall.js')).command,
  hook: async () => (await import('./commands/hook.js')).command,
  completion: async () => (await import('./commands/completion.js')).command,
};
