// What bun's command line means: its executables, subcommands with their aliases, the options that take a
// separate value word, and what each command does to the fingerprint table (tables.ts says each field).
//
// Owns: bun's `ManagerTable`, read from the tool itself (bun 1.4 `--help`).
// Invariants: data only (no I/O, no Node imports): the pnpmfile bundle carries it into pnpm's processes.

import type { ManagerTable } from '../tables.js';

export const BUN_COMMAND_LINE: ManagerTable = {
  executables: { bun: {}, bunx: { exec: true } },
  execCommand: 'x',
  recursiveWords: new Set(),
  forwardsAfterName: false,
  verifiesDepsFirst: { scripts: false, commands: new Set() },
  workspaceCommands: false,
  rewritingSubcommands: {},
  installWithNamesAdds: true,
  dryRunOptions: new Set(),
  lockfileOnlyOptions: new Set(),
  dirOptions: ['--cwd'],
  prePostScripts: false,
  elsewhereFolderUnknown: false,
  lineOptions: new Set(),

  aliases: { i: 'install', a: 'add', rm: 'remove', 'run-script': 'run', x: 'x' },
  effects: {
    install: 'installs',
    add: 'rewrites',
    remove: 'rewrites',
    update: 'rewrites',
    link: 'rewrites',
    unlink: 'rewrites',
    'patch-commit': 'rewrites',
    ci: 'tree',
    run: 'script',
    x: 'exec',
    create: 'exec',
    test: 'none',
    build: 'none',
    pm: 'none',
    init: 'none',
    upgrade: 'none',
    outdated: 'none',
    publish: 'none',
    repl: 'none',
    info: 'none',
    audit: 'none',
    patch: 'none',
    why: 'none',
  },
  valueOptions: new Set([
    '--cwd',
    '--filter',
    '-F',
    '--config',
    '-c',
    '--cache-dir',
    '--backend',
    '--registry',
    '--env-file',
    '--elide-lines',
    '--workspace',
  ]),
  frozenOptions: new Set(['--frozen-lockfile']),
  unfrozenOptions: new Set(),
  elsewhereOptions: new Set(['--cwd', '--filter', '-F', '--workspace']),
  bareIsScript: true,
  bare: 'none',
};
